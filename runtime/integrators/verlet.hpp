// Velocity Verlet, the kick–drift–kick form of the Störmer–Verlet scheme (Hairer, Lubich &
// Wanner, Geometric Numerical Integration, Sect. I.1.4); symplectic, symmetric, order 2:
//
//   v_{n+1/2} = v_n + h/2 a(t_n, q_n, v_{n+1/2})
//   q_{n+1}   = q_n + h v_{n+1/2}
//   v_{n+1}   = v_{n+1/2} + h/2 a(t_{n+1}, q_{n+1}, v_{n+1/2})
//
// When a does not depend on v the first kick is explicit and the last acceleration is
// reused by the next step (one force evaluation per step). With a damper the first kick is
// solved by fixed-point iteration (the Störmer–Verlet scheme for general partitioned
// systems, GNI Sect. II.2), which keeps order 2 and symmetry.
#pragma once

#include "runtime/integrators/stepper_support.hpp"
#include "runtime/model_force.hpp"

#include <concepts>
#include <string_view>

namespace mdl::runtime {

template <AccelerationField Force = ModelForce>
class VelocityVerlet {
public:
    explicit VelocityVerlet(const Model& model,
                            SolverOptions options = {}) requires std::same_as<Force, ModelForce>
        : VelocityVerlet(model, ModelForce(model), options) {}
    // MassMatrix::solve: a model whose mass matrix M(q) is not constant and diagonal is
    // accepted, its accelerations a = M(q)^-1 f(q, v) coming from the force (ModelForce solves
    // with the Cholesky factor of M(q)). Since such an a depends on v (Lagrange's velocity
    // terms), every step is the general partitioned form above: symmetric and of order 2, but
    // not symplectic in (q, v). HMM's micro- and macro-steps use it; the `verlet` method
    // keeps refusing M(q) (MassMatrix::constant_diagonal), as its conservation properties are
    // those of constant M.
    enum class MassMatrix { constant_diagonal, solve };
    VelocityVerlet(const Model& model, Force force, SolverOptions options = {},
                   MassMatrix mass = MassMatrix::constant_diagonal)
        : model_(&model), force_(std::move(force)), options_(options),
          a_(Vector::Zero(model.positions())), v_half_(Vector::Zero(model.positions())),
          scratch_(Vector::Zero(model.positions())) {
        if (mass == MassMatrix::constant_diagonal) {
            require_constant_diagonal_mass(model, name());
        }
        require_no_first_order_states(model, name());
        require_unconstrained(model, name());
    }

    // The stepper keeps a pointer to the model, which must outlive it.
    VelocityVerlet(const Model&&, SolverOptions = {}) = delete;
    VelocityVerlet(const Model&&, Force, SolverOptions = {},
                   MassMatrix = MassMatrix::constant_diagonal) = delete;

    std::string_view name() const { return "verlet"; }
    const Model& model() const { return *model_; }
    Force& force() { return force_; }
    // a(t_{n+1}, q_{n+1}, v_{n+1/2}) of the last step: the micro-force HMM filters.
    const Vector& acceleration() const { return a_; }

    void step(State& s, double h) {
        const double t1 = s.t + h;
        if (!memory_.continues(s)) {
            force_.acceleration(s.t, s.q, s.v, s.x, a_);
        }
        if (!force_.velocity_dependent()) {
            s.v += (0.5 * h) * a_;
            s.q += h * s.v;
            force_.acceleration(t1, s.q, s.v, s.x, a_);
            s.v += (0.5 * h) * a_;
        } else {
            v_half_ = s.v + (0.5 * h) * a_; // the last acceleration as a starting guess
            detail::solve_velocity_kick(force_, *model_, name(), s.t, s.q, s.x, s.v, 0.5 * h,
                                        options_, h, v_half_, a_, scratch_);
            s.q += h * v_half_;
            force_.acceleration(t1, s.q, v_half_, s.x, a_);
            s.v = v_half_ + (0.5 * h) * a_;
        }
        s.t = t1;
        memory_.remember(s);
    }

private:
    const Model* model_;
    Force force_;
    SolverOptions options_;
    Vector a_, v_half_, scratch_;
    detail::StepMemory memory_;
};

extern template class VelocityVerlet<ModelForce>;

} // namespace mdl::runtime
