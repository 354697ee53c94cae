#include "runtime/numerical_failure.hpp"

#include <charconv>
#include <cmath>

namespace mdl::runtime {

std::string_view to_string(FailureKind kind) {
    switch (kind) {
    case FailureKind::non_finite:
        return "non-finite value";
    case FailureKind::newton_not_converged:
        return "iteration did not converge";
    case FailureKind::step_size_underflow:
        return "step size underflow";
    case FailureKind::singular_constraint_jacobian:
        return "singular constraint Jacobian";
    case FailureKind::too_many_steps:
        return "too many steps";
    case FailureKind::unresolved_fast_scale:
        return "fast scale not resolved";
    case FailureKind::unfiltered_fast_force:
        return "fast force not filtered out";
    case FailureKind::singular_mass_matrix:
        return "mass matrix not positive definite";
    case FailureKind::tolerance_not_met:
        return "error estimate above the tolerance";
    case FailureKind::off_slow_manifold:
        return "drifted off the slow manifold";
    }
    return "numerical failure";
}

std::string format_number(double value) {
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

namespace {

std::string compose(FailureKind kind, std::string_view method, double time,
                    const std::string& where, const std::string& detail) {
    std::string text(method);
    text += ": ";
    text += to_string(kind);
    text += " at t = ";
    text += format_number(time);
    if (!where.empty()) {
        text += " in " + where;
    }
    if (!detail.empty()) {
        text += ": " + detail;
    }
    return text;
}

} // namespace

NumericalFailure::NumericalFailure(FailureKind kind, std::string_view method, double time,
                                   std::string where, std::string detail)
    : std::runtime_error(compose(kind, method, time, where, detail)), kind_(kind), method_(method),
      time_(time), where_(std::move(where)), detail_(std::move(detail)) {}

NumericalFailure NumericalFailure::in_method(std::string_view method) const {
    return NumericalFailure(kind_, method_.empty() ? method : std::string_view(method_), time_,
                            where_, detail_);
}

MethodNotApplicable::MethodNotApplicable(std::string_view method, const std::string& reason)
    : std::invalid_argument(std::string(method) + ": " + reason), method_(method) {}

} // namespace mdl::runtime
