#include "simulation.hpp"

#include "exit_status.hpp"
#include "interruption.hpp"
#include "runtime/methods.hpp"
#include "runtime/multiscale/hmm.hpp"
#include "runtime/multiscale/stiff_hmm.hpp"
#include "runtime/multiscale/stroboscopic.hpp"
#include "runtime/numerical_failure.hpp"
#include "runtime/output/csv_writer.hpp"
#include "runtime/run.hpp"
#include "simulation_setup.hpp"

#include <charconv>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <numbers>
#include <string_view>

namespace mdl::cli {

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
    return runtime::format_number(value);
}

// Writes every output state to the CSV, remembers the last one and reports progress. After a
// SIGINT/SIGTERM it writes the state it was given (also one --every would skip) and ends the
// run there: a step boundary, so the CSV is complete up to that time.
//
// It also projects the number of output states from their mean spacing so far, after 10^3,
// 10^4, ... of them: a run that would write more than max_steps ends (an adaptive method
// writing every step, CVODE among them, has no count known in advance: --stop 1e14 ran for
// days).
struct Observer {
    runtime::CsvWriter& csv;
    const ProgressCallback& progress;
    runtime::State& last;
    const SimulationResult& run;
    std::size_t observed = 0, next_projection = 1000;
    void operator()(const runtime::State& s) {
        csv(s);
        last = s;
        if (const int signal = interruption_signal()) {
            csv.finish(s);
            throw Interrupted(s.t, signal, csv.rows());
        }
        if (++observed == next_projection) {
            next_projection *= 10;
            project(s.t);
        }
        if (progress) {
            progress(s.t);
        }
    }
    void project(double t) const {
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
    }
    void event(const runtime::State& s, std::string_view name) {
        csv.event(s, name);
        last = s;
    }
    void finish(const runtime::State& s) {
        csv.finish(s);
        last = s;
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

// A flag's value that must be a positive finite number.
void require_positive(const char* option, const std::optional<double>& value, const char* what) {
    if (value && !(*value > 0.0 && std::isfinite(*value))) {
        throw std::invalid_argument(fmt::format("{}: {} must be positive and finite, got {}",
                                                option, what, number(*value)));
    }
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

runtime::CsvWriter csv_writer(std::ostream& out, const runtime::Model& model, std::size_t every) {
    runtime::CsvOptions csv_options;
    csv_options.every = every;
    return runtime::CsvWriter(out, model, csv_options);
}

runtime::IntegrationStats integration_of(const runtime::IntegrationStats& stats) {
    return stats;
}
template <class Stats>
runtime::IntegrationStats integration_of(const Stats& stats) {
    return stats.integration();
}

// What every method shares: the start state, the CSV, the observer, the wall time and the
// counts of the result. `integrate(state, observer)` runs the method and returns its stats.
template <class Integrate>
auto run_into(SimulationResult& r, const CompiledModel& compiled, const runtime::Model& model,
              std::size_t every, std::ostream& out, const ProgressCallback& progress,
              Integrate integrate) {
    runtime::State state = initial_state(compiled, model, r.start);
    runtime::CsvWriter csv = csv_writer(out, model, every);
    Observer observer{csv, progress, r.final_state, r};
    auto began = Clock::now();
    auto stats = integrate(state, observer);
    r.seconds = seconds_since(began);
    const runtime::IntegrationStats counts = integration_of(stats);
    r.steps = counts.steps;
    r.rejected = counts.rejected;
    r.force_evaluations = counts.force_evaluations;
    r.rows = csv.rows();
    return stats;
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
    }
    return out + (stats.terminated
                      ? fmt::format("; ended by terminate(\"{}\")", stats.terminate_message)
                      : "");
}

SimulationResult run_classical(const SimulationSettings& o, const CompiledModel& compiled,
                               const runtime::Model& model, const std::string& method_name,
                               std::ostream& out, const ProgressCallback& progress) {
    runtime::RunSettings settings;
    settings.method = classical_method(o, model, method_name);
    const runtime::MethodInfo& info = runtime::info(settings.method);
    SimulationResult r;
    r.method = info.name;
    r.start = o.start.value_or(compiled.number_setting("StartTime", 0.0));
    settings.stop_time = o.stop.value_or(compiled.number_setting("StopTime", 1.0));
    r.stop = settings.stop_time;
    settings.step = o.step.value_or(compiled.number_setting(
        "step", info.adaptive ? compiled.number_setting("Interval", 0.0) : 1e-3));
    settings.adaptive.rtol = o.rtol.value_or(compiled.number_setting(
        "rtol", compiled.number_setting("Tolerance", settings.adaptive.rtol)));
    settings.adaptive.atol =
        o.atol.value_or(compiled.number_setting("atol", settings.adaptive.atol));
    if (info.adaptive) {
        require_tolerances(settings.adaptive.rtol, settings.adaptive.atol, true);
    }
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
    const runtime::IntegrationStats stats = run_into(
        r, compiled, model, every, out, progress, [&](runtime::State& state, auto& observer) {
            return runtime::run(model, state, settings, observer);
        });
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
                         SimulationResult& r, double& t_end) {
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

// HMM: a macro step H of the averaged motion; each averaged force from a micro-integration of
// the model over a window of fast periods (docs/hmm.md).
SimulationResult run_hmm(const SimulationSettings& o, const CompiledModel& compiled,
                         const runtime::Model& model, const std::string& method, std::ostream& out,
                         const ProgressCallback& progress) {
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
    SimulationResult r;
    r.method = method;
    multiscale_interval(o, compiled, r, options.t_end);
    options.macro_step = macro_step(o, compiled, false, 1.0 / 80, r.start, options.t_end);
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
    const std::size_t every = output_every(o, compiled, options.macro_step);
    const ms::HmmStats stats = run_into(
        r, compiled, model, every, out, progress, [&](runtime::State& state, auto& observer) {
            return naming_period(o, [&] { return ms::run_hmm(model, state, options, observer); });
        });
    r.micro_steps = stats.micro_steps;
    const bool half = stats.half_window;
    r.summary = fmt::format(
        "{} with {} ({}, {} filter{}): t = {} to {}, {} macro steps of {:g}, {} micro-steps (h = "
        "{:g}, {} per force), {} force evaluations, {:.3f} s",
        compiled.name(), method, ms::to_string(options.algorithm), ms::to_string(options.filter),
        half ? ", half window: force even in the phase" : "", r.start, options.t_end,
        stats.macro_steps, options.macro_step, stats.micro_steps, stats.micro_step,
        stats.micro_steps_per_window, stats.force_evaluations, r.seconds);
    return r;
}

// Stroboscopic averaging: the averaged field from central differences of the period map of
// micro-integrations that all start at phase theta(t0) (docs/stroboscopic.md).
SimulationResult run_strobo(const SimulationSettings& o, const CompiledModel& compiled,
                            const runtime::Model& model, std::ostream& out,
                            const ProgressCallback& progress) {
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
    SimulationResult r;
    r.method = "strobo";
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
    options.rtol = o.rtol.value_or(
        compiled.number_setting("rtol", compiled.number_setting("Tolerance", options.rtol)));
    options.atol = o.atol.value_or(compiled.number_setting("atol", options.atol));
    if (adaptive) {
        require_tolerances(options.rtol, options.atol, false);
    }
    require_positive("--period", o.period, "the common fast period");
    options.period = o.period.value_or(0.0); // (not an annotation key: the checker ignores it)
    const std::size_t every = output_every(o, compiled, adaptive ? 0.0 : options.macro_step);
    const ms::StroboscopicStats stats = run_into(
        r, compiled, model, every, out, progress, [&](runtime::State& state, auto& observer) {
            return naming_period(
                o, [&] { return ms::run_stroboscopic(model, state, options, observer); });
        });
    r.micro_steps = stats.micro_steps;
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
    return r;
}

// HMM for stiff springs: the slow motion from kernel averages of micro-integrations forwards
// and backwards from the macro state (docs/stiff_hmm.md).
SimulationResult run_stiff_hmm(const SimulationSettings& o, const CompiledModel& compiled,
                               const runtime::Model& model, std::ostream& out,
                               const ProgressCallback& progress) {
    namespace ms = runtime::multiscale;
    ms::StiffHmmOptions options;
    options.macro = macro_integrator(o, compiled, ms::parse_stiff_macro);
    const bool adaptive = options.macro == ms::StiffMacro::dopri5;
    SimulationResult r;
    r.method = "hmm-stiff";
    multiscale_interval(o, compiled, r, options.t_end);
    options.macro_step = macro_step(o, compiled, adaptive, 1.0 / 32, r.start, options.t_end);
    if (!adaptive) {
        require_whole_steps(o, r.start, options.t_end, options.macro_step, "hmm-stiff");
    }
    // the fast frequency: --omega, else the relaxed constraints', else the model's fastest spring
    std::string omega_source = "--omega";
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
    options.rtol = o.rtol.value_or(
        compiled.number_setting("rtol", compiled.number_setting("Tolerance", options.rtol)));
    options.atol = o.atol.value_or(compiled.number_setting("atol", options.atol));
    if (adaptive) {
        require_tolerances(options.rtol, options.atol, false);
    }
    const std::size_t every = output_every(o, compiled, adaptive ? 0.0 : options.macro_step);
    const ms::StiffHmmStats stats = run_into(
        r, compiled, model, every, out, progress, [&](runtime::State& state, auto& observer) {
            return ms::run_stiff_hmm(model, state, options, observer);
        });
    r.micro_steps = stats.micro_steps;
    r.summary = fmt::format(
        "{} with hmm-stiff ({} macro, omega = {:g} from {}): t = {} to {}, {} macro steps "
        "accepted, {} rejected, {} averaged forces, {} projections, {} micro-steps (h = {:g}, {} "
        "per force), {} force evaluations, {:.3f} s",
        compiled.name(), ms::to_string(options.macro), options.omega, omega_source, r.start,
        options.t_end, stats.macro_steps, stats.rejected_steps, stats.force_estimates,
        stats.projections, stats.micro_steps, stats.micro_step, stats.micro_steps_per_window,
        stats.force_evaluations, r.seconds);
    return r;
}

} // namespace

CompileOptions compile_options(const SimulationSettings& settings) {
    CompileOptions options;
    if (settings.relax_constraints) {
        // the spring constant is omega^2: a normal number, neither 0 nor inf
        const double omega = *settings.relax_constraints;
        if (!(omega > 0) || !std::isfinite(omega) || !std::isnormal(omega * omega)) {
            throw std::invalid_argument(fmt::format(
                "--relax-constraints: the frequency must be positive with omega^2 a finite "
                "normal number, got {}",
                number(omega)));
        }
        options.relax_constraints = *settings.relax_constraints;
    }
    options.library_paths = settings.library_paths;
    options.structural_parameters = settings.structural_parameters;
    options.disk_cache = !settings.no_cache;
    return options;
}

std::pair<std::string, double> parse_assignment(const std::string& text) {
    auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
        throw std::invalid_argument(
            fmt::format("-p expects name=value (e.g. -p omega=1e6), got '{}'", text));
    }
    std::string name = text.substr(0, eq), value = text.substr(eq + 1);
    // from_chars: subnormals (4e-320) are numbers; std::stod threw out_of_range for them
    double parsed = 0;
    const char* end = value.data() + value.size();
    const auto [ptr, error] = std::from_chars(value.data(), end, parsed);
    if (error != std::errc() || ptr != end) {
        throw std::invalid_argument(fmt::format("-p {}: '{}' is not a number", name, value));
    }
    if (!std::isfinite(parsed)) {
        throw std::invalid_argument(
            fmt::format("-p {}: the value must be finite, got '{}'", name, value));
    }
    return {name, parsed};
}

void validate_settings(const SimulationSettings& o) {
    if (o.start && !std::isfinite(*o.start)) {
        throw std::invalid_argument(
            fmt::format("--start: the start time must be finite, got {}", number(*o.start)));
    }
    if (o.stop && !std::isfinite(*o.stop)) {
        throw std::invalid_argument(
            fmt::format("--stop: the stop time must be finite, got {}", number(*o.stop)));
    }
    // a relative tolerance of 1 accepts any step; 0 is pure absolute control (with --atol)
    if (o.rtol && !(*o.rtol >= 0.0 && *o.rtol < 1.0)) {
        throw std::invalid_argument(fmt::format(
            "--rtol: the relative tolerance must lie in [0, 1), got {}", number(*o.rtol)));
    }
    // the error is measured in units of atol + rtol |y|: 0 divides by zero where y = 0
    require_positive("--atol", o.atol, "the absolute tolerance");
    if (o.rho_inf && !(*o.rho_inf >= 0.0 && *o.rho_inf <= 1.0)) {
        throw std::invalid_argument(
            fmt::format("--rho-inf: must lie in [0, 1], got {}", number(*o.rho_inf)));
    }
    require_positive("--constraint-tol", o.constraint_tol, "the constraint tolerance");
    if (o.every && *o.every == 0) {
        throw std::invalid_argument("--every: must be at least 1 (every row), got 0");
    }
    if (o.micro_steps_per_period && *o.micro_steps_per_period == 0) {
        throw std::invalid_argument("--micro-steps-per-period: must be at least 1, got 0");
    }
    // a window shorter than one fast period averages nothing: hmm-stiff ran with --window
    // 1e-300 and returned the unaveraged force
    if (o.window && !(*o.window >= 1.0 && std::isfinite(*o.window))) {
        throw std::invalid_argument(
            fmt::format("--window: the averaging window must be at least one fast period, got {}",
                        number(*o.window)));
    }
    require_positive("--macro-time", o.macro_time, "T_macro");
    require_positive("--period", o.period, "the common fast period");
    require_positive("--omega", o.omega, "the fast frequency");
}

SimulationResult simulate(const CompiledModel& compiled, const runtime::Model& model,
                          const SimulationSettings& settings, std::ostream& out,
                          const ProgressCallback& progress) {
    validate_settings(settings);
    std::string method = settings.method.value_or(compiled.text_setting("method", ""));
    if (method == "strobo") {
        return run_strobo(settings, compiled, model, out, progress);
    }
    if (method == "hmm-stiff") {
        return run_stiff_hmm(settings, compiled, model, out, progress);
    }
    if (is_hmm(method)) {
        return run_hmm(settings, compiled, model, method, out, progress);
    }
    return run_classical(settings, compiled, model, method, out, progress);
}

void add_simulation_options(CLI::App* cmd, SimulationSettings& o) {
    std::string method_help = "Integration method:";
    for (const auto& m : runtime::methods()) {
        method_help += fmt::format("\n  {:<10} {}", m.name, m.summary);
    }
    method_help += "\n  hmm        HMM for vibrated systems, Verlet macro and micro steps"
                   "\n  hmm-shake  HMM, SHAKE macro and micro steps (constrained models)"
                   "\n  hmm-rattle HMM, RATTLE macro, SHAKE micro steps (constrained models)"
                   "\n  hmm-stiff  HMM for stiff springs: kernel-averaged forces, RK4 or DOPRI5 "
                   "macro steps"
                   "\n  strobo     stroboscopic averaging: the averaged field from differences "
                   "of the period map";
    cmd->add_option("-m,--method", o.method, method_help);
    cmd->add_option("--library", o.library_paths,
                    "A folder of component models (Pendulum -> DIR/Pendulum.mdl), searched after "
                    "the model's own folder and before MDL_PATH; repeatable");
    cmd->add_flag("--no-cache", o.no_cache,
                  "Neither read nor write the code cache on disk (see mdl cache)");
    cmd->add_option("--start", o.start, "Start time (default: the model's StartTime, or 0)");
    cmd->add_option("--stop", o.stop, "Stop time (default: the model's StopTime, or 1)");
    cmd->add_option("--step", o.step,
                    "Step size; for dopri5 the output interval, for HMM and strobo the macro "
                    "step H (default: the model's step)");
    cmd->add_option("--rtol", o.rtol,
                    "Relative tolerance of adaptive methods and of strobo's dopri5 macro "
                    "(default 1e-6)");
    cmd->add_option("--atol", o.atol, "Absolute tolerance of adaptive methods (default 1e-9)");
    cmd->add_option("--rho-inf", o.rho_inf,
                    "Spectral radius at infinity of generalized-alpha, in [0, 1] (default 0.9)");
    cmd->add_option("--constraint-tol", o.constraint_tol,
                    "Largest |g(q)| accepted by SHAKE/RATTLE and the constrained implicit "
                    "methods, in the constraint's units (default 1e-12)");
    cmd->add_option("--every", o.every,
                    "Write every N-th step (and the last); default: the model's `every`, else "
                    "its Interval in steps (adaptive methods: Interval is the output interval)");
    const char* hmm = "HMM options (--method hmm, hmm-shake, hmm-rattle, hmm-stiff)";
    cmd->add_option("--algorithm", o.algorithm,
                    "async (Algorithm 2: micro-runs from rest at phase 0) or sync (Algorithm 1: "
                    "from the enslaved velocity at the macro time); default async")
        ->group(hmm);
    cmd->add_option("--filter", o.filter,
                    "simple (one period, K = 1/2) or exp (exponential kernel); default simple")
        ->group(hmm);
    cmd->add_option("--window", o.window,
                    "Filter window in fast periods (default: 1 simple, 40 exp; hmm-stiff 20)")
        ->group(hmm);
    cmd->add_option("--micro-steps-per-period", o.micro_steps_per_period,
                    "Micro steps per fast period (HMM default: T_macro/H, as the paper; "
                    "hmm-stiff 6; strobo 10)")
        ->group(hmm);
    cmd->add_option("--macro-time", o.macro_time,
                    "T_macro of the micro step h = (2 pi/omega) H/T_macro (default 1)")
        ->group(hmm);
    cmd->add_option("--period", o.period,
                    "The vibrations' common fast period (default: found from their rates when "
                    "they are commensurate; hmm and strobo refuse incommensurate rates)")
        ->group(hmm);
    const char* stiff = "Stiff HMM options (--method hmm-stiff)";
    cmd->add_option("--omega", o.omega,
                    "The fast frequency [rad/time] (default: the fastest spring marked `fast`, or "
                    "the --relax-constraints frequency)")
        ->group(stiff);
    cmd->add_option("--reproject-every", o.reproject_every,
                    "Re-project the macro state onto the slow manifold every T time units "
                    "(default: never)")
        ->group(stiff);
    cmd->add_option("--relax-constraints", o.relax_constraints,
                    "Compile each constraint g(q) = 0 as a stiff spring of frequency OMEGA, so a "
                    "constrained model runs with hmm-stiff or any ODE method")
        ->group(stiff);
    const char* strobo = "Stroboscopic averaging options (--method strobo, --macro also hmm-stiff)";
    cmd->add_option("--order", o.order,
                    "Central differences of the period map of order 2 or 4 (default 4)")
        ->group(strobo);
    cmd->add_option("--macro", o.macro,
                    "Macro-integrator of strobo and hmm-stiff: rk4 (fixed step --step) or dopri5 "
                    "(adaptive, --rtol/--atol, hmm-stiff default 1e-3/1e-6; --step is then the "
                    "output interval); default rk4")
        ->group(strobo);
    cmd->add_option("--micro", o.micro,
                    "Micro-integrator of the period map: rk4, verlet, or herk3 (half-explicit "
                    "Runge-Kutta of order 3 for constrained models); default auto: herk3 with "
                    "constraints, else rk4")
        ->group(strobo);
}

} // namespace mdl::cli
