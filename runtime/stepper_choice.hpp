// The stepper of a method that takes its own steps and can carry events (rk4, dopri5, shake,
// rattle, newmark, galpha), built for a model and handed to `body` once, outside the stepping
// loop: rk4 and dopri5 in their multiplier form (ConstrainedModelForce) for a constrained
// model. run() (run.hpp) and the event driver (events/event_driver.hpp) choose through it, so
// the choice is made in one place.
#pragma once

#include "runtime/integrate.hpp"
#include "runtime/integrators/constrained_acceleration.hpp"
#include "runtime/integrators/dopri5.hpp"
#include "runtime/integrators/generalized_alpha.hpp"
#include "runtime/integrators/newmark.hpp"
#include "runtime/integrators/rattle.hpp"
#include "runtime/integrators/rk4.hpp"
#include "runtime/integrators/shake.hpp"
#include "runtime/methods.hpp"
#include "runtime/model.hpp"

#include <optional>

namespace mdl::runtime {

// body(stepper) for the methods above; nullopt for any other method.
template <class Body>
std::optional<IntegrationStats> with_stepper(const Model& model, const RunSettings& settings,
                                             Body&& body) {
    const ImplicitOptions implicit{settings.solver, settings.project_velocities};
    switch (settings.method) {
    case Method::rk4:
        if (model.constrained()) {
            return body(RungeKutta4<ConstrainedModelForce>(
                model, ConstrainedModelForce(model, settings.solver, "rk4")));
        }
        return body(RungeKutta4(model));
    case Method::dopri5:
        if (model.constrained()) {
            return body(Dopri5<ConstrainedModelForce>(
                model, ConstrainedModelForce(model, settings.solver, "dopri5"), settings.adaptive));
        }
        return body(Dopri5(model, settings.adaptive));
    case Method::shake:
        return body(Shake(model, settings.solver));
    case Method::rattle:
        return body(Rattle(model, settings.solver));
    case Method::newmark:
        return body(Newmark(model, implicit));
    case Method::galpha:
        return body(GeneralizedAlpha(model, settings.rho_inf, implicit));
    default:
        return std::nullopt;
    }
}

// Whether a stepper is dopri5 (adaptive, with its continuous extension) rather than a
// fixed-step method.
template <class Stepper>
inline constexpr bool is_dopri5 = false;
template <class Force>
inline constexpr bool is_dopri5<Dopri5<Force>> = true;

} // namespace mdl::runtime
