// Holonomic constraints g(q) = 0 in the first-order-form methods (RK4, DOPRI5, CVODE): the
// accelerations of the index-1 form, with any mass matrix,
//
//   [ M(q)  G(q)^T ] [  a      ]   [ f(t, q, v, x)  ]
//   [ G(q)  0      ] [ -lambda ] = [ -curvature(q, v) ],      curvature = (d/dq (G v)) v,
//
// solved by the Schur complement: a0 = M^-1 f, W = M^-1 G^T, S = G W (Cholesky, a located
// failure for dependent constraints), S lambda = -(G a0 + curvature), a = a0 + W lambda. The
// index-1 form only keeps g'' = 0: g and G v drift with the integration error. After every
// step the methods project (Hairer, Lubich & Wanner, Geometric Numerical Integration, 2nd
// ed., Springer 2006, sect. IV.4; Hairer & Wanner, Solving ODEs II, sect. VII.2): q onto
// g(q) = 0 along M^-1 G^T (the smallest change in the kinetic-energy metric, simplified
// Newton), then v onto G(q) v = 0 the same way; the multipliers reported with the state are
// those of the accelerations at the projected state. Rheonomic constraints g(t, q) = 0: the
// curvature kernel carries their time terms, and the projections are onto g(t, q) = 0 and
// G v + g_t = 0 at the step's time.
#pragma once

#include "runtime/integrators/first_order_form.hpp"
#include "runtime/integrators/lagrange_multipliers.hpp"
#include "runtime/integrators/stepper_support.hpp"
#include "runtime/model_force.hpp"

#include <string>
#include <string_view>

namespace mdl::runtime {

class ConstrainedModelForce {
public:
    // method: the name failures carry (the stepper's).
    ConstrainedModelForce(const Model& model, SolverOptions options, std::string_view method);
    ConstrainedModelForce(const Model&&, SolverOptions, std::string_view) = delete;

    const Model& model() const { return force_.model(); }
    // The constraint forces depend on v through the curvature term.
    bool velocity_dependent() const { return true; }

    // a of the system above; multipliers() holds lambda afterwards.
    void acceleration(double t, const Vector& q, const Vector& v, const Vector& x, Vector& a);
    void rates(double t, const Vector& q, const Vector& v, const Vector& x, Vector& xdot) {
        force_.rates(t, q, v, x, xdot);
    }
    const Vector& multipliers() const { return lambda_; }

    // Projects s.q onto g = 0 and s.v onto G v = 0 (described above) and sets s.lambda: one
    // more evaluation of the accelerations. Throws NumericalFailure(newton_not_converged)
    // naming the constraint when the positions cannot be brought back within the constraint
    // tolerance.
    void project(State& s);
    // Largest |g_i(q)| and |(G v)_i| of the last project() before its correction: the drift
    // one step produced (tests, reports).
    double last_position_drift() const { return position_drift_; }
    double last_velocity_drift() const { return velocity_drift_; }

    std::size_t evaluations() const { return force_.evaluations(); }
    void reset_evaluations() { force_.reset_evaluations(); }

private:
    // W = M(q)^-1 G^T and the factorized S = G W, for the constraint Jacobian in G_.
    void factorize_at(double t, const Vector& q);

    ModelForce force_;
    SolverOptions options_;
    std::string method_;
    ConstraintGram gram_;
    Matrix G_, W_, mass_;
    Eigen::MatrixXd S_;
    Eigen::LLT<Matrix> llt_;
    Vector curvature_, lambda_, g_, correction_, a_;
    double position_drift_ = 0.0, velocity_drift_ = 0.0;
};

static_assert(AccelerationField<ConstrainedModelForce>);
static_assert(RatesField<ConstrainedModelForce>);
static_assert(ProjectingField<ConstrainedModelForce>);

} // namespace mdl::runtime
