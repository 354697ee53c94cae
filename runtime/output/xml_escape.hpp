// Text made safe for XML and SVG: the characters &, <, > and " as entities (attribute values and
// element text alike). The SVG pictures and the FMU's modelDescription.xml use it.
#pragma once

#include <string>

namespace mdl::runtime {

std::string xml_escaped(const std::string& text);

} // namespace mdl::runtime
