// run_inline(): run() (run.hpp) with the stepping loops instantiated for the caller's observer
// type: no virtual call per output state, at the compile cost of every integrator and the event
// driver in the including file. The dispatch happens once, outside the stepping loop (one loop
// instantiated per method). run.cpp instantiates it once for RunObserver; only the FMI library
// calls it with its own observer (its runtime is built without SUNDIALS, without run.cpp).
#pragma once

#include "runtime/events/event_driver.hpp"
#include "runtime/integrate.hpp"
#include "runtime/integrators/cvode.hpp"
#include "runtime/integrators/ida.hpp"
#include "runtime/integrators/leapfrog.hpp"
#include "runtime/integrators/stormer.hpp"
#include "runtime/integrators/verlet.hpp"
#include "runtime/methods.hpp"
#include "runtime/stepper_choice.hpp"

namespace mdl::runtime {

template <class Observer>
IntegrationStats run_inline(const Model& model, State& state, const RunSettings& settings,
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
    // rk4, dopri5, shake, rattle, newmark, galpha (stepper_choice.hpp)
    if (auto stats = with_stepper(model, settings, [&](auto stepper) {
            using Stepper = decltype(stepper);
            if constexpr (is_dopri5<Stepper>) {
                auto adaptive =
                    integrate_adaptive(stepper, state, settings.stop_time, observer, settings.step);
                adaptive.force_evaluations = stepper.force().evaluations();
                return adaptive;
            } else {
                return fixed(std::move(stepper));
            }
        })) {
        return *stats;
    }
    switch (settings.method) {
    case Method::verlet:
        return fixed(VelocityVerlet(model, settings.solver));
    case Method::leapfrog:
        return fixed(Leapfrog(model, settings.solver));
    case Method::stormer:
        return fixed(Stormer(model));
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
        auto stats = integrate_ida(model, state, ida_options(settings.adaptive), settings.stop_time,
                                   settings.step, [&observer](const State& s) { observer(s); });
        detail::finish(observer, state);
        return stats;
    }
    default:
        break;
    }
    return {};
}

} // namespace mdl::runtime
