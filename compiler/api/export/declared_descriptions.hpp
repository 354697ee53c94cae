// The description strings a model declares (`model M "..."`, `parameter Real k = 8 "spring
// constant [N/m]"`, `state x "..."`), read by the front end (check stage): what an FMU's
// modelDescription.xml shows beside the names.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace mdl::exporting {

struct DeclaredDescriptions {
    std::string model;
    std::map<std::string, std::string> variables; // parameter and state names -> description
};

// The descriptions of `path`'s model, checked with the Integer parameters and component
// folders it was compiled with; empty when the file cannot be checked (the compiler reports
// that).
DeclaredDescriptions
declared_descriptions(const std::string& path,
                      const std::vector<std::pair<std::string, double>>& overrides,
                      const std::vector<std::string>& library_paths);

} // namespace mdl::exporting
