// RATTLE (Andersen 1983; hmm-mechanical-vibrations, Sect. 4.3): SHAKE's positions, then the
// velocity projected onto the tangent space of the constraints,
//
//   M v_{n+1/2} = M v_n + h/2 F_n + h/2 G(q_n)^T lambda_n
//   q_{n+1}     = q_n + h v_{n+1/2},                     g(q_{n+1}) = 0
//   M v_{n+1}   = M v_{n+1/2} + h/2 F_{n+1} + h/2 G(q_{n+1})^T mu_n,   G(q_{n+1}) v_{n+1} = 0.
//
// Rheonomic constraints g(t, q) = 0: the position constraint is g(t_{n+1}, q_{n+1}) = 0 and
// the velocity constraint G v_{n+1} + g_t(t_{n+1}, q_{n+1}) = 0 (still order 2).
//
// Symplectic, symmetric and of order 2; g(q) = 0 holds to the tolerance of the Newton
// iteration on lambda_n, G v = 0 to round-off (mu_n solves a linear system:
// S mu = -(2/h) G (v_{n+1/2} + h/2 M^-1 F_{n+1}), S = G M^-1 G^T). state.lambda after a
// step holds the multipliers at t_{n+1} of consistent accelerations at (q_{n+1}, v_{n+1}),
// S lambda = -(G M^-1 F_{n+1} + curvature): second order like the state (a driven joint's
// torque). lambda_n and mu_n approximate lambda(t_n) and lambda(t_{n+1}) to first order only,
// and mu_n also carries the residual of g(q_{n+1}) times 2/h^2 (at h = 1e-5 and constraint
// tolerance 1e-12, 2e-3 of a slider-crank's torque).
#pragma once

#include "runtime/integrators/constrained_position_stage.hpp"

#include <concepts>
#include <string_view>

namespace mdl::runtime {

template <AccelerationField Force = ModelForce>
class Rattle {
public:
    explicit Rattle(
        const Model& model, SolverOptions options = {},
        LinearAlgebra algebra = LinearAlgebra::automatic) requires std::same_as<Force, ModelForce>
        : Rattle(model, ModelForce(model), options, algebra) {}
    // algebra: the constraint solves dense, sparse, or sparse from
    // constraint_sparse_threshold constraints on (sparse_constraint_solves.hpp).
    Rattle(const Model& model, Force force, SolverOptions options = {},
           LinearAlgebra algebra = LinearAlgebra::automatic)
        : model_(&model), force_(std::move(force)), options_(options), stage_(model, algebra),
          mu_(Vector::Zero(model.constraints())), tmp_(Vector::Zero(model.positions())) {
        require_constant_diagonal_mass(model, name());
        require_no_first_order_states(model, name());
        require_constraints(model, name());
    }

    // The stepper keeps a pointer to the model, which must outlive it.
    Rattle(const Model&&, SolverOptions = {}, LinearAlgebra = LinearAlgebra::automatic) = delete;
    Rattle(const Model&&, Force, SolverOptions = {},
           LinearAlgebra = LinearAlgebra::automatic) = delete;

    std::string_view name() const { return "rattle"; }
    const Model& model() const { return *model_; }
    Force& force() { return force_; }
    const SolverOptions& options() const { return options_; }
    bool sparse() const { return stage_.sparse(); }
    const Vector& acceleration() const { return stage_.a1(); }
    const Vector& position_multipliers() const { return stage_.lambda(); } // lambda_n
    const Vector& velocity_multipliers() const { return mu_; }             // mu_n

    void step(State& s, double h) {
        stage_.advance(force_, s, h, options_, name());
        tmp_ = stage_.v_half() + (0.5 * h) * stage_.a1();
        stage_.multiply_G1(tmp_, mu_);
        if (model_->rheonomic()) {
            mu_ += stage_.rate1(); // G v_{n+1} = -g_t(t_{n+1}, q_{n+1})
        }
        mu_ *= -2.0 / h;
        stage_.solve_gram1(mu_);
        s.v = tmp_;
        stage_.multiply_G1_transposed(mu_, tmp_);
        s.v += (0.5 * h) * model_->inverse_mass().cwiseProduct(tmp_);
        s.q = stage_.q1();
        s.t += h;
        stage_.end_multipliers(force_, s, s.lambda);
        stage_.commit(s);
    }

private:
    const Model* model_;
    Force force_;
    SolverOptions options_;
    detail::ConstrainedPositionStage<Force> stage_;
    Vector mu_, tmp_;
};

extern template class Rattle<ModelForce>;

} // namespace mdl::runtime
