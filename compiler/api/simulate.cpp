// The drivers of every method of `mdl run`: the settings resolved against the model's
// annotation and the method's defaults, checked (messages name the option as the command line
// spells it), the method run and its output rows handed to the host. The command line, `mdl
// sweep`, the C API and the Python module all run simulations through here.
#include "mdl/simulate.hpp"

#include "compiler/api/error_control.hpp"
#include "compiler/api/multiscale_setup.hpp"
#include "compiler/api/option_checks.hpp"
#include "compiler/api/runtime_view.hpp"
#include "runtime/methods.hpp"
#include "runtime/multiscale/hmm.hpp"
#include "runtime/multiscale/stiff_hmm.hpp"
#include "runtime/multiscale/stroboscopic.hpp"
#include "runtime/numerical_failure.hpp"
#include "runtime/output/output_rows.hpp"
#include "runtime/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>
#include <numbers>
#include <string_view>
#include <utility>

namespace mdl {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

bool is_hmm(const std::string& method) {
    return method.rfind("hmm", 0) == 0;
}

// Counts derived from the options are checked before anything is counted with them: a cast
// of 1e300 to std::size_t is undefined (--step 1e-300 ran 0 steps and exited 0), and a
// count this large could not finish anyway. Each limit names the option to change.
constexpr double max_steps = 1e15;           // (macro) steps or output rows of a run
constexpr double max_micro_steps = 1e8;      // micro steps of one averaged force or field
constexpr double max_steps_per_period = 1e8; // --micro-steps-per-period

std::string number(double value) {
    return option_number(value);
}

// A run ended early by one of the host's observers (caught in run_into).
struct Stopped {};

// A run asked for its forecast only (forecast_output): run_into stops before the start.
struct Forecasted {
    std::optional<OutputForecast> forecast;
};

// What the host observes: each output row, each state's time, the forecast; `dry`: forecast
// only, run nothing.
struct Output {
    const RowObserver& rows;
    const StepObserver& steps;
    const ForecastObserver& forecast;
    bool dry = false;
};

// Hands each output row (output_rows.hpp: every N-th state and the last) to the host and each
// state's time to its step observer. When either asks to stop, the state it was given becomes
// the last row (also one --every would skip) and the run ends there: a step boundary, so the
// rows are complete up to that time.
//
// It also projects the number of output states from their mean spacing so far, after 10^3,
// 10^4, ... of them: a run that would write more than max_steps ends (an adaptive method
// writing every step, CVODE among them, has no count known in advance: --stop 1e14 ran for
// days).
struct Observer {
    runtime::OutputRows& rows;
    const OutputLayout& layout;
    const Output& output;
    SimulationStatistics& run;
    std::optional<OutputForecast> forecast; // projected: an adaptive run writing every step
    std::size_t every = 1;
    std::size_t observed = 0, next_projection = 1000;
    bool stop = false;
    std::optional<double> estimate = {}; // multiscale methods: the running error estimate
    void error_estimate(const runtime::multiscale::ErrorParts& parts) {
        if (parts.estimated) {
            estimate = parts.total();
        }
    }
    void running_estimate(double total) { estimate = total; }
    void operator()(const runtime::State& s) {
        if (rows.observe(s)) {
            emit();
        }
        if (!stop && output.steps && !output.steps(s.t)) {
            stop = true;
        }
        if (stop) {
            finish(s);
            throw Stopped{};
        }
        if (++observed == next_projection) {
            next_projection *= 10;
            project(s.t);
        }
    }
    void project(double t) {
        const double done = std::abs(t - run.start);
        const double projected =
            static_cast<double>(observed) * (1.0 + std::abs(run.stop - t) / done);
        if (!(projected <= max_steps)) {
            throw runtime::NumericalFailure(
                runtime::FailureKind::too_many_steps, run.method, t, "",
                fmt::format("at the mean spacing of the {} states so far ({}), reaching t = {} "
                            "would take {} (at most {}); choose an earlier stop time (--stop)",
                            observed, number(done / static_cast<double>(observed)),
                            number(run.stop), number(projected), number(max_steps)));
        }
        if (forecast && output.forecast) {
            forecast->states = observed;
            forecast->rows = std::ceil(projected / static_cast<double>(every)) + 1.0;
            output.forecast(*forecast);
        }
    }
    void event(const runtime::State& s, std::string_view name) {
        rows.event(s);
        emit(name);
    }
    void finish(const runtime::State& s) {
        if (rows.finish(s)) {
            emit();
        }
    }
    void emit(std::string_view event = {}) {
        ++run.rows;
        if (!output.rows) {
            return;
        }
        const std::span<const double> values = rows.values();
        const std::size_t n = layout.positions, k = layout.states, m = layout.constraints;
        OutputRow row;
        row.event = event;
        row.t = values[0];
        row.positions = values.subspan(1, n);
        row.velocities = values.subspan(1 + n, n);
        row.states = values.subspan(1 + 2 * n, k);
        std::size_t next = 1 + 2 * n + k;
        if (layout.residuals) {
            row.residuals = values.subspan(next, m);
            next += m;
        }
        if (layout.multipliers) {
            row.multipliers = values.subspan(next, m);
            next += m;
        }
        if (layout.energy) {
            row.energy = values[next];
        }
        row.values = values;
        row.error_estimate = estimate;
        if (!output.rows(row)) {
            stop = true;
        }
    }
};

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

// Runs `integrate`; a refusal of the period the user gave (a method checks it against the
// vibrations' rates) is reported under the flag's name.
template <class Integrate>
auto naming_period(const SimulationSettings& o, Integrate integrate) {
    try {
        return integrate();
    } catch (const std::invalid_argument& e) {
        if (o.period && std::string_view(e.what()).find("the period ") != std::string_view::npos) {
            throw std::invalid_argument(fmt::format("--period: {}", e.what()));
        }
        throw;
    }
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

// The classical method: --method, else the annotation's, else the runtime's choice.
runtime::Method classical_method(const SimulationSettings& o, const runtime::Model& model,
                                 const std::string& name) {
    if (name.empty()) {
        return runtime::default_method(model);
    }
    if (auto m = runtime::find_method(name)) {
        return *m;
    }
    if (o.method) {
        throw std::invalid_argument("--method: " + runtime::unknown_method_message(name));
    }
    throw std::invalid_argument(
        fmt::format("the model's experiment annotation asks for method '{}', which this version "
                    "of mdl does not provide; choose one with --method ({})",
                    name, runtime::unknown_method_message(name)));
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

runtime::IntegrationStats integration_of(const runtime::IntegrationStats& stats) {
    return stats;
}
template <class Stats>
runtime::IntegrationStats integration_of(const Stats& stats) {
    return stats.integration();
}

// What every method shares: the forecast, the start state, the output rows, the observer, the
// wall time and the counts of the statistics. `spacing`: the time between the states the
// method observes (its fixed step or output interval; 0: every step of an adaptive method).
// `integrate(state, observer)` runs the method and returns its stats; nothing when a host's
// observer stopped the run.
template <class Integrate>
auto run_into(SimulationStatistics& r, const CompiledModel& compiled, const runtime::Model& model,
              std::size_t every, double spacing, const Output& output, Integrate integrate)
    -> std::optional<decltype(integrate(std::declval<runtime::State&>(),
                                        std::declval<Observer&>()))> {
    const OutputLayout layout = output_layout(compiled);
    OutputForecast forecast;
    forecast.columns = layout.columns.size() + (layout.events ? 1 : 0);
    if (spacing > 0.0) {
        // the start state, a state each `spacing` (the last one possibly shorter), every
        // `every`-th of them written and the last one
        // as runtime/integrate.hpp's integrate_fixed counts them
        const double count = (r.stop - r.start) / spacing;
        const double rounded = std::max(1.0, std::round(count));
        const double steps =
            std::abs(count - rounded) <= 1e-9 * std::max(1.0, count) ? rounded : std::ceil(count);
        forecast.rows = std::ceil(steps / static_cast<double>(every)) + 1.0;
        if (output.dry) {
            throw Forecasted{forecast};
        }
        if (output.forecast) {
            output.forecast(forecast);
        }
    } else if (output.dry) {
        throw Forecasted{};
    }
    runtime::State state = initial_state(compiled, model, r.start, &r.notes);
    runtime::OutputOptions output_options;
    output_options.every = every;
    runtime::OutputRows rows(model, output_options);
    if (spacing <= 0.0) {
        forecast.projected = true;
    }
    Observer observer{
        rows, layout, output, r, spacing <= 0.0 ? std::optional(forecast) : std::nullopt, every};
    auto began = Clock::now();
    try {
        auto stats = integrate(state, observer);
        r.seconds = seconds_since(began);
        const runtime::IntegrationStats counts = integration_of(stats);
        r.steps = counts.steps;
        r.rejected = counts.rejected;
        r.force_evaluations = counts.force_evaluations;
        return stats;
    } catch (const Stopped&) {
        r.seconds = seconds_since(began);
        r.stopped = true;
        return std::nullopt;
    }
}

// "; events: b.y <= 0 x 62 (rest 1)", or nothing for a model without events.
std::string event_summary(const runtime::Model& model, const runtime::IntegrationStats& stats) {
    std::string out;
    for (std::size_t k = 0; k < stats.event_counts.size(); ++k) {
        out += fmt::format("{}{} x {}", out.empty() ? "; events: " : ", ", model.events()[k].name,
                           stats.event_counts[k]);
        if (k < stats.event_rests.size() && stats.event_rests[k] > 0) {
            out += fmt::format(" (at rest {} times)", stats.event_rests[k]);
        }
        if (k < stats.event_projections.size() && stats.event_projections[k] > 0) {
            out += fmt::format(" (velocity projected onto the constraints {} times)",
                               stats.event_projections[k]);
        }
    }
    if (stats.largest_event_projection > 0.0) {
        out += fmt::format(" (largest velocity change of a projection {:.3g})",
                           stats.largest_event_projection);
    }
    return out + (stats.terminated
                      ? fmt::format("; ended by terminate(\"{}\")", stats.terminate_message)
                      : "");
}

// The statistics of a run a host's observer ended at a step boundary.
SimulationStatistics stopped(SimulationStatistics& r, const CompiledModel& compiled) {
    r.summary = fmt::format("{} with {}: t = {} to {}, stopped by the observer, {} rows, {:.3f} s",
                            compiled.name(), r.method, r.start, r.stop, r.rows, r.seconds);
    return r;
}

SimulationStatistics run_classical(const SimulationSettings& o, const CompiledModel& compiled,
                                   const runtime::Model& model, const std::string& method_name,
                                   const Output& output) {
    runtime::RunSettings settings;
    settings.method = classical_method(o, model, method_name);
    const runtime::MethodInfo& info = runtime::info(settings.method);
    SimulationStatistics r;
    r.method = info.name;
    r.start = o.start.value_or(compiled.number_setting("StartTime", 0.0));
    settings.stop_time = o.stop.value_or(compiled.number_setting("StopTime", 1.0));
    r.stop = settings.stop_time;
    settings.step = o.step.value_or(compiled.number_setting(
        "step", info.adaptive ? compiled.number_setting("Interval", 0.0) : 1e-3));
    resolve_tolerances(o, compiled, settings.adaptive.rtol, settings.adaptive.atol, info.adaptive,
                       true);
    settings.rho_inf = o.rho_inf.value_or(compiled.number_setting("rho_inf", settings.rho_inf));
    settings.solver.constraint_tolerance =
        o.constraint_tol.value_or(settings.solver.constraint_tolerance);
    require_interval(r.start, settings.stop_time);
    if (!info.adaptive) {
        if (!(settings.step > 0) || !std::isfinite(settings.step)) {
            throw std::invalid_argument(
                fmt::format("--step: must be positive and finite, got {}", number(settings.step)));
        }
        step_count(o, r.start, settings.stop_time, settings.step, "a step of");
    } else if (settings.step != 0.0) { // the output interval; 0: every step
        if (!(settings.step > 0) || !std::isfinite(settings.step)) {
            throw std::invalid_argument(fmt::format(
                "--step: the output interval of an adaptive method must be positive and finite "
                "(or 0: every step), got {}",
                number(settings.step)));
        }
        step_count(o, r.start, settings.stop_time, settings.step, "an output interval of");
    } else {
        require_adaptive_span(r.start, settings.stop_time);
    }
    const std::size_t every = output_every(o, compiled, info.adaptive ? 0.0 : settings.step);
    const auto ran = run_into(r, compiled, model, every, settings.step, output,
                              [&](runtime::State& state, auto& observer) {
                                  return runtime::run(model, state, settings, observer);
                              });
    if (!ran) {
        return stopped(r, compiled);
    }
    const runtime::IntegrationStats& stats = *ran;
    r.summary = fmt::format("{} with {}: t = {} to {}, {} steps{}, {} rows, {:.3f} s",
                            compiled.name(), info.name, r.start, r.stop, stats.steps,
                            info.adaptive ? fmt::format(" ({} rejected)", stats.rejected) : "",
                            r.rows, r.seconds) +
                event_summary(model, stats);
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

// --macro (rk4 or dopri5, or the annotation's `macro`) parsed by the method's own parser, the
// error naming the option.
template <class Parse>
auto macro_integrator(const SimulationSettings& o, const CompiledModel& compiled, Parse parse) {
    try {
        return parse(o.macro.value_or(compiled.text_setting("macro", "rk4")));
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(fmt::format("--macro: {}", e.what()));
    }
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

// HMM: a macro step H of the averaged motion; each averaged force from a micro-integration of
// the model over a window of fast periods (docs/hmm.md).
runtime::multiscale::HmmOptions hmm_options(const SimulationSettings& o,
                                            const CompiledModel& compiled,
                                            const std::string& method, SimulationStatistics& r) {
    namespace ms = runtime::multiscale;
    require_vibration(compiled, method, "HMM averages over a vibration's fast period");
    ms::HmmOptions options;
    options.macro = ms::parse_hmm_method(method);
    options.algorithm =
        ms::parse_hmm_algorithm(o.algorithm.value_or(compiled.text_setting("algorithm", "async")));
    options.filter =
        ms::parse_filter_kind(o.filter.value_or(compiled.text_setting("filter", "simple")));
    require_positive("--window", o.window, "the filter window in fast periods");
    options.window_periods = o.window.value_or(compiled.number_setting("window", 0.0));
    multiscale_interval(o, compiled, r, options.t_end);
    options.macro_step = macro_step(
        o, compiled, false, default_whole_step(o, compiled, 1.0 / 80, r.start, options.t_end),
        r.start, options.t_end);
    require_whole_steps(o, r.start, options.t_end, options.macro_step, method);
    options.macro_time_scale =
        o.macro_time.value_or(compiled.number_setting("macro_time_scale", 1.0));
    if (!(options.macro_time_scale > 0.0) || !std::isfinite(options.macro_time_scale)) {
        throw std::invalid_argument(fmt::format("--macro-time: T_macro must be positive and "
                                                "finite, got {}",
                                                number(options.macro_time_scale)));
    }
    options.micro_steps_per_period =
        o.micro_steps_per_period.value_or(count_setting(compiled, "micro_steps_per_period", 0.0));
    {
        // the paper's default: T_macro/H micro steps per period (hmm.cpp)
        const double per_period = options.micro_steps_per_period > 0
                                      ? static_cast<double>(options.micro_steps_per_period)
                                      : std::round(options.macro_time_scale / options.macro_step);
        const double window = options.window_periods > 0.0               ? options.window_periods
                              : options.filter == ms::FilterKind::simple ? 1.0
                              : options.filter == ms::FilterKind::spline ? 3.0
                                                                         : 40.0;
        require_micro_steps(options.micro_steps_per_period > 0 ? "--micro-steps-per-period"
                                                               : "--macro-time",
                            per_period, window);
    }
    options.force_even_in_phase = compiled.force_even_in_all_phases();
    require_positive("--period", o.period, "the common fast period");
    options.period = o.period.value_or(0.0); // (not an annotation key: the checker ignores it)
    if (o.constraint_tol) {
        options.solver.constraint_tolerance = *o.constraint_tol;
    }
    return options;
}

// "a; b": the refinements a controlled run made, for its summary.
void add_note(std::string& notes, const std::string& note) {
    notes += (notes.empty() ? "" : "; ") + note;
}

// The micro part's refinement, shared by hmm, strobo and hmm-stiff: `current` micro steps per
// period raised, for a micro method of `order`, until the micro error meets a quarter of the
// tolerance, into `steps`; false when more than 10^5 would be needed.
bool refine_micro_steps(std::size_t current, std::size_t& steps, const ErrorEstimate& e, int order,
                        std::string& notes) {
    const std::size_t n = refined_count(current, e.micro, e.tolerance / 4.0, order, 1e5);
    if (n == 0) {
        return false;
    }
    add_note(notes, fmt::format("micro steps per period {} -> {}", current, n));
    steps = n;
    return true;
}

// The macro part's refinement, shared by hmm, strobo and hmm-stiff: the macro step H of a
// macro method of `order` reduced until the macro error meets half the tolerance (to a whole
// number of steps over `span` when `whole_steps`); false when more than 10^6 steps would be
// needed.
bool refine_macro_step(double& H, double span, bool whole_steps, const ErrorEstimate& e, int order,
                       std::string& notes) {
    double refined = refined_step(H, e.macro, e.tolerance / 2.0, order);
    if (whole_steps) {
        const double steps = std::ceil(span / refined - 1e-9);
        if (!(steps <= 1e6)) {
            return false;
        }
        refined = span / steps;
    } else if (!(span / refined <= 1e6)) {
        return false;
    }
    add_note(notes, fmt::format("H {:g} -> {:g}", H, refined));
    H = refined;
    return true;
}

SimulationStatistics run_hmm(const SimulationSettings& o, const CompiledModel& compiled,
                             const runtime::Model& model, const std::string& method,
                             const Output& output) {
    namespace ms = runtime::multiscale;
    SimulationStatistics r;
    r.method = method;
    ms::HmmOptions options = hmm_options(o, compiled, method, r);
    options.estimate_error = true;
    // The micro step follows a fixed H by default (the paper's h = (2 pi/omega) H/T_macro), so
    // a fixed H fixes it too. SHAKE's micro-forces carry the Newton tolerance of the
    // constraints times omega^2 as noise, which the comparison with h/2 measures at fine micro
    // steps: hmm-shake and hmm-rattle report their micro part but do not refine it.
    const bool macro_free = !fixed_setting(compiled, o.step.has_value(), "step");
    const Accuracy accuracy = multiscale_accuracy(
        o, compiled,
        method == "hmm" && macro_free &&
            !fixed_setting(compiled, o.micro_steps_per_period.has_value(),
                           "micro_steps_per_period") &&
            !fixed_setting(compiled, o.macro_time.has_value(), "macro_time_scale"),
        macro_free);
    const double span = options.t_end - r.start;
    // micro: more micro steps per period (velocity Verlet and SHAKE: order 2); macro: a smaller
    // H dividing the interval, the micro step kept
    const auto refine = [&](ErrorPart part, const ErrorEstimate& e, const ms::HmmStats& st,
                            std::string& notes) {
        if (part == ErrorPart::micro && accuracy.micro_free) {
            return refine_micro_steps(st.micro_steps_per_period, options.micro_steps_per_period, e,
                                      2, notes);
        }
        if (part == ErrorPart::macro && accuracy.macro_free &&
            refine_macro_step(options.macro_step, span, true, e, 2, notes)) {
            options.micro_steps_per_period = st.micro_steps_per_period;
            return true;
        }
        return false;
    };
    ErrorEstimate estimate;
    std::string notes;
    const std::size_t every = output_every(o, compiled, options.macro_step);
    const auto ran = run_into(r, compiled, model, every, options.macro_step, output,
                              [&](runtime::State& state, auto& observer) {
                                  return naming_period(o, [&] {
                                      return controlled_run(
                                          state, observer, accuracy, method, options.t_end,
                                          [&](runtime::State& s, auto& recorder) {
                                              return ms::run_hmm(model, s, options, recorder);
                                          },
                                          refine, estimate, notes);
                                  });
                              });
    if (!ran) {
        return stopped(r, compiled);
    }
    const ms::HmmStats& stats = *ran;
    r.micro_steps = stats.micro_steps;
    r.error_estimate = estimate;
    const bool half = stats.half_window;
    r.summary =
        fmt::format("{} with {} ({}, {} filter{}): t = {} to {}, {} macro steps of {:g}, {} "
                    "micro-steps (h = {:g}, {} per force), {} force evaluations, {:.3f} s",
                    compiled.name(), method, ms::to_string(options.algorithm),
                    ms::to_string(options.filter),
                    half ? ", half window: force even in the phase" : "", r.start, options.t_end,
                    stats.macro_steps, options.macro_step, stats.micro_steps, stats.micro_step,
                    stats.micro_steps_per_window, stats.force_evaluations, r.seconds) +
        summarize_estimate(estimate, notes, stats.force_evaluations);
    return r;
}

// Stroboscopic averaging: the averaged field from central differences of the period map of
// micro-integrations that all start at phase theta(t0) (docs/stroboscopic.md).
runtime::multiscale::StroboscopicOptions strobo_options(const SimulationSettings& o,
                                                        const CompiledModel& compiled,
                                                        SimulationStatistics& r) {
    namespace ms = runtime::multiscale;
    require_vibration(compiled, "strobo",
                      "stroboscopic averaging samples the motion once per fast period");
    ms::StroboscopicOptions options;
    // (compared as a double: a cast of the annotation's order = 1e300 to int is undefined)
    const double order = o.order ? *o.order : compiled.number_setting("order", 4);
    if (order != 2 && order != 4) {
        throw std::invalid_argument(
            fmt::format("--order: the differencing order must be 2 or 4, got {}", number(order)));
    }
    options.order = static_cast<int>(order);
    options.macro = macro_integrator(o, compiled, ms::parse_stroboscopic_macro);
    if (o.micro || !compiled.text_setting("micro", "").empty()) {
        try {
            options.micro = ms::parse_stroboscopic_micro(
                o.micro.value_or(compiled.text_setting("micro", "auto")));
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(fmt::format("--micro: {}", e.what()));
        }
    }
    multiscale_interval(o, compiled, r, options.t_end);
    const bool adaptive = options.macro == ms::StroboscopicMacro::dopri5;
    options.macro_step =
        macro_step(o, compiled, adaptive, std::numbers::pi / 50.0, r.start, options.t_end);
    options.whole_steps = false; // the run ends at the stop time
    options.micro_steps_per_period =
        o.micro_steps_per_period.value_or(count_setting(compiled, "micro_steps_per_period", 10.0));
    // one period map per field evaluation: the window is one period
    require_micro_steps("--micro-steps-per-period",
                        static_cast<double>(options.micro_steps_per_period), 1.0);
    resolve_tolerances(o, compiled, options.rtol, options.atol, adaptive, false);
    require_positive("--period", o.period, "the common fast period");
    options.period = o.period.value_or(0.0); // (not an annotation key: the checker ignores it)
    return options;
}

// The micro-integrator's order (Richardson's factor and the refinement of the micro steps).
int micro_order(runtime::multiscale::StroboscopicMicro micro) {
    using runtime::multiscale::StroboscopicMicro;
    return micro == StroboscopicMicro::verlet              ? 2
           : micro == StroboscopicMicro::half_explicit_rk3 ? 3
                                                           : 4;
}

// The dopri5 macro's tolerances scaled to bring its part of the estimate to `target`.
void tighten(double& rtol, double& atol, double error, double target, std::string& notes) {
    const double factor = std::clamp(0.5 * target / error, 1e-3, 0.3);
    add_note(notes, fmt::format("macro rtol {:g} -> {:g}", rtol, rtol * factor));
    rtol *= factor;
    atol *= factor;
}

bool tolerances_fixed(const SimulationSettings& o, const CompiledModel& compiled) {
    return o.rtol || o.atol || compiled.has_setting("rtol") || compiled.has_setting("Tolerance") ||
           compiled.has_setting("atol");
}

SimulationStatistics run_strobo(const SimulationSettings& o, const CompiledModel& compiled,
                                const runtime::Model& model, const Output& output) {
    namespace ms = runtime::multiscale;
    SimulationStatistics r;
    r.method = "strobo";
    ms::StroboscopicOptions options = strobo_options(o, compiled, r);
    options.estimate_error = true;
    const bool adaptive = options.macro == ms::StroboscopicMacro::dopri5;
    const Accuracy accuracy = multiscale_accuracy(
        o, compiled,
        !fixed_setting(compiled, o.micro_steps_per_period.has_value(), "micro_steps_per_period"),
        adaptive ? !tolerances_fixed(o, compiled)
                 : !fixed_setting(compiled, o.step.has_value(), "step"));
    const auto refine = [&](ErrorPart part, const ErrorEstimate& e, const ms::StroboscopicStats& st,
                            std::string& notes) {
        if (part == ErrorPart::micro && accuracy.micro_free) {
            return refine_micro_steps(options.micro_steps_per_period,
                                      options.micro_steps_per_period, e, micro_order(st.micro),
                                      notes);
        }
        if (part == ErrorPart::macro && accuracy.macro_free) {
            if (adaptive) {
                tighten(options.rtol, options.atol, e.macro, e.tolerance / 2.0, notes);
                return true;
            }
            return refine_macro_step(options.macro_step, options.t_end - r.start, false, e, 4,
                                     notes);
        }
        return false;
    };
    ErrorEstimate estimate;
    std::string notes;
    const std::size_t every = output_every(o, compiled, adaptive ? 0.0 : options.macro_step);
    const auto ran =
        run_into(r, compiled, model, every, options.macro_step, output,
                 [&](runtime::State& state, auto& observer) {
                     return naming_period(o, [&] {
                         return controlled_run(
                             state, observer, accuracy, "strobo", options.t_end,
                             [&](runtime::State& s, auto& recorder) {
                                 return ms::run_stroboscopic(model, s, options, recorder);
                             },
                             refine, estimate, notes);
                     });
                 });
    if (!ran) {
        return stopped(r, compiled);
    }
    const ms::StroboscopicStats& stats = *ran;
    r.micro_steps = stats.micro_steps;
    r.error_estimate = estimate;
    r.summary = fmt::format(
        "{} with strobo (order {}, {} macro, {} micro): t = {} to {}, {} macro steps{}, {} "
        "averaged fields, {} micro-steps (h = {:g}, {} per field), {} force evaluations, {}, "
        "{:.3f} s",
        compiled.name(), options.order, ms::to_string(options.macro), ms::to_string(stats.micro),
        r.start, options.t_end, stats.macro_steps,
        adaptive ? fmt::format(" ({} rejected)", stats.rejected_steps) : "",
        stats.field_evaluations, stats.micro_steps, stats.micro_step, stats.micro_steps_per_field,
        stats.force_evaluations,
        stats.stroboscopic_outputs ? "outputs at stroboscopic times"
                                   : "outputs not all at stroboscopic times (see "
                                     "docs/stroboscopic.md)",
        r.seconds);
    if (model.constrained()) {
        r.summary += fmt::format("; max |g| = {:.2g}, max |G v| = {:.2g} at the outputs",
                                 stats.max_position_residual, stats.max_velocity_residual);
    }
    r.summary += summarize_estimate(estimate, notes, stats.force_evaluations);
    return r;
}

// HMM for stiff springs: the slow motion from kernel averages of micro-integrations forwards
// and backwards from the macro state (docs/stiff_hmm.md).
runtime::multiscale::StiffHmmOptions stiff_hmm_options(const SimulationSettings& o,
                                                       const CompiledModel& compiled,
                                                       SimulationStatistics& r,
                                                       std::string& omega_source) {
    namespace ms = runtime::multiscale;
    ms::StiffHmmOptions options;
    options.macro = macro_integrator(o, compiled, ms::parse_stiff_macro);
    const bool adaptive = options.macro == ms::StiffMacro::dopri5;
    multiscale_interval(o, compiled, r, options.t_end);
    options.macro_step = macro_step(
        o, compiled, adaptive,
        adaptive ? 1.0 / 32 : default_whole_step(o, compiled, 1.0 / 32, r.start, options.t_end),
        r.start, options.t_end);
    if (!adaptive) {
        require_whole_steps(o, r.start, options.t_end, options.macro_step, "hmm-stiff");
    }
    // the fast frequency: --omega, else the relaxed constraints', else the model's fastest spring
    omega_source = "--omega";
    if (o.omega) {
        options.omega = *o.omega;
    } else if (o.relax_constraints) {
        options.omega = *o.relax_constraints;
        omega_source = "--relax-constraints";
    } else {
        for (const FastScale& scale : compiled.fast_scales()) {
            if (scale.source.rfind("spring", 0) == 0 && scale.omega > options.omega) {
                options.omega = scale.omega;
                omega_source = scale.source;
            }
        }
        if (options.omega == 0.0) {
            throw std::invalid_argument(fmt::format(
                "--method hmm-stiff: model '{}' has no spring marked `fast`; give the fast "
                "frequency with --omega, or relax its constraints with --relax-constraints OMEGA",
                compiled.name()));
        }
    }
    // the fast period 2 pi/omega sets the window: it must be a normal number
    const double fast_period = 2.0 * std::numbers::pi / options.omega;
    if (!(options.omega > 0) || !std::isfinite(options.omega) || !std::isnormal(fast_period)) {
        throw std::invalid_argument(fmt::format(
            "{}: the fast frequency must be positive with a finite period 2 pi/omega, got {}",
            omega_source, number(options.omega)));
    }
    require_positive("--window", o.window, "the kernel window in fast periods");
    options.window_periods = o.window.value_or(compiled.number_setting("window", 20.0));
    options.micro_steps_per_period =
        o.micro_steps_per_period.value_or(count_setting(compiled, "micro_steps_per_period", 6.0));
    require_micro_steps("--micro-steps-per-period",
                        static_cast<double>(options.micro_steps_per_period),
                        options.window_periods);
    if (o.reproject_every && !(*o.reproject_every >= 0.0 && std::isfinite(*o.reproject_every))) {
        throw std::invalid_argument(
            fmt::format("--reproject-every: must be a finite time >= 0 (0: never), got {}",
                        number(*o.reproject_every)));
    }
    options.reproject_every =
        o.reproject_every.value_or(compiled.number_setting("reproject_every", 0.0));
    if (!adaptive && options.reproject_every > 0.0) { // rk4: every whole number of macro steps
        const double per = options.reproject_every / options.macro_step;
        if (!(std::round(per) >= 1.0) || !(per <= max_steps) ||
            std::abs(per - std::round(per)) > 1e-9 * std::max(1.0, per)) {
            throw std::invalid_argument(fmt::format(
                "--reproject-every: with the rk4 macro the re-projection interval must be a whole "
                "number of macro steps H = {} (at most {}), got {} ({} steps)",
                number(options.macro_step), number(max_steps), number(options.reproject_every),
                number(per)));
        }
    }
    resolve_tolerances(o, compiled, options.rtol, options.atol, adaptive, false);
    return options;
}

SimulationStatistics run_stiff_hmm(const SimulationSettings& o, const CompiledModel& compiled,
                                   const runtime::Model& model, const Output& output) {
    namespace ms = runtime::multiscale;
    SimulationStatistics r;
    r.method = "hmm-stiff";
    std::string omega_source;
    ms::StiffHmmOptions options = stiff_hmm_options(o, compiled, r, omega_source);
    options.estimate_error = true;
    const bool adaptive = options.macro == ms::StiffMacro::dopri5;
    // the micro steps are not refined: the fast force's errors they make are filtered out
    // (Sanz-Serna, Ariel & Tsai, the remark on the micro-integrations' accuracy)
    const Accuracy accuracy =
        multiscale_accuracy(o, compiled, false,
                            adaptive ? !tolerances_fixed(o, compiled)
                                     : !fixed_setting(compiled, o.step.has_value(), "step") &&
                                           options.reproject_every == 0.0);
    const double span = options.t_end - r.start;
    const auto refine = [&](ErrorPart part, const ErrorEstimate& e, const ms::StiffHmmStats&,
                            std::string& notes) {
        if (part == ErrorPart::micro && accuracy.micro_free) {
            return refine_micro_steps(options.micro_steps_per_period,
                                      options.micro_steps_per_period, e, 2, notes);
        }
        if (part == ErrorPart::macro && accuracy.macro_free) {
            if (adaptive) {
                tighten(options.rtol, options.atol, e.macro, e.tolerance / 2.0, notes);
                return true;
            }
            return refine_macro_step(options.macro_step, span, true, e, 4, notes);
        }
        return false;
    };
    ErrorEstimate estimate;
    std::string notes;
    const std::size_t every = output_every(o, compiled, adaptive ? 0.0 : options.macro_step);
    const auto ran = run_into(r, compiled, model, every, options.macro_step, output,
                              [&](runtime::State& state, auto& observer) {
                                  return controlled_run(
                                      state, observer, accuracy, "hmm-stiff", options.t_end,
                                      [&](runtime::State& s, auto& recorder) {
                                          return ms::run_stiff_hmm(model, s, options, recorder);
                                      },
                                      refine, estimate, notes);
                              });
    if (!ran) {
        return stopped(r, compiled);
    }
    const ms::StiffHmmStats& stats = *ran;
    r.micro_steps = stats.micro_steps;
    r.error_estimate = estimate;
    r.summary =
        fmt::format("{} with hmm-stiff ({} macro, omega = {:g} from {}): t = {} to {}, {} macro "
                    "steps accepted, {} rejected, {} averaged forces, {} projections, {} "
                    "micro-steps (h = {:g}, {} per force), {} force evaluations, {:.3f} s",
                    compiled.name(), ms::to_string(options.macro), options.omega, omega_source,
                    r.start, options.t_end, stats.macro_steps, stats.rejected_steps,
                    stats.force_estimates, stats.projections, stats.micro_steps, stats.micro_step,
                    stats.micro_steps_per_window, stats.force_evaluations, r.seconds) +
        summarize_estimate(estimate, notes, stats.force_evaluations);
    return r;
}

} // namespace

bool is_multiscale_method(std::string_view method) {
    return method == "strobo" || method.starts_with("hmm");
}

MultiscaleSetup multiscale_setup(const SimulationSettings& settings, const CompiledModel& compiled,
                                 const std::string& method) {
    validate_settings(settings);
    MultiscaleSetup setup;
    setup.method = method;
    SimulationStatistics r;
    if (method == "strobo") {
        setup.options = strobo_options(settings, compiled, r);
    } else if (method == "hmm-stiff") {
        setup.options = stiff_hmm_options(settings, compiled, r, setup.omega_source);
    } else if (is_hmm(method)) {
        setup.options = hmm_options(settings, compiled, method, r);
    } else {
        throw std::invalid_argument("not a multiscale method: " + method);
    }
    setup.start = r.start;
    setup.stop = r.stop;
    return setup;
}

NumericalFailure::NumericalFailure(const std::string& message, std::string kind, std::string method,
                                   double time, std::string where, std::string detail)
    : std::runtime_error(message), kind_(std::move(kind)), method_(std::move(method)), time_(time),
      where_(std::move(where)), detail_(std::move(detail)) {}

std::vector<double> SimulationResult::column(std::string_view name) const {
    const auto& columns = layout.columns;
    const auto found = std::find(columns.begin(), columns.end(), name);
    if (found == columns.end()) {
        throw std::invalid_argument(fmt::format("no column '{}' in the result; its columns are {}",
                                                name, fmt::join(columns, ", ")));
    }
    const std::size_t c = static_cast<std::size_t>(found - columns.begin());
    const std::size_t n = layout.positions, k = layout.states, m = layout.constraints;
    const auto strided = [&](const std::vector<double>& matrix, std::size_t width, std::size_t j) {
        std::vector<double> out(rows());
        for (std::size_t i = 0; i < out.size(); ++i) {
            out[i] = matrix[i * width + j];
        }
        return out;
    };
    if (c == 0) {
        return t;
    }
    if (c < 1 + n) {
        return strided(positions, n, c - 1);
    }
    if (c < 1 + 2 * n) {
        return strided(velocities, n, c - 1 - n);
    }
    if (c < 1 + 2 * n + k) {
        return strided(states, k, c - 1 - 2 * n);
    }
    std::size_t next = 1 + 2 * n + k;
    if (layout.residuals) {
        if (c < next + m) {
            return strided(residuals, m, c - next);
        }
        next += m;
    }
    if (layout.multipliers && c < next + m) {
        return strided(multipliers, m, c - next);
    }
    return energy;
}

OutputLayout output_layout(const CompiledModel& compiled) {
    const runtime::Model model = runtime_model(compiled);
    const runtime::OutputRows rows(model);
    OutputLayout layout;
    layout.columns = rows.columns();
    layout.positions = static_cast<std::size_t>(model.positions());
    layout.states = static_cast<std::size_t>(model.states());
    layout.constraints = static_cast<std::size_t>(model.constraints());
    layout.residuals = rows.residuals();
    layout.multipliers = rows.multipliers();
    layout.energy = rows.energy();
    layout.events = model.has_events();
    return layout;
}

namespace {

SimulationStatistics run_method(const CompiledModel& compiled, const SimulationSettings& settings,
                                const Output& output) {
    validate_settings(settings);
    const runtime::Model model = runtime_model(compiled);
    const std::string method = settings.method.value_or(compiled.text_setting("method", ""));
    try {
        if (method == "strobo") {
            return run_strobo(settings, compiled, model, output);
        }
        if (method == "hmm-stiff") {
            return run_stiff_hmm(settings, compiled, model, output);
        }
        if (is_hmm(method)) {
            return run_hmm(settings, compiled, model, method, output);
        }
        return run_classical(settings, compiled, model, method, output);
    } catch (const runtime::NumericalFailure& e) {
        throw NumericalFailure(e.what(), std::string(runtime::to_string(e.kind())), e.method(),
                               e.time(), e.where(), e.detail());
    }
}

} // namespace

SimulationStatistics simulate(const CompiledModel& compiled, const SimulationSettings& settings,
                              const RowObserver& rows, const StepObserver& steps) {
    return simulate(compiled, settings, rows, steps, {});
}

SimulationStatistics simulate(const CompiledModel& compiled, const SimulationSettings& settings,
                              const RowObserver& rows, const StepObserver& steps,
                              const ForecastObserver& forecast) {
    return run_method(compiled, settings, Output{rows, steps, forecast});
}

std::optional<OutputForecast> forecast_output(const CompiledModel& compiled,
                                              const SimulationSettings& settings) {
    const RowObserver rows;
    const StepObserver steps;
    const ForecastObserver forecast;
    try {
        run_method(compiled, settings, Output{rows, steps, forecast, true});
    } catch (const Forecasted& f) {
        return f.forecast;
    }
    throw std::logic_error("forecast_output: the method ran instead of forecasting");
}

SimulationResult simulate(const CompiledModel& compiled, const SimulationSettings& settings) {
    SimulationResult result;
    result.layout = output_layout(compiled);
    const auto append = [](std::vector<double>& to, std::span<const double> values) {
        to.insert(to.end(), values.begin(), values.end());
    };
    result.statistics = simulate(compiled, settings, [&](const OutputRow& row) {
        result.t.push_back(row.t);
        append(result.positions, row.positions);
        append(result.velocities, row.velocities);
        append(result.states, row.states);
        append(result.residuals, row.residuals);
        append(result.multipliers, row.multipliers);
        if (row.energy) {
            result.energy.push_back(*row.energy);
        }
        return true;
    });
    return result;
}

} // namespace mdl
