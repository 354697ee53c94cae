// The compiler's front end in one call: source text -> AST (parse) -> flat model (flatten:
// arrays, loops, Integer parameters, instances) -> checked model (check). The CLI, the
// embedding API and the tests all compile through it.
#pragma once

#include "check/checked_model.hpp"
#include "source/diagnostics.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mdl::check {

struct FrontEndOptions {
    // -p name=value: those naming an Integer parameter fix the structure (the model is
    // compiled with them); the others are the caller's (runtime parameters).
    std::vector<std::pair<std::string, double>> overrides;
    // Folders searched for component models after the using file's own folder (then MDL_PATH).
    std::vector<std::string> library_paths;
    // Check units even when the model declares none, and warn about every quantity whose unit
    // stays undetermined (mdl check --units; check/units.hpp).
    bool require_units = false;
};

// The checked model of `file`'s last model, or nullopt after reporting every error to
// `diagnostics` (which must have been made for `file`).
std::optional<CheckedModel> check_file(const source::SourceFile& file,
                                       source::Diagnostics& diagnostics,
                                       const FrontEndOptions& options = {});

} // namespace mdl::check
