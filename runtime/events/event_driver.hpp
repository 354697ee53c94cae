// The drivers of models with events (when-clauses, docs/events.md): the fixed-step methods
// (rk4, and newmark, galpha, shake, rattle) on their grid with the Hermite interpolant of each
// step, dopri5 with its continuous extension. After every step the EventTracker looks for
// crossings; at an event the observer sees the state before and after the reinits (with the
// event's name when it has an `event` member), and the integrator restarts from the state
// after them: a fixed-step method steps on to its next grid point, dopri5 forgets its step
// history (FSAL slope, controller) and estimates a new starting step. Constrained models run
// rk4 and dopri5 in their multiplier form (ConstrainedModelForce), and the tracker's rates and
// the interpolant use the accelerations with the constraint forces. cvode-adams and cvode-bdf
// take the same tracker on CVODE's interpolant (cvode.hpp), ida on IDA's (ida.hpp). Every other
// method refuses a model with events (require_applicable).
#pragma once

#include "runtime/events/event_tracker.hpp"
#include "runtime/events/held_contact_steps.hpp"
#include "runtime/events/hermite_step.hpp"
#include "runtime/integrate.hpp"
#include "runtime/integrators/cvode.hpp"
#include "runtime/integrators/ida.hpp"
#include "runtime/methods.hpp"
#include "runtime/stepper_choice.hpp"

#include <cmath>
#include <memory>
#include <string_view>

namespace mdl::runtime {

namespace detail {

// Writes the rows of an event; true when the run ends there (terminate).
template <class Observer>
bool report(Observer& observer, const EventOutcome& outcome, IntegrationStats& stats) {
    observe_event(observer, outcome.before, outcome.label);
    observe_event(observer, outcome.after, outcome.label);
    stats.outputs += 2;
    if (outcome.terminate) {
        stats.terminated = true;
        stats.terminate_message = outcome.message;
    }
    return outcome.terminate;
}

inline void require_forward(double t0, double t_end, std::string_view method) {
    if (!(t_end >= t0)) {
        throw MethodNotApplicable(method, "a model with events runs forward in time only");
    }
}

inline void count_events(const EventTracker& tracker, IntegrationStats& stats) {
    stats.event_counts = tracker.counts().fired;
    stats.event_rests = tracker.counts().rests;
    stats.event_projections = tracker.counts().projections;
    stats.largest_event_projection = tracker.counts().largest_projection;
}

// The end of a run with events: the tracker's counts into the statistics, the last row.
template <class Observer>
IntegrationStats end_run(const EventTracker& tracker, Observer& observer, const State& state,
                         IntegrationStats& stats) {
    count_events(tracker, stats);
    finish(observer, state);
    return stats;
}

} // namespace detail

// A fixed-step method with events (rk4, and the constrained methods shake, rattle, newmark,
// galpha): the grid t0 + k h of integrate_fixed; an event inside a step ends the step there,
// and the next step goes from the event to the same grid point.
template <class Stepper, class Observer>
IntegrationStats integrate_fixed_events(Stepper& stepper, State& state, double t_end, double h,
                                        Observer&& observer, EventOptions options = {},
                                        EventTracker* carried = nullptr) {
    const Model& model = stepper.model();
    require_state_shape(model, state, stepper.name());
    require_run_interval(state.t, t_end, h, stepper.name());
    detail::require_forward(state.t, t_end, stepper.name());
    // `carried`: the tracker of a run paused and resumed (an FMU's steps), else a new one
    std::optional<EventTracker> own;
    EventTracker& tracker = carried ? *carried : own.emplace(model, stepper.name(), options);
    HermiteStep hermite(model);
    if (model.constrained()) {
        const MotionAcceleration motion = constrained_motion(model, stepper.name());
        tracker.set_acceleration(motion);
        hermite.set_acceleration(motion);
    }
    const Interpolant at = [&hermite](double t, State& out) {
        hermite(t, out);
    };
    IntegrationStats stats;
    const double t0 = state.t;
    double count = (t_end - t0) / h;
    const double rounded = std::max(1.0, std::round(count));
    double step = h;
    if (std::abs(count - rounded) <= 1e-9 * std::max(1.0, count)) {
        count = rounded;
        step = (t_end - t0) / rounded;
    } else {
        count = std::ceil(count);
    }
    const auto steps = static_cast<std::size_t>(count);
    require_finite(model, state, stepper.name());
    tracker.resume(state);
    observer(static_cast<const State&>(state));
    ++stats.outputs;
    State begin = state;
    for (std::size_t k = 1; k <= steps; ++k) {
        const double target = k == steps ? t_end : t0 + static_cast<double>(k) * step;
        while (state.t < target) {
            begin = state;
            // near a graze the tracker may ask for a shorter step: the rest of the way to
            // the grid point follows in further steps
            const double limit = tracker.step_limit(target - state.t);
            const double reach = limit < target - state.t ? state.t + limit : target;
            try {
                stepper.step(state, reach - state.t);
                state.t = reach;
                hermite.fit(begin, state);
            } catch (const NumericalFailure& failure) {
                throw failure.in_method(stepper.name());
            }
            require_finite(model, state, stepper.name());
            ++stats.steps;
            auto outcome = tracker.step(state, at);
            if (!outcome) {
                continue;
            }
            state = outcome->after;
            if (detail::report(observer, *outcome, stats)) {
                return detail::end_run(tracker, observer, state, stats);
            }
        }
        observer(static_cast<const State&>(state));
        ++stats.outputs;
    }
    return detail::end_run(tracker, observer, state, stats);
}

// dopri5 with events: integrate_adaptive's loop; dense output rows up to an event come from
// the continuous extension of the step it happened in.
template <class Force, class Observer>
IntegrationStats integrate_adaptive_events(Dopri5<Force>& stepper, State& state, double t_end,
                                           Observer&& observer, double output_interval = 0.0,
                                           EventOptions options = {},
                                           EventTracker* carried = nullptr) {
    const Model& model = stepper.model();
    require_state_shape(model, state, stepper.name());
    require_run_interval(state.t, t_end, output_interval > 0.0 ? output_interval : 1.0,
                         stepper.name());
    detail::require_forward(state.t, t_end, stepper.name());
    // `carried`: the tracker of a run paused and resumed (an FMU's steps), else a new one
    std::optional<EventTracker> own;
    EventTracker& tracker = carried ? *carried : own.emplace(model, stepper.name(), options);
    if (model.constrained()) {
        tracker.set_acceleration(constrained_motion(model, stepper.name()));
    }
    const Interpolant at = [&stepper](double t, State& out) {
        stepper.interpolate(t, out);
    };
    IntegrationStats stats;
    const double t0 = state.t;
    require_finite(model, state, stepper.name());
    tracker.resume(state);
    observer(static_cast<const State&>(state));
    ++stats.outputs;
    if (t_end == t0) {
        detail::finish(observer, state);
        return stats;
    }
    State dense = state;
    Vector dense_acceleration(state.q.size());
    std::size_t next_output = 1;
    const auto write_dense = [&](double until, bool inclusive) {
        for (;;) {
            const double t_out = t0 + static_cast<double>(next_output) * output_interval;
            if (t_out > until || (!inclusive && t_out == until) ||
                t_end - t_out <= 1e-12 * std::abs(t_end - t0)) {
                return;
            }
            stepper.interpolate(t_out, dense);
            set_dense_multipliers(stepper, state, dense, dense_acceleration);
            tracker.project(dense);
            observer(static_cast<const State&>(dense));
            ++stats.outputs;
            ++next_output;
        }
    };
    // resumed on a contact at rest (an FMU's next step): Hairer's starting-step estimate is
    // tiny there; take the step that holding allows (below)
    double h = tracker.holding() ? 1e-3 * (t_end - t0) : stepper.initial_step(state, t_end);
    const std::size_t max_steps = stepper.options().max_steps;
    while (state.t < t_end) {
        // near a graze the tracker may ask for a shorter step (graze_step_limit.hpp)
        double attempt = tracker.step_limit(h);
        const double remaining = t_end - state.t;
        bool last = false;
        if (1.01 * std::abs(attempt) >= remaining) {
            attempt = remaining;
            last = true;
        }
        double proposed = attempt;
        bool accepted = false;
        try {
            accepted = stepper.try_step(state, proposed);
        } catch (const NumericalFailure& failure) {
            throw failure.in_method(stepper.name());
        }
        if (max_steps > 0 && stats.steps + stats.rejected >= max_steps) {
            throw NumericalFailure(FailureKind::too_many_steps, stepper.name(), state.t, "",
                                   std::to_string(max_steps) +
                                       " steps taken without reaching t = " + format_number(t_end));
        }
        if (!accepted) {
            ++stats.rejected;
            h = proposed;
            continue;
        }
        ++stats.steps;
        if (last) {
            state.t = t_end;
        }
        require_finite(model, state, stepper.name());
        auto outcome = tracker.step(state, at);
        if (outcome) {
            if (output_interval > 0.0) {
                write_dense(outcome->before.t, false);
            }
            state = outcome->after;
            if (detail::report(observer, *outcome, stats)) {
                return detail::end_run(tracker, observer, state, stats);
            }
            // a new initial value problem from the event; the step that found it is a sound
            // first try (Hairer's starting-step estimate can be tiny on a contact at rest)
            stepper.restart(stepper.options());
            h = std::max(proposed, attempt);
            if (tracker.holding()) { // the event put a contact at rest: see below
                h = std::min(h, 1e-3 * (t_end - t0));
            }
            continue;
        }
        if (output_interval > 0.0) {
            write_dense(state.t, true);
            if (last) {
                observer(static_cast<const State&>(state));
                ++stats.outputs;
            }
        } else {
            observer(static_cast<const State&>(state));
            ++stats.outputs;
        }
        h = proposed;
        if (tracker.holding()) {
            // the state was projected onto the contact; its release is looked for at points
            // of each step, so steps while holding are at most a thousandth of the run
            stepper.restart(stepper.options());
            h = std::min(h, 1e-3 * (t_end - t0));
        }
    }
    return detail::end_run(tracker, observer, state, stats);
}

template <class Observer>
IntegrationStats run_with_events(const Model& model, State& state, const RunSettings& settings,
                                 Observer&& observer, EventTracker* carried = nullptr) {
    const auto fixed = [&](auto stepper) {
        auto stats = integrate_fixed_events(stepper, state, settings.stop_time, settings.step,
                                            observer, {}, carried);
        stats.force_evaluations = stepper.force().evaluations();
        return stats;
    };
    const auto adaptive = [&](auto stepper) {
        auto stats = integrate_adaptive_events(stepper, state, settings.stop_time, observer,
                                               settings.step, {}, carried);
        stats.force_evaluations = stepper.force().evaluations();
        return stats;
    };
    // rk4, dopri5, shake, rattle, newmark, galpha (stepper_choice.hpp)
    if (auto stats = with_stepper(model, settings, [&](auto stepper) {
            if constexpr (is_dopri5<decltype(stepper)>) {
                return adaptive(std::move(stepper));
            } else {
                return fixed(std::move(stepper));
            }
        })) {
        return *stats;
    }
    const auto on_event = [&observer](const State& s, std::string_view label) {
        detail::observe_event(observer, s, label);
    };
    switch (settings.method) {
    case Method::cvode_adams:
    case Method::cvode_bdf: {
        const CvodeOptions options = cvode_options(settings.adaptive);
        auto stats = integrate_cvode_events(
            model, state,
            settings.method == Method::cvode_adams ? CvodeMethod::adams : CvodeMethod::bdf, options,
            settings.stop_time, settings.step, [&observer](const State& s) { observer(s); },
            on_event);
        detail::finish(observer, state);
        return stats;
    }
    case Method::ida: {
        auto stats = integrate_ida_events(
            model, state, ida_options(settings.adaptive), settings.stop_time, settings.step,
            [&observer](const State& s) { observer(s); }, on_event);
        detail::finish(observer, state);
        return stats;
    }
    default:
        require_events_supported(settings.method, model);
        return {};
    }
}

} // namespace mdl::runtime
