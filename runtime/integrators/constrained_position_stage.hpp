// The position stage SHAKE and RATTLE share; they compute the same positions and differ
// only in the velocity at the step point (hmm-mechanical-vibrations, Sect. 4.3; Leimkuhler &
// Skeel 1994):
//
//   v_{n+1/2} = v_n + h/2 M^-1 (f(t_n, q_n, v_{n+1/2}) + G(q_n)^T lambda)
//   q_{n+1}   = q_n + h v_{n+1/2},        g(q_{n+1}) = 0,
//
// lambda by Newton's method (PositionConstraintNewton) started from the multipliers of
// consistent accelerations at (q_n, v_n), which use the curvature kernel. Then
// a_{n+1} = M^-1 f(t_{n+1}, q_{n+1}, v_{n+1/2}), G(q_{n+1}) and its Gram matrix are formed
// for the velocity stage and kept for the next step (the next step's a_n, G(q_n)).
// A velocity-dependent f makes the first kick implicit: fixed-point iteration on
// v_{n+1/2}, with the constraint solved inside (Störmer–Verlet for general partitioned
// systems, Hairer, Lubich & Wanner, Geometric Numerical Integration, Sect. II.2).
// From constraint_sparse_threshold constraints on (or when asked), G, the Gram matrix and
// Newton's matrix are sparse (sparse_constraint_solves.hpp).
#pragma once

#include "runtime/integrators/lagrange_multipliers.hpp"
#include "runtime/integrators/sparse_constraint_solves.hpp"
#include "runtime/integrators/stepper_support.hpp"
#include "runtime/model_force.hpp"

#include <memory>
#include <string_view>
#include <utility>

namespace mdl::runtime::detail {

template <AccelerationField Force>
class ConstrainedPositionStage {
public:
    ConstrainedPositionStage(const Model& model, LinearAlgebra algebra)
        : model_(&model), sparse_(use_sparse_constraints(model, algebra)),
          a0_(Vector::Zero(model.positions())), a1_(a0_), q1_(a0_), v_half_(a0_), x_free_(a0_),
          next_(a0_), a_end_(a0_), lambda_(Vector::Zero(model.constraints())), kappa_(lambda_),
          rate1_(lambda_),
          G0_(Matrix::Zero(sparse_ ? 0 : model.constraints(), sparse_ ? 0 : model.positions())),
          G1_(G0_),
          D_(Matrix::Zero(sparse_ ? 0 : model.positions(), sparse_ ? 0 : model.constraints())),
          gram0_(model), gram1_(model), newton_(model) {
        if (sparse_) {
            sparse_G0_ = std::make_unique<SparseConstraintJacobian>(model);
            sparse_G1_ = std::make_unique<SparseConstraintJacobian>(model);
            sparse_gram0_ = std::make_unique<SparseConstraintGram>(model);
            sparse_gram1_ = std::make_unique<SparseConstraintGram>(model);
            sparse_newton_ = std::make_unique<SparsePositionConstraintNewton>(model);
        }
    }

    bool continues(const State& s) const { return memory_.continues(s); }
    // The constraint solves are sparse (sparse_constraint_solves.hpp).
    bool sparse() const { return sparse_; }

    void advance(Force& force, const State& s, double h, const SolverOptions& options,
                 std::string_view method) {
        const double t1 = s.t + h;
        const double c = 0.5 * h * h;
        if (!memory_.continues(s)) {
            force.acceleration(s.t, s.q, s.v, s.x, a0_);
            if (sparse_) {
                sparse_G0_->evaluate(s.t, s.q);
                sparse_gram0_->factorize(sparse_G0_->matrix(), s.t, method);
            } else {
                model_->constraint_jacobian(s.t, s.q, G0_);
                gram0_.factorize(G0_, s.t, method);
            }
        }
        model_->curvature(s.t, s.q, s.v, kappa_);
        if (sparse_) {
            acceleration_multipliers(*sparse_gram0_, sparse_G0_->matrix(), a0_, kappa_, lambda_);
            scaled_constraint_directions(*model_, sparse_G0_->matrix(), c, sparse_D_);
        } else {
            acceleration_multipliers(gram0_, G0_, a0_, kappa_, lambda_);
            scaled_constraint_directions(*model_, G0_, c, D_);
        }
        if (!force.velocity_dependent()) {
            position_step(s, h, options, method);
            v_half_.swap(next_);
        } else {
            v_half_ = s.v + (0.5 * h) * a0_;
            double change = 0.0;
            Eigen::Index worst = 0;
            int iteration = 1;
            for (;; ++iteration) {
                force.acceleration(s.t, s.q, v_half_, s.x, a0_);
                position_step(s, h, options, method); // next_ = the new v_{n+1/2}
                worst = largest_difference(next_, v_half_, change);
                v_half_.swap(next_);
                if (change <= options.velocity_tolerance * v_half_.cwiseAbs().maxCoeff()) {
                    break;
                }
                if (iteration == options.max_iterations || !std::isfinite(change)) {
                    throw_kick_not_converged(*model_, method, s.t, worst, change, h, iteration);
                }
            }
        }
        force.acceleration(t1, q1_, v_half_, s.x, a1_);
        if (sparse_) {
            sparse_G1_->evaluate(t1, q1_);
            sparse_gram1_->factorize(sparse_G1_->matrix(), t1, method);
        } else {
            model_->constraint_jacobian(t1, q1_, G1_);
            gram1_.factorize(G1_, t1, method);
        }
        if (model_->rheonomic()) {
            model_->constraint_rate(t1, q1_, rate1_);
        }
    }

    // After the velocity stage: the new state becomes the start of the next step.
    void commit(const State& s) {
        std::swap(a0_, a1_);
        std::swap(G0_, G1_);
        std::swap(gram0_, gram1_);
        std::swap(sparse_G0_, sparse_G1_);
        std::swap(sparse_gram0_, sparse_gram1_);
        memory_.remember(s);
    }

    const Vector& q1() const { return q1_; }
    const Vector& v_half() const { return v_half_; }
    const Vector& a1() const { return a1_; } // M^-1 f(t_{n+1}, q_{n+1}, v_{n+1/2})
    // out = G(q_{n+1}) y and out = G(q_{n+1})^T y
    void multiply_G1(const Vector& y, Vector& out) const {
        if (sparse_) {
            out.noalias() = sparse_G1_->matrix() * y;
        } else {
            out.noalias() = G1_ * y;
        }
    }
    void multiply_G1_transposed(const Vector& y, Vector& out) const {
        if (sparse_) {
            out.noalias() = sparse_G1_->matrix().transpose() * y;
        } else {
            out.noalias() = G1_.transpose() * y;
        }
    }
    // b <- (G M^-1 G^T)^-1 b at q_{n+1}
    void solve_gram1(Vector& b) const {
        if (sparse_) {
            sparse_gram1_->solve_in_place(b);
        } else {
            gram1_.solve_in_place(b);
        }
    }
    // The multipliers of consistent accelerations at the step's end (t_{n+1}, q_{n+1},
    // v_{n+1}), after the velocity stage: S lambda = -(G a + curvature) with G and S at
    // q_{n+1} (already factorized) and a = M^-1 f(t_{n+1}, q_{n+1}, v_{n+1}). A function of
    // the state, so as accurate as the state; the stages' own multipliers are not: lambda_n
    // and RATTLE's mu_n approximate lambda(t_n) and lambda(t_{n+1}) to first order only, and
    // mu_n carries the position Newton's residual in g(q_{n+1}) times 2/h^2.
    void end_multipliers(Force& force, const State& end, Vector& out) {
        const Vector* a = &a1_;
        if (force.velocity_dependent()) {
            force.acceleration(end.t, end.q, end.v, end.x, a_end_);
            a = &a_end_;
        }
        model_->curvature(end.t, end.q, end.v, kappa_);
        if (sparse_) {
            acceleration_multipliers(*sparse_gram1_, sparse_G1_->matrix(), *a, kappa_, out);
        } else {
            acceleration_multipliers(gram1_, G1_, *a, kappa_, out);
        }
    }
    const Vector& lambda() const { return lambda_; } // the position multipliers of the step
    // g_t(t_{n+1}, q_{n+1}) of rheonomic constraints (G v + g_t = 0 at t_{n+1}); else zero
    const Vector& rate1() const { return rate1_; }

private:
    // q_{n+1} = q_n + h v_n + h^2/2 (a_n + M^-1 G_n^T lambda) with g(q_{n+1}) = 0, and the
    // half-step velocity v_n + h/2 (a_n + M^-1 G_n^T lambda) into next_.
    void position_step(const State& s, double h, const SolverOptions& options,
                       std::string_view method) {
        const double c = 0.5 * h * h;
        x_free_ = s.q + h * s.v + c * a0_;
        next_ = s.v + (0.5 * h) * a0_;
        if (sparse_) {
            sparse_newton_->solve(x_free_, sparse_D_, options, s.t + h, h, method, lambda_, q1_);
            next_.noalias() += (1.0 / h) * (sparse_D_ * lambda_);
        } else {
            newton_.solve(x_free_, D_, options, s.t + h, h, method, lambda_, q1_);
            next_.noalias() += (1.0 / h) * (D_ * lambda_); // D lambda / h = h/2 M^-1 G_n^T lambda
        }
    }

    const Model* model_;
    bool sparse_;
    Vector a0_, a1_, q1_, v_half_, x_free_, next_, a_end_;
    Vector lambda_, kappa_, rate1_;
    Matrix G0_, G1_, D_;
    ConstraintGram gram0_, gram1_;
    PositionConstraintNewton newton_;
    // the sparse path
    std::unique_ptr<SparseConstraintJacobian> sparse_G0_, sparse_G1_;
    std::unique_ptr<SparseConstraintGram> sparse_gram0_, sparse_gram1_;
    std::unique_ptr<SparsePositionConstraintNewton> sparse_newton_;
    SparseMatrix sparse_D_;
    StepMemory memory_;
};

} // namespace mdl::runtime::detail
