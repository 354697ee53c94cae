// The loop of a run with events by a method that takes its own steps and starts again after an
// event (cvode-*, ida; docs/events.md): each step of the method, or of HeldContactSteps while
// a contact is held, handed to the EventTracker with its interpolant; rows at the output
// times (or every step), the rows of each event, the method restarted from the state after it.
// What integrate_cvode_events and integrate_ida_events share.
#pragma once

#include "runtime/events/event_tracker.hpp"
#include "runtime/integrate.hpp"
#include "runtime/model.hpp"
#include "runtime/state.hpp"

#include <functional>
#include <string_view>

namespace mdl::runtime {

struct MultistepMethod {
    // One step of the method from where it is towards t_end: `end` receives the state; true
    // when it is t_end.
    std::function<bool(State& end)> step;
    // The state at t within the last step.
    Interpolant at;
    // A new initial value problem from s (an event's reinits, a contact released); may make s
    // consistent (ida's multipliers).
    std::function<void(State& s)> restart;
};

// From state.t (the tracker started there, the first row written) to t_end. IntegrationStats:
// outputs, steps of HeldContactSteps, terminated and its message, the tracker's counts; the
// caller adds its method's steps, rejections and evaluations.
IntegrationStats drive_multistep_events(const Model& model, std::string_view name, State& state,
                                        double t_end, double output_interval, EventTracker& tracker,
                                        const MultistepMethod& method,
                                        const std::function<void(const State&)>& observer,
                                        const EventObserver& on_event);

} // namespace mdl::runtime
