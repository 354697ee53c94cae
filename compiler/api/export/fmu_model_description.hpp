// modelDescription.xml of an FMI 2.0 Co-Simulation FMU (FMI 2.0 standard, section 2.2 and
// 4.3): the model's variables, the Co-Simulation capabilities stated as the FMU has them,
// <ModelStructure> and the default experiment.
#pragma once

#include "fmu_contents.hpp"

#include <string>

namespace mdl::exporting {

std::string model_description_xml(const FmuContents& contents);

// Sets contents.guid from a hash of the kernels' object code, the model description (without
// a GUID) and the C description's data: another model, method or setting gives another GUID,
// the same export the same one. Format "{8-4-4-4-12 hexadecimal digits}".
void assign_guid(FmuContents& contents, const std::string& extra);

} // namespace mdl::exporting
