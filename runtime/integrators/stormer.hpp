// Störmer's two-step method for velocity-free second-derivative models x'' = a(t, x)
// (second-derivative-models-ge3, "Velocity-free models IV", where it is called GE3):
//
//   x_{k+1} = 2 x_k - x_{k-1} + h^2 a(t_k, x_k),
//
// local truncation error h^4/12 x^(iv), global order 2. It runs in the summed form
// d_{k+1} = d_k + h^2 a_k, x_{k+1} = x_k + d_{k+1} (d_k = x_k - x_{k-1}), which is the
// same recursion with less round-off accumulation (Hairer, Nørsett & Wanner, Solving ODEs I,
// Sect. III.10). Started by the Taylor step d_1 = h v_0 + h^2/2 a_0; the velocity reported
// at t_{k+1} is d_{k+1}/h + h/2 a_{k+1} (second order). A restart (changed step size or a
// state edited between steps) starts again from (x, v).
//
// The paper proves the method unstable everywhere in the open left half-plane: its
// amplification matrix is even in A h, so no damping can be represented ("the GE3 algorithm
// is only useful for strictly conservative systems", stable for |lambda|_max h <= 2). A
// model whose force depends on velocity is therefore refused.
#pragma once

#include "runtime/integrators/stepper_support.hpp"
#include "runtime/model_force.hpp"

#include <cmath>
#include <concepts>
#include <string_view>

namespace mdl::runtime {

template <AccelerationField Force = ModelForce>
class Stormer {
public:
    explicit Stormer(const Model& model) requires std::same_as<Force, ModelForce>
        : Stormer(model, ModelForce(model)) {}
    Stormer(const Model& model, Force force)
        : model_(&model), force_(std::move(force)), a_(Vector::Zero(model.positions())), d_(a_) {
        require_constant_diagonal_mass(model, name());
        require_no_first_order_states(model, name());
        require_unconstrained(model, name());
        require_velocity_free(model, force_.velocity_dependent(), name());
    }

    // The stepper keeps a pointer to the model, which must outlive it.
    explicit Stormer(const Model&&) = delete;
    Stormer(const Model&&, Force) = delete;

    std::string_view name() const { return "stormer"; }
    const Model& model() const { return *model_; }
    Force& force() { return force_; }
    const Vector& acceleration() const { return a_; }

    void step(State& s, double h) {
        const bool continuing = memory_.continues(s) && std::abs(h - h_) <= 1e-12 * std::abs(h_);
        if (!continuing) {
            force_.acceleration(s.t, s.q, s.v, s.x, a_);
            d_ = h * s.v + (0.5 * h * h) * a_; // Taylor start
        } else {
            d_ += (h * h) * a_; // x_{k+1} - x_k = (x_k - x_{k-1}) + h^2 a_k
        }
        s.q += d_;
        s.t += h;
        force_.acceleration(s.t, s.q, s.v, s.x, a_);
        s.v = d_ / h + (0.5 * h) * a_;
        h_ = h;
        memory_.remember(s);
    }

private:
    const Model* model_;
    Force force_;
    Vector a_, d_;
    double h_ = 0.0;
    detail::StepMemory memory_;
};

extern template class Stormer<ModelForce>;

} // namespace mdl::runtime
