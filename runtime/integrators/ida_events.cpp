// integrate_ida_events (ida.hpp): IDA's steps one at a time through the EventTracker.
#include "runtime/events/held_contact_steps.hpp"
#include "runtime/integrators/ida.hpp"
#include "runtime/integrators/ida_session.hpp"
#include "runtime/numerical_failure.hpp"

#include <optional>

namespace mdl::runtime {

namespace {
constexpr std::string_view method_name = "ida";
}

#if MDL_HAVE_SUNDIALS

IntegrationStats integrate_ida_events(const Model& model, State& state, const IdaOptions& options,
                                      double t_end, double output_interval,
                                      const std::function<void(const State&)>& observer,
                                      const EventObserver& on_event, EventOptions events) {
    detail::require_ida_run(model, state, options, t_end, output_interval);
    events.restart_moves_positions = true; // IDA's Newton on the constraints at a restart
    EventTracker tracker(model, method_name, events);
    if (model.constrained()) {
        // the rates and the release test with the constraint forces
        tracker.set_acceleration(constrained_motion(model, method_name));
    }
    const double t0 = state.t, span = t_end - t0;
    IntegrationStats stats;
    const auto finish = [&] {
        stats.event_counts = tracker.counts().fired;
        stats.event_rests = tracker.counts().rests;
        stats.event_projections = tracker.counts().projections;
        stats.largest_event_projection = tracker.counts().largest_projection;
        return stats;
    };
    if (t_end == t0) {
        Vector a, xdot;
        detail::ida_consistent_derivatives(model, state, a, xdot);
        require_finite(model, state, method_name);
        tracker.start(state);
        observer(static_cast<const State&>(state));
        ++stats.outputs;
        return finish();
    }
    detail::IdaSession ida(model, options, state, t_end);
    require_finite(model, state, method_name);
    tracker.start(state);
    observer(static_cast<const State&>(state));
    ++stats.outputs;
    // IDA's own interpolant is of the order of its last step, linear after each restart, where
    // it puts a flight's return at the start of a step that spans the flight: the events are
    // located on the Hermite interpolant of the step's ends instead (hermite_step.hpp)
    HermiteStep hermite(model);
    if (model.constrained()) {
        hermite.set_acceleration(constrained_motion(model, method_name));
    }
    const Interpolant ida_at = [&hermite](double t, State& out) {
        hermite(t, out);
    };
    std::optional<HeldContactSteps> held;
    State end = state, dense = state;
    std::size_t next_output = 1;
    const auto write_dense = [&](const Interpolant& interpolant, double until, bool inclusive) {
        for (;;) {
            const double t_out = t0 + static_cast<double>(next_output) * output_interval;
            if (t_out > until || (!inclusive && t_out == until) || t_end - t_out <= 1e-12 * span) {
                return;
            }
            interpolant(t_out, dense);
            tracker.project(dense);
            observer(static_cast<const State&>(dense));
            ++stats.outputs;
            ++next_output;
        }
    };
    while (state.t < t_end) {
        const bool holding = tracker.holding();
        bool last = false;
        if (holding) {
            if (!held) {
                held.emplace(model, method_name);
            }
            last = held->step(state, span, t_end, end);
        } else {
            last = ida.advance(t_end, true, end);
            hermite.fit(state, end);
        }
        const Interpolant& interpolant = holding ? held->interpolant() : ida_at;
        if (auto outcome = tracker.step(end, interpolant)) {
            if (output_interval > 0.0) {
                write_dense(interpolant, outcome->before.t, false);
            }
            on_event(outcome->before, outcome->label);
            state = outcome->after;
            if (!outcome->terminate) {
                ida.restart(state); // consistent multipliers after the impulse
            }
            on_event(state, outcome->label);
            stats.outputs += 2;
            if (outcome->terminate) {
                stats.terminated = true;
                stats.terminate_message = outcome->message;
                break;
            }
            continue;
        }
        if (output_interval > 0.0) {
            write_dense(interpolant, end.t, true);
            if (last) {
                observer(static_cast<const State&>(end));
                ++stats.outputs;
            }
        } else {
            observer(static_cast<const State&>(end));
            ++stats.outputs;
        }
        state = end; // (a release restarts IDA: the event branch above)
    }
    const IntegrationStats counts = ida.statistics();
    stats.steps = counts.steps + (held ? held->steps() : 0);
    stats.rejected = counts.rejected;
    stats.force_evaluations = counts.force_evaluations;
    return finish();
}

#else // built without SUNDIALS

IntegrationStats integrate_ida_events(const Model&, State&, const IdaOptions&, double, double,
                                      const std::function<void(const State&)>&,
                                      const EventObserver&, EventOptions) {
    throw MethodNotApplicable(method_name, "this build of mdl has no SUNDIALS (install "
                                           "libsundials-dev and rebuild)");
}

#endif

} // namespace mdl::runtime
