// run(): the method chosen by name, built for the model and driven from state.t to the stop
// time, every state handed to the observer. Compiled once, in the runtime library (run.cpp),
// for the RunObserver interface: a caller's observer (a lambda, or an object with
// operator()(state) and optionally event(state, label) and finish(state)) is adapted to it,
// one virtual call per output state, never per force evaluation. A file that calls run()
// therefore does not instantiate every integrator and the event driver again (a test program
// took a minute to compile for that). run_inline (run_inline.hpp) instantiates the loops for
// the observer's own type instead.
#pragma once

#include "runtime/integrate.hpp"
#include "runtime/methods.hpp"
#include "runtime/model.hpp"
#include "runtime/state.hpp"

#include <concepts>
#include <string_view>
#include <type_traits>

namespace mdl::runtime {

// What run() tells its observer: every output state; the two rows of an event (before and
// after, with the event's label; by default as two states); the final state once.
class RunObserver {
public:
    virtual ~RunObserver() = default;
    virtual void operator()(const State& state) = 0;
    virtual void event(const State& state, std::string_view /*label*/) { (*this)(state); }
    virtual void finish(const State& /*state*/) {}
};

IntegrationStats run(const Model& model, State& state, const RunSettings& settings,
                     RunObserver& observer);

// Any other observer, through an adapter that forwards what the observer has.
template <class Observer>
requires(!std::derived_from<std::remove_cvref_t<Observer>, RunObserver>) IntegrationStats
    run(const Model& model, State& state, const RunSettings& settings, Observer&& observer) {
    class Adapter final : public RunObserver {
    public:
        explicit Adapter(std::remove_reference_t<Observer>& target) : target_(target) {}
        void operator()(const State& s) override { target_(s); }
        void event(const State& s, std::string_view label) override {
            detail::observe_event(target_, s, label);
        }
        void finish(const State& s) override { detail::finish(target_, s); }

    private:
        std::remove_reference_t<Observer>& target_;
    };
    Adapter adapter(observer);
    return run(model, state, settings, static_cast<RunObserver&>(adapter));
}

} // namespace mdl::runtime
