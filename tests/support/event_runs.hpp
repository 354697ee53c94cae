// Runs of models with events (when-clauses) for the tests: an observer that keeps every state
// and the event rows (the state before and after each event's reinits, with its label) apart,
// and the settings of an event run. Shared by tests/api/events_test.cpp and
// grazing_events_test.cpp.
#pragma once

#include "runtime/methods.hpp"
#include "runtime/state.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace mdl::test {

struct EventRow {
    runtime::State state;
    std::string label;
};

// Every observed state, and the event rows apart (two per event: before, after).
struct EventRecorder {
    std::vector<runtime::State> states;
    std::vector<EventRow> events;
    void operator()(const runtime::State& s) { states.push_back(s); }
    void event(const runtime::State& s, std::string_view label) {
        events.push_back({s, std::string(label)});
    }
};

// method from t = 0 to stop: the step (fixed-step methods) or output interval, rtol and atol.
inline runtime::RunSettings event_settings(runtime::Method method, double stop, double step,
                                           double rtol = 1e-12, double atol = 1e-14) {
    runtime::RunSettings s;
    s.method = method;
    s.stop_time = stop;
    s.step = step;
    s.adaptive.rtol = rtol;
    s.adaptive.atol = atol;
    return s;
}

} // namespace mdl::test
