// integrate_ida_events (ida.hpp): IDA's steps one at a time through the EventTracker.
#include "runtime/events/held_contact_steps.hpp"
#include "runtime/events/multistep_events.hpp"
#include "runtime/integrators/ida.hpp"
#include "runtime/integrators/ida_session.hpp"
#include "runtime/numerical_failure.hpp"

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
    if (t_end == state.t) {
        Vector a, xdot;
        detail::ida_consistent_derivatives(model, state, a, xdot);
        require_finite(model, state, method_name);
        observer(static_cast<const State&>(state));
        IntegrationStats stats;
        stats.outputs = 1;
        stats.event_counts.assign(model.events().size(), 0);
        stats.event_rests = stats.event_projections = stats.event_counts;
        return stats;
    }
    detail::IdaSession ida(model, options, state, t_end);
    require_finite(model, state, method_name);
    tracker.start(state);
    observer(static_cast<const State&>(state));
    State state_of_ida = state; // where IDA is: the start of its next step
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
    MultistepMethod method;
    method.step = [&](State& end) {
        const State from = state_of_ida;
        const bool last = ida.advance(t_end, true, end);
        hermite.fit(from, end);
        state_of_ida = end;
        return last;
    };
    method.at = ida_at;
    method.restart = [&](State& s) {
        ida.restart(s); // consistent multipliers after the impulse
        state_of_ida = s;
    };
    IntegrationStats stats = drive_multistep_events(
        model, method_name, state, t_end, output_interval, tracker, method, observer, on_event);
    const IntegrationStats counts = ida.statistics();
    stats.outputs += 1; // the first row
    stats.steps += counts.steps;
    stats.rejected = counts.rejected;
    stats.force_evaluations = counts.force_evaluations;
    return stats;
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
