#include "check/front_end.hpp"

#include "check/checker.hpp"
#include "check/units.hpp"
#include "flatten/flatten.hpp"
#include "flatten/model_library.hpp"
#include "parse/parser.hpp"

namespace mdl::check {

std::optional<CheckedModel> check_file(const source::SourceFile& file,
                                       source::Diagnostics& diagnostics,
                                       const FrontEndOptions& options) {
    auto parsed = parse::parse_file(file, diagnostics, 0);
    if (!parsed) {
        return std::nullopt;
    }
    flatten::ModelLibrary library(std::move(*parsed), file.name(), diagnostics,
                                  options.library_paths);
    flatten::FlattenOptions flatten_options;
    flatten_options.overrides = options.overrides;
    auto flat = flatten::flatten(library, flatten_options, diagnostics);
    if (!flat) {
        return std::nullopt;
    }
    auto checked = check_model(flat->model, diagnostics);
    if (!checked) {
        return std::nullopt;
    }
    UnitOptions units;
    units.require = options.require_units;
    if (!check_units(flat->model, *checked, diagnostics, units)) {
        return std::nullopt;
    }
    for (const auto& s : flat->structural) {
        checked->structural.push_back({s.name, s.value, s.overridden});
    }
    return checked;
}

} // namespace mdl::check
