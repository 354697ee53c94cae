#include "runtime/analysis/equilibrium.hpp"

#include "runtime/analysis/constraint_hessian.hpp"
#include "runtime/numerical_failure.hpp"

#include <Eigen/QR>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

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
                       Eigen::Index rank, const std::string& why) {
    const Model& model = force.model();
    const Eigen::Index n = model.positions(), m = model.constraints();
    Eigen::Index worst = 0;
    r.r.cwiseAbs().maxCoeff(&worst);
    std::string where = worst < n ? "the force balance of '" + model.position_name(worst) + "'"
                                  : "constraint '" + model.constraint_name(worst - n) + "'";
    std::string detail = why + ": the residual there is " + format_number(r.r[worst]) +
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
                           "equilibrium (f(q, v = 0) + G^T lambda = 0, g(q) = 0)", 0.0, where,
                           detail);
}

} // namespace

namespace {

// Where the search is: positions, multipliers, the residual and the Newton matrix there.
struct Iterate {
    Vector q, lambda;
    Residual r;
    Matrix J;
    void move_to(const StaticForce& force, Vector q_new, Vector lambda_new, Residual r_new) {
        q = std::move(q_new);
        lambda = std::move(lambda_new);
        r = std::move(r_new);
        J = newton_matrix(force, q, lambda);
    }
};

// The Newton matrix [A G^T; G 0] with its constraint rows and multiplier columns scaled by
// s = |A| / |G|, so that the multipliers' pivots are of the size of A's: a large shift M/dt
// in A would otherwise make them negligible to the rank-revealing factorization.
struct ScaledSystem {
    Eigen::CompleteOrthogonalDecomposition<Matrix> solver;
    Eigen::Index n = 0, m = 0;
    double s = 1;
    ScaledSystem(const Matrix& J, Eigen::Index positions) : n(positions), m(J.rows() - positions) {
        const double a = J.topLeftCorner(n, n).lpNorm<Eigen::Infinity>();
        const double g = m > 0 ? J.bottomLeftCorner(m, n).lpNorm<Eigen::Infinity>() : 0.0;
        s = a > 0 && g > 0 ? a / g : 1.0;
        Matrix scaled = J;
        scaled.bottomRows(m) *= s;
        scaled.rightCols(m) *= s;
        solver.setThreshold(1e-12);
        solver.compute(scaled);
    }
    // The step solving J step = -r (minimum norm in the scaled unknowns when J is singular).
    Vector step(const Vector& r) const {
        Vector rhs = -r;
        rhs.tail(m) *= s;
        Vector y = solver.solve(rhs);
        y.tail(m) *= s;
        return y;
    }
};

Eigen::Index rank_of(const Matrix& J, Eigen::Index n) {
    return ScaledSystem(J, n).solver.rank();
}

Vector newton_step(const Matrix& J, const Vector& r, Eigen::Index n) {
    return ScaledSystem(J, n).step(r);
}

class Search {
public:
    Search(const StaticForce& force, const Vector& start, const EquilibriumOptions& options)
        : force_(force), options_(options), n_(force.model().positions()),
          m_(force.model().constraints()) {
        const Vector q0 = onto_constraints(start);
        Matrix M(n_, n_);
        force.model().mass_matrix(q0, M);
        weight_ = M.diagonal().cwiseSqrt().cwiseInverse();
        Vector lambda = Vector::Zero(m_);
        // the multipliers that best balance the force at the start in the norm of the flow,
        // min |D^-1/2 (f + G^T lambda)| with D the diagonal of M
        if (m_ > 0) {
            Matrix G(m_, n_);
            Vector f(n_);
            force.model().constraint_jacobian(q0, G);
            force.force(q0, f);
            const Matrix weighted = weight_.asDiagonal() * G.transpose();
            lambda = -weighted.completeOrthogonalDecomposition().solve(weight_.cwiseProduct(f));
        }
        start_.move_to(force, q0, lambda, residual(force, q0, lambda));
        force_scale_ =
            std::max(start_.r.force + start_.J.topLeftCorner(n_, n_).lpNorm<Eigen::Infinity>() *
                                          (1 + q0.lpNorm<Eigen::Infinity>()),
                     1e-300);
    }

    // A few minimum-norm Gauss-Newton steps on g(q) = 0 (the start may be off the
    // constraints): the continuation's shifted steps would otherwise put the whole
    // correction into the multipliers.
    Vector onto_constraints(Vector q) const {
        const Model& model = force_.model();
        if (m_ == 0) {
            return q;
        }
        Matrix G(m_, n_);
        Vector g(m_);
        for (int i = 0; i < 20; ++i) {
            model.constraint(q, g);
            if (!g.allFinite() ||
                g.lpNorm<Eigen::Infinity>() <= 1e-14 * (1 + q.lpNorm<Eigen::Infinity>())) {
                break;
            }
            model.constraint_jacobian(q, G);
            const Vector dq = G.completeOrthogonalDecomposition().solve(-g);
            if (!dq.allFinite()) {
                break;
            }
            q += dq;
        }
        return q;
    }

    // The force residual in the norm of the flow M q' = f: |D^-1/2 (f + G^T lambda)|.
    double merit(const Residual& r) const { return r.r.head(n_).norm(); }

    bool converged(const Iterate& x) const {
        return x.r.force <= options_.tolerance * force_scale_ &&
               x.r.constraint <= options_.tolerance * (1 + x.q.lpNorm<Eigen::Infinity>());
    }

    // Newton with halved steps from the start; the reason it stopped, or "" when converged.
    std::string newton(Iterate& x, int& iterations) const {
        x = start_;
        for (iterations = 0; !converged(x); ++iterations) {
            if (iterations == options_.max_iterations) {
                return "Newton's method did not converge in " + std::to_string(iterations) +
                       " iterations";
            }
            const Vector step = newton_step(x.J, x.r.r, n_);
            if (!step.allFinite()) {
                return "a non-finite Newton step at iteration " + std::to_string(iterations);
            }
            double alpha = 1;
            for (int halvings = 0;; ++halvings) {
                Vector q = x.q + alpha * step.head(n_), lambda = x.lambda + alpha * step.tail(m_);
                Residual next = residual(force_, q, lambda);
                if (next.r.allFinite() && next.r.norm() < (1 - 1e-4 * alpha) * x.r.r.norm()) {
                    x.move_to(force_, std::move(q), std::move(lambda), std::move(next));
                    break;
                }
                if (halvings == 30) {
                    return "no Newton step decreases the residual at iteration " +
                           std::to_string(iterations);
                }
                alpha /= 2;
            }
        }
        return "";
    }

    // Pseudo-transient continuation from the start: implicit Euler steps of the gradient flow
    // M q' = f + G^T lambda, g = 0, with the pseudo time step dt grown by the residual's
    // decrease (switched evolution relaxation) until the steps are Newton's.
    std::string continuation(Iterate& x, int& iterations) const {
        x = start_;
        Matrix M(n_, n_);
        force_.model().mass_matrix(x.q, M);
        // the first shift M/dt ten times the largest stiffness: the steps then go downhill
        // also where the start is near an unstable equilibrium (df/dq with positive
        // eigenvalues, which a smaller shift would cancel)
        const double stiffness = x.J.topLeftCorner(n_, n_).lpNorm<Eigen::Infinity>();
        const double mass = n_ > 0 ? M.diagonal().minCoeff() : 1.0;
        double dt = stiffness > 0 && mass > 0 ? mass / (10 * stiffness) : 1.0;
        for (iterations = 0; !converged(x); ++iterations) {
            if (iterations == options_.max_continuation_steps) {
                return "pseudo-transient continuation did not converge in " +
                       std::to_string(iterations) + " steps";
            }
            force_.model().mass_matrix(x.q, M);
            for (int retries = 0;; ++retries) {
                Matrix shifted = x.J;
                shifted.topLeftCorner(n_, n_) -= M / dt;
                const Vector step = newton_step(shifted, x.r.r, n_);
                Vector q = x.q + step.head(n_), lambda = x.lambda + step.tail(m_);
                Residual next = residual(force_, q, lambda);
                // the force residual at most doubled, the constraints' not far off (the
                // steps meet them to second order)
                const bool bounded =
                    step.allFinite() && next.r.allFinite() && merit(next) <= 2 * merit(x.r) &&
                    next.constraint <=
                        std::max(2 * x.r.constraint, 1e-2 * (1 + q.lpNorm<Eigen::Infinity>()));
                if (bounded) {
                    const double ratio = merit(x.r) / std::max(merit(next), 1e-300);
                    // switched evolution relaxation, growing at least by half each step
                    // while the residual does not grow
                    dt *= ratio >= 1 ? std::min(std::max(ratio, 1.5), 10.0) : std::max(ratio, 0.5);
                    x.move_to(force_, std::move(q), std::move(lambda), std::move(next));
                    break;
                }
                if (retries == 20) {
                    return "pseudo-transient continuation found no step that keeps the "
                           "residual bounded at step " +
                           std::to_string(iterations);
                }
                dt /= 10;
            }
        }
        return "";
    }

    // One more Newton step, kept when it reduces the residual: at the quadratic rate it takes
    // a converged iterate from the tolerance to round-off.
    void polish(Iterate& x) const {
        const Vector step = newton_step(x.J, x.r.r, n_);
        Vector q = x.q + step.head(n_), lambda = x.lambda + step.tail(m_);
        Residual next = residual(force_, q, lambda);
        if (step.allFinite() && next.r.allFinite() && next.r.norm() <= x.r.r.norm()) {
            x.move_to(force_, std::move(q), std::move(lambda), std::move(next));
        }
    }

private:
    const StaticForce& force_;
    const EquilibriumOptions& options_;
    Eigen::Index n_, m_;
    Iterate start_;
    Vector weight_; // D^-1/2, D the diagonal of M at the start
    double force_scale_ = 1;
};

} // namespace

Equilibrium find_equilibrium(const StaticForce& force, const Vector& q0,
                             const EquilibriumOptions& options) {
    const Search search(force, q0, options);
    Iterate x;
    Equilibrium e;
    std::string failure;
    if (options.search == EquilibriumSearch::nearest) {
        failure = search.newton(x, e.iterations);
        e.method = "Newton's method from the start";
        if (!failure.empty()) {
            // the nearest equilibrium was not found: the rest position instead, and say so
            Iterate y;
            int steps = 0;
            if (search.continuation(y, steps).empty()) {
                e.method = failure + " from the start; pseudo-transient continuation found this "
                                     "one";
                x = y;
                e.iterations += steps;
                failure.clear();
            }
        }
    } else {
        failure = search.continuation(x, e.iterations);
        e.method = "pseudo-transient continuation from the start";
        if (!failure.empty()) {
            // no rest position reached: the nearest equilibrium instead, and say so
            Iterate y;
            int iterations = 0;
            if (search.newton(y, iterations).empty()) {
                e.method = failure + "; Newton's method from the start found this one";
                x = y;
                e.iterations += iterations;
                failure.clear();
            }
        }
    }
    if (!failure.empty()) {
        fail(force, x.q, x.r, rank_of(x.J, force.model().positions()), failure);
    }
    search.polish(x);
    e.q = x.q;
    e.lambda = x.lambda;
    e.rank = rank_of(x.J, force.model().positions());
    e.force_residual = x.r.force;
    e.constraint_residual = x.r.constraint;
    return e;
}

} // namespace mdl::runtime
