// The FMU file: a zip archive (libzip) of named files, written whole or not at all.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace mdl::exporting {

// (path inside the archive, contents). Throws WriteFailure (mdl/write_failure.hpp) naming the file
// and the reason; the target is left as it was.
void write_zip(const std::string& path,
               const std::vector<std::pair<std::string, std::string>>& files);

} // namespace mdl::exporting
