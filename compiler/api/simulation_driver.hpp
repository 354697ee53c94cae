// What the drivers of every method of `mdl run` share (simulate.cpp dispatches to them:
// classical_run.cpp, hmm_run.cpp, strobo_run.cpp, stiff_hmm_run.cpp): the output rows handed to
// the host, the run's forecast and statistics (run_into), and the settings resolved against the
// model's annotation and checked, the messages naming the option as the command line spells it.
#pragma once

#include "compiler/api/error_control.hpp"
#include "compiler/api/option_checks.hpp"
#include "compiler/api/runtime_view.hpp"
#include "mdl/compiled_model.hpp"
#include "mdl/simulate.hpp"
#include "runtime/integrate.hpp"
#include "runtime/model.hpp"
#include "runtime/output/output_rows.hpp"
#include "runtime/state.hpp"

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace mdl::simulation {

using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

inline bool is_hmm(const std::string& method) {
    return method.rfind("hmm", 0) == 0;
}

// Counts derived from the options are checked before anything is counted with them: a cast
// of 1e300 to std::size_t is undefined (--step 1e-300 ran 0 steps and exited 0), and a
// count this large could not finish anyway. Each limit names the option to change.
constexpr double max_steps = 1e15;           // (macro) steps or output rows of a run
constexpr double max_micro_steps = 1e8;      // micro steps of one averaged force or field
constexpr double max_steps_per_period = 1e8; // --micro-steps-per-period

inline std::string number(double value) {
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

// The start and stop times: finite, stop after start, and the interval a normal number.
void require_interval(double start, double stop);
// The number of steps of size h from start to stop, checked (at most max_steps, each moving t).
double step_count(const SimulationSettings& o, double start, double stop, double h,
                  std::string_view what);
// An adaptive run writing every step: its span bounded as the runtime bounds it.
void require_adaptive_span(double start, double stop);
// A whole number of macro steps (HMM and hmm-stiff's rk4 macro).
void require_whole_steps(const SimulationSettings& o, double start, double stop, double H,
                         const std::string& method);
// Micro steps per fast period times the window in periods, checked.
void require_micro_steps(const char* option, double per_period, double window_periods);
// A count from the model's annotation, checked.
std::size_t count_setting(const CompiledModel& compiled, const char* key, double fallback);
// The tolerances' ranges (`pure_absolute`: rtol = 0 accepted).
void require_tolerances(double rtol, double atol, bool pure_absolute);
// rtol and atol from the flags, else the annotation, else the defaults they hold.
void resolve_tolerances(const SimulationSettings& o, const CompiledModel& compiled, double& rtol,
                        double& atol, bool used, bool pure_absolute);
// The multiscale runs' tolerance and which settings the control may refine.
Accuracy multiscale_accuracy(const SimulationSettings& o, const CompiledModel& compiled,
                             bool micro_free, bool macro_free);
// A setting given by a flag or by the model's annotation: the control keeps it.
bool fixed_setting(const CompiledModel& compiled, bool flag, const char* key);
// The tolerances given by a flag or the annotation (the dopri5 macros keep them).
bool tolerances_fixed(const SimulationSettings& o, const CompiledModel& compiled);
// The CSV's spacing N (--every, the annotation's `every` or `Interval`).
std::size_t output_every(const SimulationSettings& o, const CompiledModel& compiled,
                         double fixed_step);
// The statistics of a run a host's observer ended at a step boundary.
SimulationStatistics stopped(SimulationStatistics& r, const CompiledModel& compiled);
// A multiscale method needs a vibration.
void require_vibration(const CompiledModel& compiled, const std::string& method, const char* why);
// The multiscale runs' interval: --start/--stop or the annotation's StartTime/StopTime.
void multiscale_interval(const SimulationSettings& o, const CompiledModel& compiled,
                         SimulationStatistics& r, double& t_end);
// --step (or the annotation's `step`), checked.
double macro_step(const SimulationSettings& o, const CompiledModel& compiled, bool adaptive,
                  double fixed, double start, double stop);
// The default macro step of a method taking whole macro steps.
double default_whole_step(const SimulationSettings& o, const CompiledModel& compiled, double fixed,
                          double start, double stop);

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

inline runtime::IntegrationStats integration_of(const runtime::IntegrationStats& stats) {
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

} // namespace mdl::simulation
