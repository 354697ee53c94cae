// The EventTracker's projections for constrained models (event_tracker.hpp, docs/events.md
// "Constrained models"): an impact's velocity onto the constraints (the impulsive reactions),
// and a contact at rest held as one more constraint, both in the mass metric.
#include "runtime/events/event_tracker.hpp"
#include "runtime/numerical_failure.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <string>

namespace mdl::runtime {

Vector EventTracker::metric_correction(const State& s, const Matrix& J, const Vector& r,
                                       const std::string& what) const {
    // W J^T (J W J^T)^-1 r, W = M^-1: the change that removes the residual r of the rows J
    // with the least change of kinetic energy (the mass metric)
    const Eigen::Index n = s.q.size();
    Matrix W(n, J.rows());
    if (model_->mass_constant_diagonal()) {
        W = model_->inverse_mass().asDiagonal() * J.transpose();
    } else {
        Matrix M(n, n);
        model_->mass_matrix(s.q, M);
        Eigen::LLT<Matrix> llt;
        for (Eigen::Index j = 0; j < J.rows(); ++j) {
            Vector column = J.row(j).transpose();
            solve_mass_matrix(*model_, s.t, M, llt, column);
            W.col(j) = column;
        }
    }
    const Eigen::MatrixXd S = J * W;
    const Eigen::LDLT<Eigen::MatrixXd> ldlt(S);
    const Vector change = W * ldlt.solve(r);
    if (!change.allFinite() || ldlt.info() != Eigen::Success) {
        throw NumericalFailure(FailureKind::singular_constraint_jacobian, method_, s.t,
                               model_->constraint_name(0), what);
    }
    return change;
}

void EventTracker::constraint_rows(const State& s, Matrix& G, Vector& g_t) const {
    G.resize(model_->constraints(), s.q.size());
    g_t.resize(model_->constraints());
    model_->constraint_jacobian(s.t, s.q, G);
    model_->constraint_rate(s.t, s.q, g_t);
}

double EventTracker::project_impulse(State& s) const {
    // v+ = v* - W (G W)^-1 (G v* + g_t): the impulsive constraint reactions G^T mu that leave
    // the velocity on the constraints with the least change of kinetic energy
    Matrix G;
    Vector g_t;
    constraint_rows(s, G, g_t);
    const Vector change = metric_correction(
        s, G, G * s.v + g_t,
        "the impulse of an event cannot be projected onto the constraints (dependent "
        "constraints: G M^-1 G^T is singular)");
    s.v -= change;
    return change.cwiseAbs().maxCoeff();
}

void EventTracker::project_constrained_contact(State& s, std::size_t k) const {
    // the contact g_k = 0 held as one more constraint: positions by Gauss-Newton onto
    // c(t, q) = 0, g_k = 0, velocities onto their rates = 0, both in the mass metric
    const Eigen::Index n = s.q.size(), m = model_->constraints();
    const std::string what = "the contact of event '" + events_[k].name +
                             "' held at rest is not independent of the constraints";
    Matrix J(m + 1, n), G;
    Vector r(m + 1), c(m), g_t;
    const auto gradient = [&](State& at) {
        // dg_k/dq by central differences of the indicator
        for (Eigen::Index i = 0; i < n; ++i) {
            J(m, i) = indicator_slope(at, k, i);
        }
    };
    for (int iteration = 0; iteration < 20; ++iteration) {
        constraint_rows(s, G, g_t);
        J.topRows(m) = G;
        gradient(s);
        model_->constraint(s.t, s.q, c);
        r << c, indicator(s, k);
        const Vector dq = metric_correction(s, J, r, what);
        s.q -= dq;
        if (dq.cwiseAbs().maxCoeff() <= 1e-15 * std::max(1.0, s.q.cwiseAbs().maxCoeff())) {
            break;
        }
    }
    constraint_rows(s, G, g_t);
    J.topRows(m) = G;
    gradient(s);
    // g_k's rate is affine in v: rate = J_k v + (its other terms)
    const double rate_k = rate(s, k);
    r << G * s.v + g_t, rate_k;
    s.v -= metric_correction(s, J, r, what);
}

} // namespace mdl::runtime
