#include "runtime/integrators/constrained_acceleration.hpp"

#include <cmath>

namespace mdl::runtime {

ConstrainedModelForce::ConstrainedModelForce(const Model& model, SolverOptions options,
                                             std::string_view method)
    : force_(model), options_(options), method_(method), gram_(model),
      G_(Matrix::Zero(model.constraints(), model.positions())),
      W_(Matrix::Zero(model.positions(), model.constraints())),
      mass_(Matrix::Zero(model.positions(), model.positions())),
      S_(Eigen::MatrixXd::Zero(model.constraints(), model.constraints())),
      // computed once so that its status is set: a copy or move of a fresh LLT reads it
      // uninitialised (see ModelForce's workspace)
      llt_(Matrix::Identity(model.positions(), model.positions())),
      curvature_(Vector::Zero(model.constraints())), lambda_(Vector::Zero(model.constraints())),
      g_(Vector::Zero(model.constraints())), correction_(Vector::Zero(model.constraints())),
      a_(Vector::Zero(model.positions())) {}

void ConstrainedModelForce::acceleration(double t, const Vector& q, const Vector& v,
                                         const Vector& x, Vector& a) {
    force_.acceleration(t, q, v, x, a); // a0 = M^-1 f, M(q) factorized
    const Model& model = force_.model();
    model.constraint_jacobian(t, q, G_);
    model.curvature(t, q, v, curvature_);
    W_ = G_.transpose();
    force_.solve_last_mass(W_);
    S_.noalias() = G_ * W_;
    gram_.factorize_gram(S_, t, method_);
    lambda_.noalias() = G_ * a;
    lambda_ += curvature_;
    lambda_ = -lambda_;
    gram_.solve_in_place(lambda_);
    a.noalias() += W_ * lambda_;
}

void ConstrainedModelForce::factorize_at(double t, const Vector& q) {
    const Model& model = force_.model();
    model.constraint_jacobian(t, q, G_);
    W_ = G_.transpose();
    if (model.mass_constant_diagonal()) {
        W_.array().colwise() *= model.inverse_mass().array();
    } else {
        model.mass_matrix(q, mass_);
        Vector probe = Vector::Zero(q.size());
        solve_mass_matrix(model, t, mass_, llt_, probe); // factorizes, or a located failure
        llt_.solveInPlace(W_);
    }
    S_.noalias() = G_ * W_;
    gram_.factorize_gram(S_, t, method_);
}

void ConstrainedModelForce::project(State& s) {
    const Model& model = force_.model();
    // positions: q <- q - W mu with S mu = g(q), W and S frozen at the step's end point
    // (simplified Newton: the residual is the integration error, so a few iterations do)
    model.constraint(s.t, s.q, g_);
    position_drift_ = g_.size() > 0 ? g_.cwiseAbs().maxCoeff() : 0.0;
    if (position_drift_ > options_.constraint_tolerance) {
        factorize_at(s.t, s.q);
        double residual = position_drift_;
        Eigen::Index worst = 0;
        for (int iteration = 0;; ++iteration) {
            worst = largest_entry(g_, residual);
            if (residual <= options_.constraint_tolerance) {
                break;
            }
            if (iteration == options_.max_iterations || !std::isfinite(residual)) {
                throw NumericalFailure(
                    FailureKind::newton_not_converged, method_, s.t, constraint_label(model, worst),
                    "projecting the positions back onto the constraints left the residual " +
                        format_number(residual) + " above the tolerance " +
                        format_number(options_.constraint_tolerance) + " after " +
                        std::to_string(iteration) +
                        " iterations (drift of the step: " + format_number(position_drift_) +
                        "); tighten the tolerances or reduce the step");
            }
            correction_ = g_;
            gram_.solve_in_place(correction_);
            s.q.noalias() -= W_ * correction_;
            model.constraint(s.t, s.q, g_);
        }
    }
    // velocities: v <- v - W S^-1 (G v + g_t) at the projected positions
    factorize_at(s.t, s.q);
    correction_.noalias() = G_ * s.v;
    if (model.rheonomic()) {
        model.constraint_rate(s.t, s.q, g_);
        correction_ += g_;
    }
    velocity_drift_ = correction_.size() > 0 ? correction_.cwiseAbs().maxCoeff() : 0.0;
    gram_.solve_in_place(correction_);
    s.v.noalias() -= W_ * correction_;
    a_.resize(s.q.size());
    acceleration(s.t, s.q, s.v, s.x, a_);
    s.lambda = lambda_;
}

} // namespace mdl::runtime
