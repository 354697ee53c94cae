// The classical Runge–Kutta method of order 4 on the first-order form y = (q, v, x):
//   k1 = y'(t_n, y_n),              k2 = y'(t_n + h/2, y_n + h/2 k1),
//   k3 = y'(t_n + h/2, y_n + h/2 k2), k4 = y'(t_n + h, y_n + h k3),
//   y_{n+1} = y_n + h/6 (k1 + 2 k2 + 2 k3 + k4).
// Four force evaluations per step; first-order states allowed. Constrained models with
// ConstrainedModelForce (index-1 accelerations, projection after each step: a fifth
// evaluation for the multipliers at the projected state).
#pragma once

#include "runtime/integrators/constrained_acceleration.hpp"
#include "runtime/integrators/first_order_form.hpp"
#include "runtime/integrators/stepper_support.hpp"

#include <concepts>
#include <string_view>

namespace mdl::runtime {

template <AccelerationField Force = ModelForce>
class RungeKutta4 {
public:
    // A member template, so that the explicit instantiation for ConstrainedModelForce
    // (rk4.cpp) does not instantiate it: clang 14 would, requires-clause or not.
    template <class F = Force>
    requires std::same_as<F, ModelForce> explicit RungeKutta4(const Model& model)
        : RungeKutta4(model, ModelForce(model)) {}
    RungeKutta4(const Model& model, Force force) : model_(&model), force_(std::move(force)) {
        detail::require_constraint_handling<Force>(model, name());
        detail::require_rates<Force>(model, name());
        for (detail::Phase* p : {&k1_, &k2_, &k3_, &k4_, &y_}) {
            p->resize(model);
        }
    }

    // The stepper keeps a pointer to the model, which must outlive it.
    explicit RungeKutta4(const Model&&) = delete;
    RungeKutta4(const Model&&, Force) = delete;

    std::string_view name() const { return "rk4"; }
    const Model& model() const { return *model_; }
    Force& force() { return force_; }

    void step(State& s, double h) {
        const double t_half = s.t + 0.5 * h;
        detail::evaluate_slope(force_, s.t, s.q, s.v, s.x, k1_);
        stage(s, 0.5 * h, k1_);
        detail::evaluate_slope(force_, t_half, y_.q, y_.v, y_.x, k2_);
        stage(s, 0.5 * h, k2_);
        detail::evaluate_slope(force_, t_half, y_.q, y_.v, y_.x, k3_);
        stage(s, h, k3_);
        detail::evaluate_slope(force_, s.t + h, y_.q, y_.v, y_.x, k4_);
        const double w = h / 6.0;
        s.q += w * (k1_.q + 2.0 * k2_.q + 2.0 * k3_.q + k4_.q);
        s.v += w * (k1_.v + 2.0 * k2_.v + 2.0 * k3_.v + k4_.v);
        s.x += w * (k1_.x + 2.0 * k2_.x + 2.0 * k3_.x + k4_.x);
        s.t += h;
        detail::finish_step(force_, s);
    }

private:
    void stage(const State& s, double c, const detail::Phase& k) {
        y_.q = s.q + c * k.q;
        y_.v = s.v + c * k.v;
        y_.x = s.x + c * k.x;
    }

    const Model* model_;
    Force force_;
    detail::Phase k1_, k2_, k3_, k4_, y_;
};

extern template class RungeKutta4<ModelForce>;
extern template class RungeKutta4<ConstrainedModelForce>;

} // namespace mdl::runtime
