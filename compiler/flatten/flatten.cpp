// Flattening (flatten.hpp): the entry point and the driver over the stages (flattener.hpp).
#include "flattener.hpp"

namespace mdl::flatten {

namespace detail {

std::optional<FlatModel> Flattener::run() {
    std::size_t errors_before = d_.error_count();
    ModelDefinition main = library_.main_model();
    auto& top = new_scope();
    top.model = main.model;
    top.base_file = top.file_id = main.file_id;
    top.path = main.path;
    top.types = {main.model->name.text};
    out_.model.name = main.model->name;
    out_.model.description = main.model->description;
    out_.model.end_name = main.model->end_name;
    out_.model.range = main.model->range;
    collect(top);
    emit(top, *top.model, {}, true); // also after errors: to report those it finds
    report_structural(top);
    for (const auto& [name, value] : options_.overrides) {
        if (applied_.count(name)) {
            out_.used_overrides.push_back(name);
        }
    }
    if (d_.error_count() > errors_before) {
        return std::nullopt;
    }
    return std::move(out_);
}

Scope& Flattener::new_scope() {
    scopes_.push_back(std::make_unique<Scope>());
    return *scopes_.back();
}

bool Flattener::budget(Range where) {
    if (++elements_ > max_elements) {
        if (!over_budget_) {
            d_.error(where, fmt::format("the model unrolls into more than {} declarations "
                                        "and equations; reduce the array sizes or loop "
                                        "bounds",
                                        max_elements));
            over_budget_ = true;
        }
        return false;
    }
    return true;
}

} // namespace detail

std::optional<FlatModel> flatten(ModelLibrary& library, const FlattenOptions& options,
                                 source::Diagnostics& diagnostics) {
    return detail::Flattener(library, options, diagnostics).run();
}

} // namespace mdl::flatten
