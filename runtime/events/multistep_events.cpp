#include "runtime/events/multistep_events.hpp"

#include "runtime/events/held_contact_steps.hpp"

#include <optional>

namespace mdl::runtime {

IntegrationStats drive_multistep_events(const Model& model, std::string_view name, State& state,
                                        double t_end, double output_interval, EventTracker& tracker,
                                        const MultistepMethod& method,
                                        const std::function<void(const State&)>& observer,
                                        const EventObserver& on_event) {
    IntegrationStats stats;
    const double t0 = state.t, span = t_end - t0;
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
                held.emplace(model, name);
            }
            last = held->step(state, span, t_end, end);
        } else {
            last = method.step(end);
        }
        const Interpolant& interpolant = holding ? held->interpolant() : method.at;
        if (auto outcome = tracker.step(end, interpolant)) {
            if (output_interval > 0.0) {
                write_dense(interpolant, outcome->before.t, false);
            }
            on_event(outcome->before, outcome->label);
            state = outcome->after;
            if (!outcome->terminate) {
                method.restart(state);
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
        state = end; // (a release restarts the method: the event branch above)
    }
    stats.steps = held ? held->steps() : 0;
    stats.event_counts = tracker.counts().fired;
    stats.event_rests = tracker.counts().rests;
    stats.event_projections = tracker.counts().projections;
    stats.largest_event_projection = tracker.counts().largest_projection;
    return stats;
}

} // namespace mdl::runtime
