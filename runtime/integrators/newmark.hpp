// Newmark's average-acceleration method, the trapezoidal (Crank–Nicolson) rule on
// x' = v, M v' = F (mechanical-systems-newmark-galpha, Sect. 21.1):
//
//   v_{n+1} = v_n + h/2 (a_n + a_{n+1})
//   x_{n+1} = x_n + h v_n + h^2/4 (a_n + a_{n+1})
//   M a_{n+1} = F(t_{n+1}, x_n + h v_n + h^2/4 (a_n + a_{n+1}), v_{n+1}),
//
// solved for a_{n+1} by Newton's method with df/dq and df/dv. Second order, unconditionally
// stable for linear problems, energy-conserving for linear undamped ones, no numerical
// damping. It is generalized-alpha with alpha_m = alpha_f = 0, beta = 1/4, gamma = 1/2
// (generalized_alpha.hpp has the Newton iteration and the constrained version).
#pragma once

#include "runtime/integrators/generalized_alpha.hpp"

namespace mdl::runtime {

template <DifferentiableAccelerationField Force = ModelForce>
class Newmark {
public:
    explicit Newmark(const Model& model,
                     ImplicitOptions options = {}) requires std::same_as<Force, ModelForce>
        : Newmark(model, ModelForce(model), options) {}
    Newmark(const Model& model, Force force, ImplicitOptions options = {})
        : core_(model, GeneralizedAlphaParameters::average_acceleration(), std::move(force),
                options, "newmark") {}

    // The stepper keeps a pointer to the model, which must outlive it.
    Newmark(const Model&&, ImplicitOptions = {}) = delete;
    Newmark(const Model&&, Force, ImplicitOptions = {}) = delete;

    std::string_view name() const { return core_.name(); }
    const Model& model() const { return core_.model(); }
    Force& force() { return core_.force(); }
    // a_n = M^-1 (F_n + G_n^T lambda_n)
    const Vector& acceleration() const { return core_.acceleration(); }
    int newton_iterations() const { return core_.newton_iterations(); }

    void step(State& s, double h) { core_.step(s, h); }

private:
    GeneralizedAlpha<Force> core_;
};

extern template class Newmark<ModelForce>;

} // namespace mdl::runtime
