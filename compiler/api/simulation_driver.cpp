// The settings of every method resolved against the model's annotation and checked, and the
// statistics of a stopped run (simulation_driver.hpp).
#include "compiler/api/simulation_driver.hpp"

#include "compiler/api/option_checks.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace mdl::simulation {

// The start and stop times: finite, stop after start, and the interval a normal number (a
// subnormal interval has no step whose size t can resolve: --stop 4e-320).
void require_interval(double start, double stop) {
    if (!std::isfinite(start)) {
        throw std::invalid_argument(
            fmt::format("--start: the start time must be finite, got {}", number(start)));
    }
    if (!std::isfinite(stop)) {
        throw std::invalid_argument(
            fmt::format("--stop: the stop time must be finite, got {}", number(stop)));
    }
    if (!(stop > start)) {
        throw std::invalid_argument(
            fmt::format("--stop: the stop time {} is not after the start time {}", stop, start));
    }
    if (!(stop - start >= std::numeric_limits<double>::min())) {
        throw std::invalid_argument(fmt::format(
            "--stop: the interval from t = {} to {} is shorter than the smallest normal double "
            "({}); no step of it can be resolved",
            number(start), number(stop), number(std::numeric_limits<double>::min())));
    }
}

// The number of steps of size h (a step, macro step or output interval: `what`) from start
// to stop, at most max_steps and each moving t; the message names --step, or --stop when
// only the stop time was given. Returns the count (a real number: it may end in a partial
// step).
double step_count(const SimulationSettings& o, double start, double stop, double h,
                  std::string_view what) {
    const double count = (stop - start) / h;
    if (!(count <= max_steps) || start + h == start || stop + h == stop) {
        throw std::invalid_argument(fmt::format(
            "{}: {} {} from t = {} to {} would take {} steps{} (at most {} of a size that moves "
            "t)",
            o.stop && !o.step ? "--stop" : "--step", what, number(h), number(start), number(stop),
            number(count), count <= max_steps ? ", each below the round-off of t" : "",
            number(max_steps)));
    }
    return count;
}

// An adaptive run writing every step has no count known in advance; its span is bounded as
// the runtime bounds it (runtime/integrate.cpp: at most 1e15 time units), and the driver
// projects the count as it goes (runtime/integrate.hpp).
void require_adaptive_span(double start, double stop) {
    if (!(stop - start <= max_steps)) {
        throw std::invalid_argument(fmt::format(
            "--stop: an adaptive run over more than {} time units (t = {} to {}) is refused; "
            "give an output interval with --step to have it counted",
            number(max_steps), number(start), number(stop)));
    }
}

// A whole number of macro steps (HMM and hmm-stiff's rk4 macro: the paper's grid), checked
// and counted before the method sees it.
void require_whole_steps(const SimulationSettings& o, double start, double stop, double H,
                         const std::string& method) {
    const double count = step_count(o, start, stop, H, "a macro step of");
    const double rounded = std::round(count);
    if (!(rounded >= 1.0) || std::abs(count - rounded) > 1e-9 * std::max(1.0, count)) {
        throw std::invalid_argument(fmt::format(
            "{}: {} takes whole macro steps, and H = {} divides the interval from t = {} to {} "
            "into {} of them",
            o.stop && !o.step ? "--stop" : "--step", method, number(H), number(start), number(stop),
            number(count)));
    }
}

// Micro steps per fast period (--micro-steps-per-period, or T_macro/H from --macro-time) times
// the window in periods: at least one step per period and at most max_micro_steps per force.
void require_micro_steps(const char* option, double per_period, double window_periods) {
    if (!(per_period >= 1.0) || !(per_period <= max_steps_per_period)) {
        throw std::invalid_argument(
            fmt::format("{}: {} micro steps per fast period; mdl takes 1 to {}", option,
                        number(per_period), number(max_steps_per_period)));
    }
    const double per_force = per_period * std::max(1.0, window_periods);
    if (!(per_force <= max_micro_steps)) {
        throw std::invalid_argument(fmt::format(
            "{}: {} micro steps per period over a window of {} periods is {} micro steps per "
            "averaged force, more than {}",
            window_periods > 1.0 ? "--window" : option, number(per_period), number(window_periods),
            number(per_force), number(max_micro_steps)));
    }
}

// A count from the model's annotation (micro_steps_per_period = 40): a whole number from 0 to
// max_steps_per_period, not a cast of whatever double was written there.
std::size_t count_setting(const CompiledModel& compiled, const char* key, double fallback) {
    const double value = compiled.number_setting(key, fallback);
    if (!(value >= 0.0 && value <= max_steps_per_period) || value != std::floor(value)) {
        throw std::invalid_argument(
            fmt::format("annotation(experiment({} = {})): must be a whole number from 0 to {}", key,
                        number(value), number(max_steps_per_period)));
    }
    return static_cast<std::size_t>(value);
}

// The tolerances as resolved (flag, else the annotation's rtol/Tolerance/atol): the flags'
// ranges, so a model's annotation cannot bring in what the flags refuse.
// `pure_absolute`: the method accepts rtol = 0 (dopri5 and CVODE; not the multiscale macros).
void require_tolerances(double rtol, double atol, bool pure_absolute) {
    if (!((pure_absolute ? rtol >= 0.0 : rtol > 0.0) && rtol < 1.0)) {
        throw std::invalid_argument(fmt::format(
            "--rtol (or the annotation's rtol, Tolerance): the relative tolerance must lie in "
            "{}0, 1), got {}",
            pure_absolute ? "[" : "(", number(rtol)));
    }
    if (!(atol > 0.0 && std::isfinite(atol))) {
        throw std::invalid_argument(
            fmt::format("--atol (or the annotation's atol): the absolute tolerance must be "
                        "positive and finite, got {}",
                        number(atol)));
    }
}

// rtol and atol from the flags, else the annotation (rtol, else Tolerance; atol), else the
// defaults they hold; checked when the method uses them (`used`).
void resolve_tolerances(const SimulationSettings& o, const CompiledModel& compiled, double& rtol,
                        double& atol, bool used, bool pure_absolute) {
    rtol = o.rtol.value_or(
        compiled.number_setting("rtol", compiled.number_setting("Tolerance", rtol)));
    atol = o.atol.value_or(compiled.number_setting("atol", atol));
    if (used) {
        require_tolerances(rtol, atol, pure_absolute);
    }
}

// The multiscale runs' tolerance (--rtol, --atol, else the annotation's rtol or Tolerance and
// atol, else 1e-3 and 1e-6) and which settings the control may refine.
Accuracy multiscale_accuracy(const SimulationSettings& o, const CompiledModel& compiled,
                             bool micro_free, bool macro_free) {
    Accuracy a;
    resolve_tolerances(o, compiled, a.rtol, a.atol, true, false);
    a.micro_free = micro_free;
    a.macro_free = macro_free;
    return a;
}

// A setting given by a flag or by the model's annotation: the control keeps it.
bool fixed_setting(const CompiledModel& compiled, bool flag, const char* key) {
    return flag || compiled.has_setting(key);
}

// The CSV's spacing, one setting used by every method: --every N; else the annotation's
// `every`; else its `Interval` as a whole number N of the method's fixed (macro) steps
// `fixed_step`, refused when it is not one (an Interval up to one step: every step). Adaptive
// methods (fixed_step 0) take Interval as their output interval instead (dense output), so here it
// is 1.
std::size_t output_every(const SimulationSettings& o, const CompiledModel& compiled,
                         double fixed_step) {
    if (o.every) {
        return *o.every;
    }
    const bool has_every = compiled.has_setting("every");
    const bool has_interval = compiled.has_setting("Interval");
    const double every = compiled.number_setting("every", 1.0);
    const double interval = compiled.number_setting("Interval", 0.0);
    if (has_every && has_interval) {
        throw std::invalid_argument(
            fmt::format("annotation(experiment(every = {}, Interval = {})): give one output "
                        "spacing, not both (--every overrides them)",
                        number(every), number(interval)));
    }
    if (has_every) {
        const std::size_t n = count_setting(compiled, "every", 1.0);
        if (n == 0) {
            throw std::invalid_argument(
                "annotation(experiment(every = 0)): must be at least 1 (every row)");
        }
        return n;
    }
    if (!has_interval || fixed_step == 0.0) {
        return 1;
    }
    const double steps = interval / fixed_step;
    if (interval > 0.0 && steps <= 1.0) { // no output between steps: every step is written
        return 1;
    }
    const double whole = std::round(steps);
    if (!(interval > 0.0) || !(whole >= 1.0) || !(whole <= max_steps) ||
        std::abs(steps - whole) > 1e-9 * whole) {
        throw std::invalid_argument(fmt::format(
            "annotation(experiment(Interval = {})): the output interval is not a whole number of "
            "steps of {} ({} steps); choose a --step that divides it, or --every N",
            number(interval), number(fixed_step), number(steps)));
    }
    return static_cast<std::size_t>(whole);
}

// The statistics of a run a host's observer ended at a step boundary.
SimulationStatistics stopped(SimulationStatistics& r, const CompiledModel& compiled) {
    r.summary = fmt::format("{} with {}: t = {} to {}, stopped by the observer, {} rows, {:.3f} s",
                            compiled.name(), r.method, r.start, r.stop, r.rows, r.seconds);
    return r;
}

void require_vibration(const CompiledModel& compiled, const std::string& method, const char* why) {
    if (compiled.sizes().vibrations == 0) {
        throw std::invalid_argument(fmt::format("--method {}: model '{}' has no vibration; {}",
                                                method, compiled.name(), why));
    }
}

// The multiscale runs' interval: --start/--stop or the annotation's StartTime/StopTime.
void multiscale_interval(const SimulationSettings& o, const CompiledModel& compiled,
                         SimulationStatistics& r, double& t_end) {
    r.start = o.start.value_or(compiled.number_setting("StartTime", 0.0));
    t_end = o.stop.value_or(compiled.number_setting("StopTime", 1.0));
    r.stop = t_end;
    require_interval(r.start, t_end);
}

// --step (or the annotation's `step`): the macro step of a fixed-step macro-integrator
// (default `fixed`), or the output interval of an adaptive one (default 0: every step).
double macro_step(const SimulationSettings& o, const CompiledModel& compiled, bool adaptive,
                  double fixed, double start, double stop) {
    const double H = o.step.value_or(compiled.number_setting(
        "step", adaptive ? compiled.number_setting("Interval", 0.0) : fixed));
    if (!((H > 0 && std::isfinite(H)) || (adaptive && H == 0))) {
        throw std::invalid_argument(
            fmt::format("--step: the macro step must be positive and finite, got {}", number(H)));
    }
    if (H > 0) {
        step_count(o, start, stop, H, adaptive ? "an output interval of" : "a macro step of");
    } else {
        require_adaptive_span(start, stop);
    }
    return H;
}

// A default macro step `fixed` of a method taking whole macro steps, when neither a flag nor
// the annotation sets it: the largest step up to it that divides the interval (a stop time
// that is no multiple of the default is not refused; the tolerance control refines it).
double default_whole_step(const SimulationSettings& o, const CompiledModel& compiled, double fixed,
                          double start, double stop) {
    if (o.step || compiled.has_setting("step") || !(stop > start) || !std::isfinite(stop - start)) {
        return fixed;
    }
    const double steps = std::max(1.0, std::ceil((stop - start) / fixed - 1e-9));
    return steps <= max_steps ? (stop - start) / steps : fixed;
}

bool tolerances_fixed(const SimulationSettings& o, const CompiledModel& compiled) {
    return o.rtol || o.atol || compiled.has_setting("rtol") || compiled.has_setting("Tolerance") ||
           compiled.has_setting("atol");
}

} // namespace mdl::simulation
