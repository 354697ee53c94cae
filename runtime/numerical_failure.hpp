// Numerical failures as one exception type, carried up to the CLI: what went wrong, at which
// time, in which variable or constraint, in which method. As in SUNDIALS, the integrator says
// which part failed and at what t; the message suggests the usual remedy.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace mdl::runtime {

enum class FailureKind {
    non_finite,                   // NaN or Inf in a state variable
    newton_not_converged,         // Newton or fixed-point iteration of an implicit method
    step_size_underflow,          // the adaptive step size fell below round-off of t
    singular_constraint_jacobian, // G M^-1 G^T singular: dependent or degenerate constraints
    too_many_steps,               // the adaptive integrator's step budget is exhausted
    unresolved_fast_scale,        // a multiscale micro step too large for the fast frequency
    unfiltered_fast_force,        // an HMM filter that leaves too much of the O(omega) force
    singular_mass_matrix,         // M(q) of a kinetic energy not positive definite
    tolerance_not_met,            // a multiscale run's error estimate above its tolerance
    off_slow_manifold,            // hmm-stiff's macro state far off the slow manifold
};

std::string_view to_string(FailureKind kind);

class NumericalFailure : public std::runtime_error {
public:
    // `where` names the variable or constraint ("der(b1.x)", "constraint 'rod2'"); `detail`
    // gives the numbers and the remedy.
    NumericalFailure(FailureKind kind, std::string_view method, double time, std::string where,
                     std::string detail);

    FailureKind kind() const { return kind_; }
    const std::string& method() const { return method_; }
    double time() const { return time_; }
    const std::string& where() const { return where_; }
    const std::string& detail() const { return detail_; }
    // The same failure attributed to `method` when it was raised without one (a model
    // evaluation that does not know which method called it); otherwise an exact copy.
    NumericalFailure in_method(std::string_view method) const;

private:
    FailureKind kind_;
    std::string method_;
    double time_;
    std::string where_;
    std::string detail_;
};

// A method that cannot integrate the model at all (Störmer and a damper, Verlet and
// first-order states, RK4 and constraints): raised before the first step.
class MethodNotApplicable : public std::invalid_argument {
public:
    MethodNotApplicable(std::string_view method, const std::string& reason);
    const std::string& method() const { return method_; }

private:
    std::string method_;
};

// Shortest round-trip text of a double ("0.1", "1e-08"), as written in messages and CSV.
std::string format_number(double value);

} // namespace mdl::runtime
