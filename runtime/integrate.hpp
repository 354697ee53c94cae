// The driver: runs any stepper from state.t to t_end and hands each state to an observer
// (output is an observer, not the integrator's business). An observer is any callable
// taking `const State&`; if it also has `finish(const State&)`, that is called with the
// final state (a decimating writer uses it to write the last row).
//
// After every step the state is checked for NaN/Inf; a numerical failure propagates as
// NumericalFailure with the time, the variable and the method, after the observer has seen
// every good state.
#pragma once

#include "runtime/integrators/dense_multipliers.hpp"
#include "runtime/integrators/dopri5.hpp"
#include "runtime/integrators/stepper_support.hpp"
#include "runtime/model.hpp"
#include "runtime/numerical_failure.hpp"
#include "runtime/state.hpp"

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mdl::runtime {

struct IntegrationStats {
    std::size_t steps = 0;                 // accepted steps
    std::size_t rejected = 0;              // rejected steps (adaptive only)
    std::size_t outputs = 0;               // states handed to the observer
    std::size_t force_evaluations = 0;     // filled by run() (ModelForce counts them)
    std::vector<std::size_t> event_counts; // per event of the model (events/event_driver.hpp)
    std::vector<std::size_t> event_rests;  // per event: contacts that came to rest
    // per event: impacts on a constrained model whose velocity was projected onto the
    // constraints (the impulsive reactions), and the largest velocity change of those
    std::vector<std::size_t> event_projections;
    double largest_event_projection = 0.0;
    bool terminated = false;       // a when-clause's terminate() ended the run
    std::string terminate_message; // its message
};

// Throws NumericalFailure(non_finite) naming the first non-finite position, velocity,
// first-order state or multiplier.
void require_finite(const Model& model, const State& state, std::string_view method);

// A step size and end time that make sense, else std::invalid_argument.
void require_run_interval(double t0, double t_end, double h, std::string_view method);

namespace detail {
// The observer's optional hooks: finish(state) once at the end; event(state, label) for the
// two rows of an event, else the state as any other.
template <class Observer>
void finish(Observer& observer, const State& state) {
    if constexpr (requires { observer.finish(state); }) {
        observer.finish(state);
    }
}
template <class Observer>
void observe_event(Observer& observer, const State& state, std::string_view label) {
    if constexpr (requires { observer.event(state, label); }) {
        observer.event(state, label);
    } else {
        observer(state);
    }
}
} // namespace detail

// Fixed steps of size h (towards t_end, which may lie before state.t); the step times are
// t0 + k h, computed afresh each step so they do not drift, and the last step is shortened
// to end exactly at t_end (unless it would be shorter than 1e-9 h: then the grid is
// stretched to end there). A step longer than the whole interval is one step to t_end.
template <class Stepper, class Observer>
IntegrationStats integrate_fixed(Stepper& stepper, State& state, double t_end, double h,
                                 Observer&& observer) {
    const Model& model = stepper.model();
    require_state_shape(model, state, stepper.name());
    require_run_interval(state.t, t_end, h, stepper.name());
    IntegrationStats stats;
    const double t0 = state.t;
    const double span = t_end - t0;
    const double direction = span < 0.0 ? -1.0 : 1.0;
    double count = std::abs(span) / h;
    // a step longer than the interval is one step to t_end (was 0 steps: --step 1e300)
    double rounded = std::max(1.0, std::round(count));
    double step = h;
    if (std::abs(count - rounded) <= 1e-9 * std::max(1.0, count)) {
        count = rounded; // the grid ends at t_end (up to the stretch of h by < 1e-9)
        step = rounded > 0.0 ? std::abs(span) / rounded : h;
    } else {
        count = std::ceil(count);
    }
    const auto steps = static_cast<std::size_t>(count);
    require_finite(model, state, stepper.name());
    observer(static_cast<const State&>(state));
    ++stats.outputs;
    for (std::size_t k = 1; k <= steps; ++k) {
        const double target = k == steps ? t_end : t0 + direction * static_cast<double>(k) * step;
        try {
            stepper.step(state, target - state.t);
        } catch (const NumericalFailure& failure) {
            throw failure.in_method(stepper.name()); // a model evaluation's failure (M(q))
        }
        require_finite(model, state, stepper.name());
        ++stats.steps;
        observer(static_cast<const State&>(state));
        ++stats.outputs;
    }
    detail::finish(observer, state);
    return stats;
}

// Adaptive Dormand–Prince from state.t to t_end. output_interval > 0: the observer sees the
// states at t0 + k output_interval and t_end, from dense output; otherwise every accepted
// step. The last step is shortened to end exactly at t_end.
template <class Force, class Observer>
IntegrationStats integrate_adaptive(Dopri5<Force>& stepper, State& state, double t_end,
                                    Observer&& observer, double output_interval = 0.0) {
    const Model& model = stepper.model();
    require_state_shape(model, state, stepper.name());
    require_run_interval(state.t, t_end, output_interval > 0.0 ? output_interval : 1.0,
                         stepper.name());
    IntegrationStats stats;
    const double t0 = state.t;
    const double direction = t_end < t0 ? -1.0 : 1.0;
    require_finite(model, state, stepper.name());
    observer(static_cast<const State&>(state));
    ++stats.outputs;
    if (t_end == t0) {
        detail::finish(observer, state);
        return stats;
    }
    State dense = state; // sized once, outside the loop
    Vector dense_acceleration(state.q.size());
    std::size_t next_output = 1;
    double h = stepper.initial_step(state, t_end);
    const std::size_t max_steps = stepper.options().max_steps;
    // An adaptive run has no step count known in advance: after 10^3, 10^4, ... accepted steps
    // the count is projected from the mean step so far, and a run that would need more than
    // max_projected_steps ends here (--stop 1e300 ran "forever") instead of after years.
    constexpr double max_projected_steps = 1e15;
    std::size_t next_projection = 1000;
    bool last = false;
    while (!last) {
        // the last step ends exactly at t_end, stretched by at most 1% (Hairer's DOPRI5)
        double attempt = h;
        const double remaining = t_end - state.t;
        if (1.01 * std::abs(attempt) >= std::abs(remaining)) {
            attempt = remaining;
            last = true;
        }
        double proposed = attempt;
        bool accepted = false;
        try {
            accepted = stepper.try_step(state, proposed);
        } catch (const NumericalFailure& failure) {
            throw failure.in_method(stepper.name()); // a model evaluation's failure (M(q))
        }
        if (!accepted) {
            ++stats.rejected;
            h = proposed;
            last = false;
        } else {
            ++stats.steps;
            if (last) {
                state.t = t_end; // exact end time
            }
            require_finite(model, state, stepper.name());
            if (stats.steps == next_projection && !last) {
                next_projection *= 10;
                const double done = std::abs(state.t - t0);
                const double projected =
                    static_cast<double>(stats.steps) * (1.0 + std::abs(t_end - state.t) / done);
                if (!(projected <= max_projected_steps)) {
                    throw NumericalFailure(
                        FailureKind::too_many_steps, stepper.name(), state.t, "",
                        "at the mean step so far (" +
                            format_number(done / static_cast<double>(stats.steps)) +
                            "), reaching t = " + format_number(t_end) + " would take " +
                            format_number(projected) + " steps (at most " +
                            format_number(max_projected_steps) +
                            "); choose an earlier stop time (--stop)");
                }
            }
            h = proposed;
            if (output_interval > 0.0) {
                for (;;) {
                    const double t_out =
                        t0 + direction * static_cast<double>(next_output) * output_interval;
                    if (direction * (t_out - state.t) > 0.0 ||
                        direction * (t_end - t_out) <= 1e-12 * std::abs(t_end - t0)) {
                        break;
                    }
                    stepper.interpolate(t_out, dense);
                    set_dense_multipliers(stepper, state, dense, dense_acceleration);
                    observer(static_cast<const State&>(dense));
                    ++stats.outputs;
                    ++next_output;
                }
                if (last) {
                    observer(static_cast<const State&>(state));
                    ++stats.outputs;
                }
            } else {
                observer(static_cast<const State&>(state));
                ++stats.outputs;
            }
        }
        if (max_steps > 0 && stats.steps + stats.rejected >= max_steps && !last) {
            throw NumericalFailure(FailureKind::too_many_steps, stepper.name(), state.t, "",
                                   std::to_string(max_steps) +
                                       " steps taken without reaching t = " + format_number(t_end) +
                                       "; the problem may be stiff (try newmark or galpha) "
                                       "or the tolerances too tight");
        }
    }
    detail::finish(observer, state);
    return stats;
}

} // namespace mdl::runtime
