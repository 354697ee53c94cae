// run(): the method chosen by name, built for the model and driven from state.t to the stop
// time, every state handed to the observer. The dispatch happens once, outside the stepping
// loop (one loop instantiated per method), so there is no virtual call per step.
#pragma once

#include "runtime/events/event_driver.hpp"
#include "runtime/integrate.hpp"
#include "runtime/integrators/cvode.hpp"
#include "runtime/integrators/dopri5.hpp"
#include "runtime/integrators/generalized_alpha.hpp"
#include "runtime/integrators/ida.hpp"
#include "runtime/integrators/leapfrog.hpp"
#include "runtime/integrators/newmark.hpp"
#include "runtime/integrators/rattle.hpp"
#include "runtime/integrators/rk4.hpp"
#include "runtime/integrators/shake.hpp"
#include "runtime/integrators/stormer.hpp"
#include "runtime/integrators/verlet.hpp"
#include "runtime/methods.hpp"

namespace mdl::runtime {

template <class Observer>
IntegrationStats run(const Model& model, State& state, const RunSettings& settings,
                     Observer&& observer) {
    require_applicable(settings.method, model);
    if (model.has_events()) {
        return run_with_events(model, state, settings, observer);
    }
    const auto fixed = [&](auto stepper) {
        auto stats = integrate_fixed(stepper, state, settings.stop_time, settings.step, observer);
        stats.force_evaluations = stepper.force().evaluations();
        return stats;
    };
    const ImplicitOptions implicit{settings.solver, settings.project_velocities};
    switch (settings.method) {
    case Method::verlet:
        return fixed(VelocityVerlet(model, settings.solver));
    case Method::leapfrog:
        return fixed(Leapfrog(model, settings.solver));
    case Method::stormer:
        return fixed(Stormer(model));
    case Method::rk4:
        if (model.constrained()) {
            return fixed(RungeKutta4<ConstrainedModelForce>(
                model, ConstrainedModelForce(model, settings.solver, "rk4")));
        }
        return fixed(RungeKutta4(model));
    case Method::shake:
        return fixed(Shake(model, settings.solver));
    case Method::rattle:
        return fixed(Rattle(model, settings.solver));
    case Method::newmark:
        return fixed(Newmark(model, implicit));
    case Method::galpha:
        return fixed(GeneralizedAlpha(model, settings.rho_inf, implicit));
    case Method::dopri5: {
        const auto adaptive = [&](auto stepper) {
            auto stats =
                integrate_adaptive(stepper, state, settings.stop_time, observer, settings.step);
            stats.force_evaluations = stepper.force().evaluations();
            return stats;
        };
        if (model.constrained()) {
            return adaptive(Dopri5<ConstrainedModelForce>(
                model, ConstrainedModelForce(model, settings.solver, "dopri5"), settings.adaptive));
        }
        return adaptive(Dopri5(model, settings.adaptive));
    }
    case Method::cvode_adams:
    case Method::cvode_bdf: {
        // SUNDIALS drives its own steps; the observer is called once per output, through
        // std::function (not per right-hand side).
        const CvodeOptions options = cvode_options(settings.adaptive);
        auto stats = integrate_cvode(
            model, state,
            settings.method == Method::cvode_adams ? CvodeMethod::adams : CvodeMethod::bdf, options,
            settings.stop_time, settings.step, [&observer](const State& s) { observer(s); });
        detail::finish(observer, state);
        return stats;
    }
    case Method::ida: {
        IdaOptions options;
        options.rtol = settings.adaptive.rtol;
        options.atol = settings.adaptive.atol;
        options.initial_step = settings.adaptive.initial_step;
        options.max_step = settings.adaptive.max_step;
        options.max_steps = settings.adaptive.max_steps;
        auto stats = integrate_ida(model, state, options, settings.stop_time, settings.step,
                                   [&observer](const State& s) { observer(s); });
        detail::finish(observer, state);
        return stats;
    }
    }
    return {};
}

} // namespace mdl::runtime
