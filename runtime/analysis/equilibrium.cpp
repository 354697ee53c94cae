#include "runtime/analysis/equilibrium.hpp"

#include "runtime/analysis/constraint_hessian.hpp"
#include "runtime/numerical_failure.hpp"

#include <Eigen/QR>

#include <algorithm>
#include <cmath>
#include <string>

namespace mdl::runtime {

namespace {

// The residual r = [f(q) + G^T lambda; g(q)] of the static equations.
struct Residual {
    Vector r;
    double force = 0, constraint = 0; // max norms of the two parts
};

Residual residual(const StaticForce& force, const Vector& q, const Vector& lambda) {
    const Model& model = force.model();
    const Eigen::Index n = model.positions(), m = model.constraints();
    Residual out;
    out.r.resize(n + m);
    Vector f(n);
    force.force(q, f);
    if (m > 0) {
        Matrix G(m, n);
        Vector g(m);
        model.constraint_jacobian(q, G);
        model.constraint(q, g);
        f += G.transpose() * lambda;
        out.r.tail(m) = g;
        out.constraint = g.lpNorm<Eigen::Infinity>();
    }
    out.r.head(n) = f;
    out.force = n > 0 ? f.lpNorm<Eigen::Infinity>() : 0.0;
    return out;
}

Matrix newton_matrix(const StaticForce& force, const Vector& q, const Vector& lambda) {
    const Model& model = force.model();
    const Eigen::Index n = model.positions(), m = model.constraints();
    Matrix J = Matrix::Zero(n + m, n + m), f_q(n, n), f_v(n, n);
    force.jacobians(q, f_q, f_v);
    J.topLeftCorner(n, n) = f_q;
    if (m > 0) {
        Matrix G(m, n), H(n, n);
        model.constraint_jacobian(q, G);
        weighted_constraint_hessian(model, q, lambda, H);
        J.topLeftCorner(n, n) += H;
        J.topRightCorner(n, m) = G.transpose();
        J.bottomLeftCorner(m, n) = G;
    }
    return J;
}

[[noreturn]] void fail(const StaticForce& force, const Vector& q, const Residual& r,
                       Eigen::Index rank, int iterations, const std::string& why) {
    const Model& model = force.model();
    const Eigen::Index n = model.positions(), m = model.constraints();
    Eigen::Index worst = 0;
    r.r.cwiseAbs().maxCoeff(&worst);
    std::string where = worst < n ? "the force balance of '" + model.position_name(worst) + "'"
                                  : "constraint '" + model.constraint_name(worst - n) + "'";
    std::string detail = why + " after " + std::to_string(iterations) +
                         " iterations: the residual there is " + format_number(r.r[worst]) +
                         " (largest force residual " + format_number(r.force);
    if (m > 0) {
        detail += ", constraint residual " + format_number(r.constraint);
    }
    detail += "); at the last iterate";
    const Eigen::Index shown = std::min<Eigen::Index>(n, 8);
    for (Eigen::Index i = 0; i < shown; ++i) {
        detail += (i == 0 ? " " : ", ") + model.position_name(i) + " = " + format_number(q[i]);
    }
    if (shown < n) {
        detail += ", ...";
    }
    if (rank < n + m) {
        detail += "; the Newton matrix [K G^T; G 0] is singular there (rank " +
                  std::to_string(rank) + " of " + std::to_string(n + m) +
                  "): a free motion along which the static force does not vanish has no "
                  "equilibrium";
    }
    detail += ". Start nearer an equilibrium (mdl modes --at name=value)";
    throw NumericalFailure(FailureKind::newton_not_converged,
                           "equilibrium (Newton on f(q, v = 0) + G^T lambda = 0, g(q) = 0)", 0.0,
                           where, detail);
}

} // namespace

Equilibrium find_equilibrium(const StaticForce& force, const Vector& q0,
                             const EquilibriumOptions& options) {
    const Model& model = force.model();
    const Eigen::Index n = model.positions(), m = model.constraints();
    Equilibrium e;
    e.q = q0;
    e.lambda = Vector::Zero(m);
    // the multipliers that best balance the force at the start: min |f + G^T lambda|
    if (m > 0) {
        Matrix G(m, n);
        Vector f(n);
        model.constraint_jacobian(e.q, G);
        force.force(e.q, f);
        e.lambda = -G.transpose().completeOrthogonalDecomposition().solve(f);
    }
    Residual r = residual(force, e.q, e.lambda);
    Matrix J = newton_matrix(force, e.q, e.lambda);
    const double force_scale = std::max(r.force + J.topLeftCorner(n, n).lpNorm<Eigen::Infinity>() *
                                                      (1 + e.q.lpNorm<Eigen::Infinity>()),
                                        1e-300);
    const auto converged = [&](const Residual& x) {
        return x.force <= options.tolerance * force_scale &&
               x.constraint <= options.tolerance * (1 + e.q.lpNorm<Eigen::Infinity>());
    };
    Eigen::CompleteOrthogonalDecomposition<Matrix> solver;
    // Newton until converged, then one more step, kept when it reduces the residual: at the
    // quadratic rate it takes the positions from the tolerance to round-off
    for (e.iterations = 0;; ++e.iterations) {
        if (converged(r)) {
            solver.setThreshold(1e-12);
            solver.compute(J);
            const Vector step = solver.solve(-r.r);
            const Vector q = e.q + step.head(n), lambda = e.lambda + step.tail(m);
            const Residual next = residual(force, q, lambda);
            if (step.allFinite() && next.r.allFinite() && next.r.norm() <= r.r.norm()) {
                e.q = q;
                e.lambda = lambda;
                r = next;
                J = newton_matrix(force, e.q, e.lambda);
            }
            break;
        }
        if (e.iterations == options.max_iterations) {
            fail(force, e.q, r, e.rank, e.iterations, "Newton's method did not converge");
        }
        solver.setThreshold(1e-12);
        solver.compute(J);
        e.rank = solver.rank();
        const Vector step = solver.solve(-r.r);
        if (!step.allFinite()) {
            fail(force, e.q, r, e.rank, e.iterations, "a non-finite Newton step");
        }
        // halve the step until the residual decreases
        double alpha = 1;
        Residual next;
        Vector q, lambda;
        for (int halvings = 0;; ++halvings) {
            q = e.q + alpha * step.head(n);
            lambda = e.lambda + alpha * step.tail(m);
            next = residual(force, q, lambda);
            if (next.r.allFinite() && next.r.norm() < (1 - 1e-4 * alpha) * r.r.norm()) {
                break;
            }
            if (halvings == 30) {
                fail(force, e.q, r, e.rank, e.iterations, "no Newton step decreases the residual");
            }
            alpha /= 2;
        }
        e.q = q;
        e.lambda = lambda;
        r = next;
        J = newton_matrix(force, e.q, e.lambda);
    }
    solver.setThreshold(1e-12);
    solver.compute(J);
    e.rank = solver.rank();
    e.force_residual = r.force;
    e.constraint_residual = r.constraint;
    return e;
}

} // namespace mdl::runtime
