// Leapfrog in its drift–kick–drift form (position Verlet; Hairer, Lubich & Wanner, Geometric
// Numerical Integration, Sect. I.1.4): the adjoint arrangement of velocity Verlet, also
// symplectic, symmetric and of order 2, with the force evaluated at the half step:
//
//   q_{n+1/2} = q_n + h/2 v_n
//   v_{n+1}   = v_n + h a(t_n + h/2, q_{n+1/2}, (v_n + v_{n+1})/2)
//   q_{n+1}   = q_{n+1/2} + h/2 v_{n+1}
//
// (The staggered leapfrog v_{n+1/2} = v_{n-1/2} + h a(q_n) is velocity Verlet: use
// "verlet".) For velocity-dependent forces the kick is implicit in w = (v_n + v_{n+1})/2,
// w = v_n + h/2 a(t_{n+1/2}, q_{n+1/2}, w), solved by fixed-point iteration.
#pragma once

#include "runtime/integrators/stepper_support.hpp"
#include "runtime/model_force.hpp"

#include <concepts>
#include <string_view>

namespace mdl::runtime {

template <AccelerationField Force = ModelForce>
class Leapfrog {
public:
    explicit Leapfrog(const Model& model,
                      SolverOptions options = {}) requires std::same_as<Force, ModelForce>
        : Leapfrog(model, ModelForce(model), options) {}
    Leapfrog(const Model& model, Force force, SolverOptions options = {})
        : model_(&model), force_(std::move(force)), options_(options),
          a_(Vector::Zero(model.positions())), w_(Vector::Zero(model.positions())),
          scratch_(Vector::Zero(model.positions())) {
        require_constant_diagonal_mass(model, name());
        require_no_first_order_states(model, name());
        require_unconstrained(model, name());
    }

    // The stepper keeps a pointer to the model, which must outlive it.
    Leapfrog(const Model&&, SolverOptions = {}) = delete;
    Leapfrog(const Model&&, Force, SolverOptions = {}) = delete;

    std::string_view name() const { return "leapfrog"; }
    const Model& model() const { return *model_; }
    Force& force() { return force_; }
    // The acceleration at the half step of the last step.
    const Vector& acceleration() const { return a_; }

    void step(State& s, double h) {
        const double t_half = s.t + 0.5 * h;
        s.q += (0.5 * h) * s.v;
        if (!force_.velocity_dependent()) {
            force_.acceleration(t_half, s.q, s.v, s.x, a_);
            s.v += h * a_;
        } else {
            w_ = s.v;
            detail::solve_velocity_kick(force_, *model_, name(), t_half, s.q, s.x, s.v, 0.5 * h,
                                        options_, h, w_, a_, scratch_);
            s.v = 2.0 * w_ - s.v; // v_{n+1} = v_n + h a(w) = 2 w - v_n
        }
        s.q += (0.5 * h) * s.v;
        s.t += h;
    }

private:
    const Model* model_;
    Force force_;
    SolverOptions options_;
    Vector a_, w_, scratch_;
};

extern template class Leapfrog<ModelForce>;

} // namespace mdl::runtime
