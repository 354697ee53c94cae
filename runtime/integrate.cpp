#include "runtime/integrate.hpp"

#include <cmath>

namespace mdl::runtime {

void require_finite(const Model& model, const State& state, std::string_view method) {
    const auto check = [&](const Vector& values, auto&& name_of, const char* what) {
        for (Eigen::Index i = 0; i < values.size(); ++i) {
            if (!std::isfinite(values[i])) {
                throw NumericalFailure(FailureKind::non_finite, method, state.t, name_of(i),
                                       std::string(what) + " became " + format_number(values[i]) +
                                           "; the solution blows up or the step is too large "
                                           "for the method's stability region");
            }
        }
    };
    check(
        state.q, [&](Eigen::Index i) { return model.position_name(i); }, "the position");
    check(
        state.v, [&](Eigen::Index i) { return model.velocity_name(i); }, "the velocity");
    check(
        state.x, [&](Eigen::Index i) { return model.state_name(i); }, "the state");
    check(
        state.lambda, [&](Eigen::Index i) { return "lambda(" + model.constraint_name(i) + ")"; },
        "the Lagrange multiplier");
}

void require_run_interval(double t0, double t_end, double h, std::string_view method) {
    if (!std::isfinite(t0) || !std::isfinite(t_end)) {
        throw std::invalid_argument(std::string(method) + ": the start and stop times must be "
                                                          "finite");
    }
    if (!(h > 0.0) || !std::isfinite(h)) {
        throw std::invalid_argument(std::string(method) + ": the step size must be positive, got " +
                                    format_number(h));
    }
    // The step count must be a number the loop can count (a cast of 1e300 to size_t is
    // undefined: --step 1e-300 ran 0 steps and exited 0), and each step must move t.
    const double steps = std::abs(t_end - t0) / h;
    constexpr double max_steps = 1e15;
    if (!(steps <= max_steps) || t0 + h == t0 || t_end + h == t_end) {
        throw std::invalid_argument(
            std::string(method) + ": the step size " + format_number(h) + " would take " +
            format_number(steps) + " steps from t = " + format_number(t0) + " to " +
            format_number(t_end) + (steps <= max_steps ? ", each below the round-off of t" : "") +
            " (at most " + format_number(max_steps) +
            " steps of a size that moves t); use a "
            "larger step");
    }
}

} // namespace mdl::runtime
