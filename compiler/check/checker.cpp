#include "check/checker_impl.hpp"

namespace mdl::check::detail {

std::optional<CheckedModel> Checker::run() {
    std::size_t errors_before = d_.error_count();
    out_.name = m_.name.text;
    out_.description = m_.description.value_or("");
    out_.file = d_.file().name();
    if (m_.end_name.text != m_.name.text) {
        d_.error(m_.end_name.range, fmt::format("model '{}' ends with 'end {}'; expected "
                                                "'end {}'",
                                                m_.name.text, m_.end_name.text, m_.name.text));
    }
    declare_names();
    check_parameters();
    resolve_body_masses();
    resolve_points();
    for (std::size_t i = 0; i < m_.components.size(); ++i) {
        check_component(m_.components[i], component_index_[i]);
    }
    for (const auto& c : m_.components) {
        if (c.kind == ComponentKind::revolute || c.kind == ComponentKind::prismatic ||
            c.kind == ComponentKind::weld) {
            check_joint(c); // a weld holds the start angle: after the bodies' start values
        }
    }
    for (const auto& c : m_.constraints) {
        check_constraint(c);
    }
    for (const auto& e : m_.equations) {
        check_equation(e);
    }
    for (std::uint32_t i = 0; i < m_.whens.size(); ++i) {
        check_when(m_.whens[i], i);
    }
    for (const auto& a : m_.annotations) {
        check_annotation(a);
    }
    check_square();
    if (d_.error_count() > errors_before) {
        return std::nullopt;
    }
    check_mass_matrix();
    if (d_.error_count() > errors_before) {
        return std::nullopt;
    }
    collect_fast_scales();
    return std::move(out_);
}

} // namespace mdl::check::detail

namespace mdl::check {

bool is_builtin_name(const std::string& name) {
    return name == "time" || name == "pi" || name == "der" || name == "pre" ||
           detail::find_function(name) != nullptr;
}

std::optional<CheckedModel> check_model(const ast::Model& model, source::Diagnostics& diagnostics) {
    detail::Checker checker(model, diagnostics);
    return checker.run();
}

} // namespace mdl::check
