// The half-explicit Runge-Kutta method of order 3 of Brasey & Hairer ("Half-explicit
// Runge-Kutta methods for differential-algebraic systems of index 2", SIAM J. Numer. Anal. 30,
// 1993), the micro-integrator of stroboscopic averaging for constrained models
// (Calvo, Chartier, Murua & Sanz-Serna, Springer LNCSE 82 (2012), Sect. IV(C);
// docs/stroboscopic.md).
//
// The model M q'' = f(t, q, v, x) + G(q)^T lambda, g(q) = 0 (kernel_abi.h) is integrated in
// the index-2 formulation of Gear, Gupta & Leimkuhler (GGL): with y = (q, v, x) and the
// algebraic variables z = (mu, lambda),
//
//   q' = v + M^-1 G(q)^T mu,   v' = M^-1 f + M^-1 G(q)^T lambda,   x' = rates,
//   0  = g(q),                 0  = G(q) v,
//
// both the position and the velocity constraint are imposed (mu = 0 on exact solutions; it
// absorbs the drift of the positions). A half-explicit method with tableau (c, A, b),
//
//   Y_1 = y_n,   Y_i = y_n + h sum_{j<i} a_ij F(Y_j, Z_j),   0 = (g, G v)(Y_i),   i = 2..s
//   y_{n+1} = y_n + h sum_i b_i F(Y_i, Z_i),                0 = (g, G v)(y_{n+1}),
//
// determines Z_{i-1} from the constraints on Y_i (a_{i,i-1} != 0) and Z_s from those on
// y_{n+1} (b_s != 0). Because F is linear in z, each such solve splits into Newton's method
// on mu for g(q_i) = 0 (q_i = q^ + c M^-1 G(q_{i-1})^T mu, c = h a_{i,i-1}: SHAKE's position
// solve; at least one Newton update, so g(q_i) is at round-off, not merely below the
// tolerance) followed by one linear solve for lambda,
// G(q_i) M^-1 G(q_{i-1})^T lambda = -G(q_i) v^ / c. Brasey & Hairer's method of order 3
// (the tableau printed in the paper's Sect. IV(C)):
//
//     0  |
//    1/3 | 1/3
//     1  | -1    2
//   -----+----------------
//        |  0   3/4   1/4
//
// Three force evaluations per step. y_n need not be consistent: every stage and the result
// satisfy g = 0 (to the Newton tolerance) and G v = 0 (to round-off), so the first step from
// an inconsistent state projects it onto the constraint manifold. Negative h integrates
// backwards (stroboscopic averaging's phi(-delta)). An unconstrained model gets the explicit
// RK3 of the same tableau.
//
// After a step, state.lambda holds the lambda of the last solve, the constraint multipliers
// at t_{n+1} (the rod tensions), and position_multipliers() the GGL mu (small, not physical).
#pragma once

#include "runtime/integrators/first_order_form.hpp"
#include "runtime/integrators/lagrange_multipliers.hpp"
#include "runtime/integrators/stepper_support.hpp"
#include "runtime/model_force.hpp"

#include <Eigen/LU>
#include <concepts>
#include <cstddef>
#include <string_view>
#include <utility>

namespace mdl::runtime::multiscale {

// The coefficients (Brasey & Hairer 1993, order 3).
struct HalfExplicitRK3Tableau {
    static constexpr double c2 = 1.0 / 3.0, c3 = 1.0;
    static constexpr double a21 = 1.0 / 3.0;
    static constexpr double a31 = -1.0, a32 = 2.0;
    static constexpr double b1 = 0.0, b2 = 3.0 / 4.0, b3 = 1.0 / 4.0;
};

template <AccelerationField Force = ModelForce>
class HalfExplicitRK3 {
public:
    explicit HalfExplicitRK3(const Model& model,
                             SolverOptions options = {}) requires std::same_as<Force, ModelForce>
        : HalfExplicitRK3(model, ModelForce(model), options) {}
    HalfExplicitRK3(const Model& model, Force force, SolverOptions options = {})
        : model_(&model), force_(std::move(force)), options_(options), gram_(model) {
        detail::require_rates<Force>(model, name());
        const Eigen::Index n = model.positions(), m = model.constraints();
        for (detail::Phase* p : {&y2_, &y3_, &k1_, &k2_, &k3_, &hat_}) {
            p->resize(model);
        }
        mu_ = Vector::Zero(m);
        lambda_ = Vector::Zero(m);
        r_ = Vector::Zero(m);
        g_ = Vector::Zero(m);
        dmu_ = Vector::Zero(m);
        G1_ = Matrix::Zero(m, n);
        G2_ = G1_;
        G3_ = G1_;
        Gnew_ = G1_;
        D_ = Matrix::Zero(n, m);
        J_ = Eigen::MatrixXd::Zero(m, m);
        lu_ = Eigen::PartialPivLU<Eigen::MatrixXd>(m);
    }

    // The stepper keeps a pointer to the model, which must outlive it.
    explicit HalfExplicitRK3(const Model&&, SolverOptions = {}) = delete;
    HalfExplicitRK3(const Model&&, Force, SolverOptions = {}) = delete;

    std::string_view name() const { return "herk3"; }
    const Model& model() const { return *model_; }
    Force& force() { return force_; }
    const SolverOptions& options() const { return options_; }
    const Vector& position_multipliers() const { return mu_; } // GGL mu of the last solve
    std::size_t newton_iterations() const { return newton_iterations_; }

    void step(State& s, double h) {
        using T = HalfExplicitRK3Tableau;
        const double t = s.t;
        // stage 1: Y_1 = y_n (the constraints are not imposed on it)
        slope(t, s.q, s.v, s.x, k1_);
        if (constrained()) {
            model_->constraint_jacobian(t, s.q, G1_);
        }
        // stage 2: Y_2 = y_n + h a21 F(Y_1, Z_1); Z_1 from the constraints on Y_2
        hat_.q = s.q + (h * T::a21) * k1_.q;
        hat_.v = s.v + (h * T::a21) * k1_.v;
        hat_.x = s.x + (h * T::a21) * k1_.x;
        impose(t + T::c2 * h, h, h * T::a21, G1_, k1_, y2_, G2_);
        slope(t + T::c2 * h, y2_.q, y2_.v, y2_.x, k2_);
        // stage 3: Y_3 = y_n + h (a31 F_1 + a32 F(Y_2, Z_2)); Z_2 from the constraints on Y_3
        hat_.q = s.q + h * (T::a31 * k1_.q + T::a32 * k2_.q);
        hat_.v = s.v + h * (T::a31 * k1_.v + T::a32 * k2_.v);
        hat_.x = s.x + h * (T::a31 * k1_.x + T::a32 * k2_.x);
        impose(t + T::c3 * h, h, h * T::a32, G2_, k2_, y3_, G3_);
        slope(t + T::c3 * h, y3_.q, y3_.v, y3_.x, k3_);
        // y_{n+1} = y_n + h (b2 F_2 + b3 F(Y_3, Z_3)) (b1 = 0); Z_3 from the constraints on it
        hat_.q = s.q + h * (T::b2 * k2_.q + T::b3 * k3_.q);
        hat_.v = s.v + h * (T::b2 * k2_.v + T::b3 * k3_.v);
        hat_.x = s.x + h * (T::b2 * k2_.x + T::b3 * k3_.x);
        impose(t + h, h, h * T::b3, G3_, k3_, y2_, Gnew_); // y2_ is free again: the result
        s.q.swap(y2_.q);
        s.v.swap(y2_.v);
        s.x.swap(y2_.x);
        s.t = t + h;
        if (constrained()) {
            s.lambda = lambda_;
        }
    }

private:
    bool constrained() const { return model_->constraints() > 0; }

    // slope = (v, M^-1 f, rates) at (t, q, v, x): F(Y, 0), without constraint forces
    void slope(double t, const Vector& q, const Vector& v, const Vector& x, detail::Phase& k) {
        detail::evaluate_slope(force_, t, q, v, x, k);
    }

    // The stage Y = hat_ + c (M^-1 G_prev^T mu, M^-1 G_prev^T lambda, 0) with g(Y_q) = 0 and
    // G(Y_q) Y_v = 0 (c = h a_{i,i-1}); adds the constraint terms to k_prev (the slope of the
    // previous stage, which Z belongs to) and leaves G(Y_q) in G_out.
    void impose(double t, double h, double c, const Matrix& G_prev, detail::Phase& k_prev,
                detail::Phase& out, Matrix& G_out) {
        out.x = hat_.x;
        if (!constrained()) {
            out.q = hat_.q;
            out.v = hat_.v;
            return;
        }
        scaled_constraint_directions(*model_, G_prev, c, D_); // D = c M^-1 G_prev^T
        solve_positions(t, h, G_out, out.q);
        model_->constraint_jacobian(t, out.q, G_out);
        J_.noalias() = G_out * D_; // c G(Y) M^-1 G_prev^T
        lu_.compute(J_);
        if (nearly_singular(lu_)) {
            // names the constraint when the gradients at Y are dependent
            gram_.factorize(G_out, t, name());
            throw NumericalFailure(
                FailureKind::singular_constraint_jacobian, name(), t, constraint_label(*model_, 0),
                "G(Y_i) M^-1 G(Y_{i-1})^T is singular: the step " + format_number(h) +
                    " turns the constraint gradients too far; reduce it");
        }
        r_.noalias() = G_out * hat_.v;
        if (model_->rheonomic()) { // G(Y_q) Y_v + g_t(t, Y_q) = 0
            model_->constraint_rate(t, out.q, g_);
            r_ += g_;
        }
        lambda_ = lu_.solve(r_); // into lambda_ (a negated solve would allocate a temporary)
        lambda_ = -lambda_;
        out.v = hat_.v;
        out.v.noalias() += D_ * lambda_;
        // F(Y_prev, Z_prev) = F(Y_prev, 0) + (M^-1 G_prev^T mu, M^-1 G_prev^T lambda, 0)
        k_prev.q.noalias() += (1.0 / c) * (D_ * mu_);
        k_prev.v.noalias() += (1.0 / c) * (D_ * lambda_);
    }

    // g(q^ + D mu) = 0 for mu by Newton's method (Newton matrix G(q) D at the iterate),
    // converged when max_i |g_i| <= constraint_tolerance after at least one update: the
    // prediction's residual may already be below the tolerance but far above round-off, and
    // stroboscopic averaging divides position errors by the period.
    void solve_positions(double t, double h, Matrix& G, Vector& q) {
        mu_.setZero();
        double residual = 0.0;
        Eigen::Index worst = 0;
        for (int iteration = 0;; ++iteration) {
            q = hat_.q;
            q.noalias() += D_ * mu_;
            model_->constraint(t, q, g_);
            worst = largest_entry(g_, residual);
            if (!std::isfinite(residual)) {
                throw NumericalFailure(FailureKind::non_finite, name(), t,
                                       constraint_label(*model_, worst),
                                       "the constraint residual is not finite in the Newton "
                                       "iteration of a stage (step " +
                                           format_number(h) + ")");
            }
            if (iteration >= 1 && residual <= options_.constraint_tolerance) {
                return;
            }
            if (iteration == options_.max_iterations) {
                break;
            }
            model_->constraint_jacobian(t, q, G);
            J_.noalias() = G * D_;
            lu_.compute(J_);
            if (nearly_singular(lu_)) {
                throw NumericalFailure(
                    FailureKind::newton_not_converged, name(), t, constraint_label(*model_, worst),
                    "the Newton matrix G(q) M^-1 G(q_prev)^T of a stage became singular at "
                    "iteration " +
                        std::to_string(iteration) + " (residual " + format_number(residual) +
                        "): the step " + format_number(h) +
                        " turns the constraint gradients too far; reduce it");
            }
            dmu_ = lu_.solve(g_);
            mu_ -= dmu_;
            ++newton_iterations_;
        }
        throw NumericalFailure(
            FailureKind::newton_not_converged, name(), t, constraint_label(*model_, worst),
            "Newton's iteration on the position multipliers of a stage left "
            "the residual " +
                format_number(residual) + " above the tolerance " +
                format_number(options_.constraint_tolerance) + " after " +
                std::to_string(options_.max_iterations) + " iterations; reduce the step " +
                format_number(h) + " or loosen the constraint tolerance");
    }

    const Model* model_;
    Force force_;
    SolverOptions options_;
    ConstraintGram gram_;
    detail::Phase y2_, y3_, k1_, k2_, k3_, hat_;
    Vector mu_, lambda_, r_, g_, dmu_; // mu, lambda: the multipliers themselves (D carries c)
    Matrix G1_, G2_, G3_, Gnew_, D_;
    Eigen::MatrixXd J_;
    Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
    std::size_t newton_iterations_ = 0;
};

extern template class HalfExplicitRK3<ModelForce>;

} // namespace mdl::runtime::multiscale
