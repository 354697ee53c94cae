// SHAKE (Ryckaert, Ciccotti & Berendsen 1977) in the position–velocity form of
// hmm-mechanical-vibrations, Sect. 4.2:
//
//   M V_{n+1/2} = M V_{n-1/2} + h F_n + h G(q_n)^T Lambda_n
//   q_{n+1}     = q_n + h V_{n+1/2},      g(q_{n+1}) = 0,
//
// started by M V_{1/2} = M V_0 + h/2 F_0 + h/2 G(q_0)^T Lambda_0. Written as a one-step map
// on (q_n, v_n): the first half kick carries the step's multipliers (found by Newton's method,
// see constrained_position_stage.hpp), the last half kick to v_{n+1} uses the latest full-step
// multipliers Lambda_n. The positions are exactly SHAKE's, whatever that choice (the
// constraint-force part of v_{n+1} is absorbed by the next step's multipliers); the reported
// velocities are second-order accurate but, as is well known for SHAKE, not tangent to the
// constraints (G v != 0 at O(h^2)): use RATTLE when that matters. The positions satisfy
// g(q) = 0 to the constraint tolerance of Newton's iteration.
//
// state.lambda after a step holds Lambda_n, the full-step multipliers of the paper's form
// (one step behind state.t); the HMM micro-integration filters f + G^T Lambda.
#pragma once

#include "runtime/integrators/constrained_position_stage.hpp"

#include <concepts>
#include <string_view>

namespace mdl::runtime {

template <AccelerationField Force = ModelForce>
class Shake {
public:
    explicit Shake(
        const Model& model, SolverOptions options = {},
        LinearAlgebra algebra = LinearAlgebra::automatic) requires std::same_as<Force, ModelForce>
        : Shake(model, ModelForce(model), options, algebra) {}
    // algebra: the constraint solves dense, sparse, or sparse from
    // constraint_sparse_threshold constraints on (sparse_constraint_solves.hpp).
    Shake(const Model& model, Force force, SolverOptions options = {},
          LinearAlgebra algebra = LinearAlgebra::automatic)
        : model_(&model), force_(std::move(force)), options_(options), stage_(model, algebra),
          multipliers_(Vector::Zero(model.constraints())), last_kick_(multipliers_),
          tmp_(Vector::Zero(model.positions())) {
        require_constant_diagonal_mass(model, name());
        require_no_first_order_states(model, name());
        require_constraints(model, name());
    }

    // The stepper keeps a pointer to the model, which must outlive it.
    Shake(const Model&&, SolverOptions = {}, LinearAlgebra = LinearAlgebra::automatic) = delete;
    Shake(const Model&&, Force, SolverOptions = {},
          LinearAlgebra = LinearAlgebra::automatic) = delete;

    std::string_view name() const { return "shake"; }
    const Model& model() const { return *model_; }
    Force& force() { return force_; }
    const SolverOptions& options() const { return options_; }
    bool sparse() const { return stage_.sparse(); }
    // After a step to t_{n+1}: a(t_n, q_n) without constraint forces, the acceleration that
    // pairs with multipliers() = Lambda_n (the step computes a(t_{n+1}, ...) and Lambda_n,
    // then swaps its stages so that the two returned here belong to the same point).
    const Vector& acceleration() const { return stage_.a1(); }
    const Vector& multipliers() const { return multipliers_; }

    void step(State& s, double h) {
        const bool continuing = stage_.continues(s);
        stage_.advance(force_, s, h, options_, name());
        // Lambda_n = (lambda_a + lambda_b)/2: the multipliers of the half kick that ended the
        // previous step and of the one that began this step; at a start only the latter
        // (the paper's starting formula).
        if (continuing) {
            multipliers_ = 0.5 * (last_kick_ + stage_.lambda());
        } else {
            multipliers_ = stage_.lambda();
        }
        last_kick_ = multipliers_;
        stage_.multiply_G1_transposed(multipliers_, tmp_);
        s.v =
            stage_.v_half() + (0.5 * h) * (stage_.a1() + model_->inverse_mass().cwiseProduct(tmp_));
        s.q = stage_.q1();
        s.t += h;
        s.lambda = multipliers_;
        stage_.commit(s);
    }

private:
    const Model* model_;
    Force force_;
    SolverOptions options_;
    detail::ConstrainedPositionStage<Force> stage_;
    Vector multipliers_, last_kick_, tmp_;
};

extern template class Shake<ModelForce>;

} // namespace mdl::runtime
