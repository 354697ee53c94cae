// What the steppers share: applicability checks, the options of their inner iterations,
// the memory that tells a continuing integration from a restarted one, and the implicit
// velocity kick of the Störmer–Verlet family for velocity-dependent forces.
#pragma once

#include "runtime/model.hpp"
#include "runtime/numerical_failure.hpp"
#include "runtime/state.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>

namespace mdl::runtime {

// Tolerances of the iterations inside implicit steps.
struct SolverOptions {
    // Fixed-point iteration of the implicit half kick (velocity-dependent forces), relative.
    double velocity_tolerance = 1e-13;
    // Newton on M a = F (Newmark, generalized-alpha): residual relative to the accelerations.
    double newton_tolerance = 1e-10;
    // Position constraints: max_i |g_i(q)| in the constraint's own units (m^2 for the
    // squared-distance constraints of a rod).
    double constraint_tolerance = 1e-12;
    // Newton updates of the position constraints' multipliers after the tolerance is met (to
    // round-off): HMM's SHAKE micro-forces carry the constraint residual divided by h^2, noise
    // that the micro error estimate would measure as an error at fine micro steps.
    int polish_iterations = 0;
    int max_iterations = 50;
};

// Applicability checks for the steppers' constructors: throw MethodNotApplicable.
void require_no_first_order_states(const Model& model, std::string_view method);
void require_unconstrained(const Model& model, std::string_view method);
// The Verlet family, SHAKE, RATTLE, Störmer, Newmark, generalized-alpha and the multiscale
// methods use M^-1 as a vector: they refuse a model whose mass matrix (kinetic energy) is
// not constant and diagonal, naming the methods that solve M(q) a = f.
void require_constant_diagonal_mass(const Model& model, std::string_view method);
// "the model's mass matrix M = d2T/dv2 from its kinetic energy depends on the positions ..."
std::string mass_matrix_description(const Model& model);
void require_constraints(const Model& model, std::string_view method);
// Störmer (GE3) is unstable for every damped system (second-derivative-models-ge3).
void require_velocity_free(const Model& model, bool velocity_dependent, std::string_view method);
// Sizes of the state against the model: throws std::invalid_argument.
void require_state_shape(const Model& model, const State& state, std::string_view method);

namespace detail {

// The state a stepper left behind. Caches (the FSAL acceleration, Störmer's previous
// position, multipliers, Newmark's acceleration) stay valid only while the state handed to
// step() is exactly that state; anything else (HMM restarting a micro-integration from the
// macro state, a user edit) restarts the method from (t, q, v, x).
class StepMemory {
public:
    void remember(const State& s) {
        t_ = s.t;
        q_ = s.q;
        v_ = s.v;
        x_ = s.x;
        valid_ = true;
    }
    bool continues(const State& s) const {
        return valid_ && s.t == t_ && s.q.size() == q_.size() && s.x.size() == x_.size() &&
               s.q == q_ && s.v == v_ && s.x == x_;
    }
    void forget() { valid_ = false; }

private:
    double t_ = 0.0;
    Vector q_, v_, x_;
    bool valid_ = false;
};

// Largest |a_i - b_i| and its index.
inline Eigen::Index largest_difference(const Vector& a, const Vector& b, double& size) {
    Eigen::Index at = 0;
    size = (a - b).cwiseAbs().maxCoeff(&at);
    return at;
}

[[noreturn]] void throw_kick_not_converged(const Model& model, std::string_view method, double t,
                                           Eigen::Index velocity, double change, double h,
                                           int iterations);

// Solves w = base + c a(t, q, w, x) for the velocity w by fixed-point iteration: the
// implicit half kick p_{n+1/2} = p_n + h/2 f(q_n, p_{n+1/2}) of the Störmer–Verlet scheme
// for forces depending on velocity (Hairer, Lubich & Wanner, Geometric Numerical
// Integration, Sect. II.2), symmetric and of order 2. The iteration contracts when
// |c| |da/dv| < 1, i.e. h < 2 m / c for a damper c. On entry w is the initial guess; on
// exit w is the solution and a = a(t, q, w_previous, x), within the tolerance.
template <class Force>
void solve_velocity_kick(Force& force, const Model& model, std::string_view method, double t,
                         const Vector& q, const Vector& x, const Vector& base, double c,
                         const SolverOptions& options, double h, Vector& w, Vector& a,
                         Vector& next) {
    double change = 0.0;
    Eigen::Index worst = 0;
    for (int iteration = 1; iteration <= options.max_iterations; ++iteration) {
        force.acceleration(t, q, w, x, a);
        next = base + c * a;
        worst = largest_difference(next, w, change);
        const double scale =
            std::max(next.cwiseAbs().maxCoeff(), std::abs(c) * a.cwiseAbs().maxCoeff());
        w.swap(next);
        if (change <= options.velocity_tolerance * scale) {
            return;
        }
        if (!std::isfinite(change)) {
            break;
        }
    }
    throw_kick_not_converged(model, method, t, worst, change, h, options.max_iterations);
}

} // namespace detail
} // namespace mdl::runtime
