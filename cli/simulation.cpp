#include "simulation.hpp"

#include "runtime/methods.hpp"
#include "runtime/multiscale/hmm.hpp"
#include "runtime/multiscale/stiff_hmm.hpp"
#include "runtime/multiscale/stroboscopic.hpp"
#include "runtime/output/csv_writer.hpp"
#include "runtime/run.hpp"
#include "simulation_setup.hpp"

#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <numbers>

namespace mdl::cli {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

bool is_hmm(const std::string& method) {
    return method.rfind("hmm", 0) == 0;
}

// Writes every output state to the CSV, remembers the last one and reports progress.
struct Observer {
    runtime::CsvWriter& csv;
    const ProgressCallback& progress;
    runtime::State& last;
    void operator()(const runtime::State& s) {
        csv(s);
        last = s;
        if (progress) {
            progress(s.t);
        }
    }
    void finish(const runtime::State& s) {
        csv.finish(s);
        last = s;
    }
};

void require_interval(double start, double stop) {
    if (!(stop > start)) {
        throw std::invalid_argument(
            fmt::format("--stop: the stop time {} is not after the start time {}", stop, start));
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

runtime::CsvWriter csv_writer(std::ostream& out, const runtime::Model& model,
                              const SimulationSettings& o) {
    runtime::CsvOptions csv_options;
    csv_options.every = o.every;
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
              const SimulationSettings& o, std::ostream& out, const ProgressCallback& progress,
              Integrate integrate) {
    runtime::State state = initial_state(compiled, model, r.start);
    runtime::CsvWriter csv = csv_writer(out, model, o);
    Observer observer{csv, progress, r.final_state};
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
    settings.rho_inf = o.rho_inf.value_or(compiled.number_setting("rho_inf", settings.rho_inf));
    settings.solver.constraint_tolerance =
        o.constraint_tol.value_or(settings.solver.constraint_tolerance);
    require_interval(r.start, settings.stop_time);
    if (!(settings.step > 0) && !info.adaptive) {
        throw std::invalid_argument(fmt::format("--step: must be positive, got {}", settings.step));
    }
    const runtime::IntegrationStats stats =
        run_into(r, compiled, model, o, out, progress, [&](runtime::State& state, auto& observer) {
            return runtime::run(model, state, settings, observer);
        });
    r.summary = fmt::format("{} with {}: t = {} to {}, {} steps{}, {} rows, {:.3f} s",
                            compiled.name(), info.name, r.start, r.stop, stats.steps,
                            info.adaptive ? fmt::format(" ({} rejected)", stats.rejected) : "",
                            r.rows, r.seconds);
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
                  double fixed) {
    const double H = o.step.value_or(compiled.number_setting("step", adaptive ? 0.0 : fixed));
    if (!(H > 0) && !(adaptive && H == 0)) {
        throw std::invalid_argument(
            fmt::format("--step: the macro step must be positive, got {}", H));
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
    options.window_periods = o.window.value_or(compiled.number_setting("window", 0.0));
    SimulationResult r;
    r.method = method;
    multiscale_interval(o, compiled, r, options.t_end);
    options.macro_step = macro_step(o, compiled, false, 1.0 / 80);
    options.macro_time_scale =
        o.macro_time.value_or(compiled.number_setting("macro_time_scale", 1.0));
    options.micro_steps_per_period = o.micro_steps_per_period.value_or(
        static_cast<std::size_t>(compiled.number_setting("micro_steps_per_period", 0.0)));
    options.force_even_in_phase = compiled.force_even_in_all_phases();
    options.period = o.period.value_or(compiled.number_setting("period", 0.0));
    if (o.constraint_tol) {
        options.solver.constraint_tolerance = *o.constraint_tol;
    }
    const ms::HmmStats stats =
        run_into(r, compiled, model, o, out, progress, [&](runtime::State& state, auto& observer) {
            return ms::run_hmm(model, state, options, observer);
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
    options.order = o.order.value_or(static_cast<int>(compiled.number_setting("order", 4)));
    if (options.order != 2 && options.order != 4) {
        throw std::invalid_argument(
            fmt::format("--order: the differencing order must be 2 or 4, got {}", options.order));
    }
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
    options.macro_step = macro_step(o, compiled, adaptive, std::numbers::pi / 50.0);
    options.whole_steps = false; // the run ends at the stop time
    options.micro_steps_per_period = o.micro_steps_per_period.value_or(
        static_cast<std::size_t>(compiled.number_setting("micro_steps_per_period", 10.0)));
    if (options.micro_steps_per_period == 0) {
        throw std::invalid_argument("--micro-steps-per-period: must be positive");
    }
    options.rtol = o.rtol.value_or(compiled.number_setting("rtol", options.rtol));
    options.atol = o.atol.value_or(compiled.number_setting("atol", options.atol));
    options.period = o.period.value_or(compiled.number_setting("period", 0.0));
    const ms::StroboscopicStats stats =
        run_into(r, compiled, model, o, out, progress, [&](runtime::State& state, auto& observer) {
            return ms::run_stroboscopic(model, state, options, observer);
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
    options.macro_step = macro_step(o, compiled, adaptive, 1.0 / 32);
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
    if (!(options.omega > 0) || !std::isfinite(options.omega)) {
        throw std::invalid_argument(fmt::format("{}: the fast frequency must be positive, got {}",
                                                omega_source, options.omega));
    }
    options.window_periods = o.window.value_or(compiled.number_setting("window", 20.0));
    options.micro_steps_per_period = o.micro_steps_per_period.value_or(
        static_cast<std::size_t>(compiled.number_setting("micro_steps_per_period", 6.0)));
    options.reproject_every =
        o.reproject_every.value_or(compiled.number_setting("reproject_every", 0.0));
    options.rtol = o.rtol.value_or(compiled.number_setting("rtol", options.rtol));
    options.atol = o.atol.value_or(compiled.number_setting("atol", options.atol));
    const ms::StiffHmmStats stats =
        run_into(r, compiled, model, o, out, progress, [&](runtime::State& state, auto& observer) {
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
        if (!(*settings.relax_constraints > 0) || !std::isfinite(*settings.relax_constraints)) {
            throw std::invalid_argument(
                fmt::format("--relax-constraints: the frequency must be positive, got {}",
                            *settings.relax_constraints));
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
    std::size_t used = 0;
    double number = 0;
    try {
        number = std::stod(value, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != value.size()) {
        throw std::invalid_argument(fmt::format("-p {}: '{}' is not a number", name, value));
    }
    return {name, number};
}

SimulationResult simulate(const CompiledModel& compiled, const runtime::Model& model,
                          const SimulationSettings& settings, std::ostream& out,
                          const ProgressCallback& progress) {
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
                    "Spectral radius at infinity of generalized-alpha, in [0, 1] (default 0.9)")
        ->check(CLI::Range(0.0, 1.0));
    cmd->add_option("--constraint-tol", o.constraint_tol,
                    "Largest |g(q)| accepted by SHAKE/RATTLE and the constrained implicit "
                    "methods, in the constraint's units (default 1e-12)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--every", o.every, "Write every N-th step (and the last)")
        ->check(CLI::PositiveNumber);
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
