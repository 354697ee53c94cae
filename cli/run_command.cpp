// mdl run FILE.mdl [--method NAME] [--stop T] [--step H] [--rtol R] [--atol A]
//                  [-p name=value]... [--output out.csv] [--every N]
// Simulates a model with a classical integrator or HMM and streams the trajectory as CSV.
// Settings default to the model's annotation(experiment(...)); flags override it.
#include "commands.hpp"
#include "mdl/compiled_model.hpp"
#include "progress_bar.hpp"
#include "runtime/methods.hpp"
#include "runtime/multiscale/hmm.hpp"
#include "runtime/numerical_failure.hpp"
#include "runtime/output/csv_writer.hpp"
#include "runtime/run.hpp"
#include "simulation_setup.hpp"

#include <chrono>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <optional>
#include <unistd.h>

namespace mdl::cli {

namespace {

struct RunOptions {
    std::string file;
    std::optional<std::string> method;
    std::optional<double> start, stop, step, rtol, atol, rho_inf, constraint_tol;
    std::vector<std::string> parameters; // name=value
    std::string output;                  // empty: stdout
    std::size_t every = 1;
    bool quiet = false;
    // HMM only
    std::optional<std::string> algorithm, filter;
    std::optional<double> window, macro_time;
    std::optional<std::size_t> micro_steps_per_period;
};

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// "name=value" -> the pair, or std::invalid_argument naming the flag.
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

bool is_hmm(const std::string& method) {
    return method.rfind("hmm", 0) == 0;
}

// The classical method: --method, else the annotation's, else the runtime's choice.
runtime::Method classical_method(const RunOptions& o, const CompiledModel& compiled,
                                 const runtime::Model& model, const std::string& name) {
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
    (void)compiled;
}

void require_interval(double start, double stop) {
    if (!(stop > start)) {
        throw std::invalid_argument(
            fmt::format("--stop: the stop time {} is not after the start time {}", stop, start));
    }
}

int run_classical(const RunOptions& o, const CompiledModel& compiled, const runtime::Model& model,
                  const std::string& method_name, std::ostream& out) {
    runtime::RunSettings settings;
    settings.method = classical_method(o, compiled, model, method_name);
    const runtime::MethodInfo& info = runtime::info(settings.method);
    double start = o.start.value_or(compiled.number_setting("StartTime", 0.0));
    settings.stop_time = o.stop.value_or(compiled.number_setting("StopTime", 1.0));
    settings.step = o.step.value_or(compiled.number_setting(
        "step", info.adaptive ? compiled.number_setting("Interval", 0.0) : 1e-3));
    settings.adaptive.rtol = o.rtol.value_or(compiled.number_setting(
        "rtol", compiled.number_setting("Tolerance", settings.adaptive.rtol)));
    settings.adaptive.atol =
        o.atol.value_or(compiled.number_setting("atol", settings.adaptive.atol));
    settings.rho_inf = o.rho_inf.value_or(compiled.number_setting("rho_inf", settings.rho_inf));
    settings.solver.constraint_tolerance =
        o.constraint_tol.value_or(settings.solver.constraint_tolerance);
    require_interval(start, settings.stop_time);
    if (!(settings.step > 0) && !info.adaptive) {
        throw std::invalid_argument(fmt::format("--step: must be positive, got {}", settings.step));
    }
    runtime::State state = initial_state(compiled, model, start);
    runtime::CsvOptions csv_options;
    csv_options.every = o.every;
    runtime::CsvWriter csv(out, model, csv_options);
    ProgressBar progress(start, settings.stop_time, !o.quiet && isatty(fileno(stderr)) != 0);
    struct Observer {
        runtime::CsvWriter& csv;
        ProgressBar& progress;
        void operator()(const runtime::State& s) {
            csv(s);
            progress.update(s.t);
        }
        void finish(const runtime::State& s) { csv.finish(s); }
    } observer{csv, progress};

    auto began = Clock::now();
    runtime::IntegrationStats stats = runtime::run(model, state, settings, observer);
    progress.done();
    if (!o.quiet) {
        std::cerr << fmt::format("mdl run: {} with {}: t = {} to {}, {} steps{}, {} rows, "
                                 "{:.3f} s\n",
                                 compiled.name(), info.name, start, settings.stop_time, stats.steps,
                                 info.adaptive ? fmt::format(" ({} rejected)", stats.rejected) : "",
                                 csv.rows(), seconds_since(began));
    }
    return 0;
}

// HMM: a macro step H of the averaged motion; each averaged force from a micro-integration of
// the model over a window of fast periods (docs/hmm.md).
int run_hmm(const RunOptions& o, const CompiledModel& compiled, const runtime::Model& model,
            const std::string& method, std::ostream& out) {
    namespace ms = runtime::multiscale;
    if (compiled.sizes().vibrations == 0) {
        throw std::invalid_argument(fmt::format("--method {}: model '{}' has no vibration; HMM "
                                                "averages over a vibration's fast period",
                                                method, compiled.name()));
    }
    ms::HmmOptions options;
    options.macro = ms::parse_hmm_method(method);
    options.algorithm =
        ms::parse_hmm_algorithm(o.algorithm.value_or(compiled.text_setting("algorithm", "async")));
    options.filter =
        ms::parse_filter_kind(o.filter.value_or(compiled.text_setting("filter", "simple")));
    options.window_periods = o.window.value_or(compiled.number_setting("window", 0.0));
    double start = o.start.value_or(compiled.number_setting("StartTime", 0.0));
    options.t_end = o.stop.value_or(compiled.number_setting("StopTime", 1.0));
    options.macro_step = o.step.value_or(compiled.number_setting("step", 1.0 / 80));
    options.macro_time_scale =
        o.macro_time.value_or(compiled.number_setting("macro_time_scale", 1.0));
    options.micro_steps_per_period = o.micro_steps_per_period.value_or(
        static_cast<std::size_t>(compiled.number_setting("micro_steps_per_period", 0.0)));
    options.force_even_in_phase = compiled.force_even_in_phase(options.vibration);
    if (o.constraint_tol) {
        options.solver.constraint_tolerance = *o.constraint_tol;
    }
    require_interval(start, options.t_end);
    if (!(options.macro_step > 0)) {
        throw std::invalid_argument(
            fmt::format("--step: the macro step must be positive, got {}", options.macro_step));
    }
    runtime::State state = initial_state(compiled, model, start);
    runtime::CsvOptions csv_options;
    csv_options.every = o.every;
    runtime::CsvWriter csv(out, model, csv_options);
    auto began = Clock::now();
    ms::HmmStats stats = ms::run_hmm(model, state, options, csv);
    if (!o.quiet) {
        bool half =
            options.force_even_in_phase && options.algorithm == ms::HmmAlgorithm::asynchronous;
        std::cerr << fmt::format(
            "mdl run: {} with {} ({}, {} filter{}): t = {} to {}, {} macro steps of {:g}, {} "
            "micro-steps (h = {:g}, {} per force), {} force evaluations, {:.3f} s\n",
            compiled.name(), method, ms::to_string(options.algorithm),
            ms::to_string(options.filter), half ? ", half window: force even in the phase" : "",
            start, options.t_end, stats.macro_steps, options.macro_step, stats.micro_steps,
            stats.micro_step, stats.micro_steps_per_window, stats.force_evaluations,
            seconds_since(began));
    }
    return 0;
}

int run(const RunOptions& o) {
    CompiledModel compiled = compile_file(o.file);
    for (const std::string& p : o.parameters) {
        auto [name, value] = parse_assignment(p);
        try {
            compiled.set_parameter(name, value);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(fmt::format("-p {}: {}", p, e.what()));
        }
    }
    runtime::Model model = runtime_model(compiled);
    std::ofstream file;
    std::ostream* out = &std::cout;
    if (!o.output.empty()) {
        file.open(o.output);
        if (!file) {
            throw std::invalid_argument(fmt::format("--output: cannot write '{}'", o.output));
        }
        out = &file;
    }
    std::string method = o.method.value_or(compiled.text_setting("method", ""));
    return is_hmm(method) ? run_hmm(o, compiled, model, method, *out)
                          : run_classical(o, compiled, model, method, *out);
}

} // namespace

std::function<int()> add_run_command(CLI::App& app) {
    auto o = std::make_shared<RunOptions>();
    CLI::App* cmd = app.add_subcommand(
        "run", "Simulate a model and write its trajectory as CSV (time, positions, velocities, "
               "states, constraint residuals and multipliers, energy)");
    cmd->add_option("file", o->file, "Model file (.mdl)")->required();
    std::string method_help = "Integration method:";
    for (const auto& m : runtime::methods()) {
        method_help += fmt::format("\n  {:<10} {}", m.name, m.summary);
    }
    method_help += "\n  hmm        HMM for vibrated systems, Verlet macro and micro steps"
                   "\n  hmm-shake  HMM, SHAKE macro and micro steps (constrained models)"
                   "\n  hmm-rattle HMM, RATTLE macro, SHAKE micro steps (constrained models)";
    cmd->add_option("-m,--method", o->method, method_help);
    cmd->add_option("--start", o->start, "Start time (default: the model's StartTime, or 0)");
    cmd->add_option("--stop", o->stop, "Stop time (default: the model's StopTime, or 1)");
    cmd->add_option("--step", o->step,
                    "Step size; for dopri5 the output interval, for HMM the macro step H "
                    "(default: the model's step)");
    cmd->add_option("--rtol", o->rtol, "Relative tolerance of adaptive methods (default 1e-6)");
    cmd->add_option("--atol", o->atol, "Absolute tolerance of adaptive methods (default 1e-9)");
    cmd->add_option("--rho-inf", o->rho_inf,
                    "Spectral radius at infinity of generalized-alpha, in [0, 1] (default 0.9)")
        ->check(CLI::Range(0.0, 1.0));
    cmd->add_option("--constraint-tol", o->constraint_tol,
                    "Largest |g(q)| accepted by SHAKE/RATTLE and the constrained implicit "
                    "methods, in the constraint's units (default 1e-12)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("-p,--parameter", o->parameters, "Override a parameter: -p omega=1e6")
        ->allow_extra_args(false);
    cmd->add_option("-o,--output", o->output, "CSV file to write (default: standard output)");
    cmd->add_option("--every", o->every, "Write every N-th step (and the last)")
        ->check(CLI::PositiveNumber);
    cmd->add_flag("-q,--quiet", o->quiet, "No summary line and no progress bar");
    const char* hmm = "HMM options (--method hmm, hmm-shake, hmm-rattle)";
    cmd->add_option("--algorithm", o->algorithm,
                    "async (Algorithm 2: micro-runs from rest at phase 0) or sync (Algorithm 1: "
                    "from the enslaved velocity at the macro time); default async")
        ->group(hmm);
    cmd->add_option("--filter", o->filter,
                    "simple (one period, K = 1/2) or exp (exponential kernel); default simple")
        ->group(hmm);
    cmd->add_option("--window", o->window,
                    "Filter window in fast periods (default: 1 simple, 40 exp)")
        ->group(hmm);
    cmd->add_option("--micro-steps-per-period", o->micro_steps_per_period,
                    "Micro steps per fast period (default: T_macro/H, as the paper)")
        ->group(hmm);
    cmd->add_option("--macro-time", o->macro_time,
                    "T_macro of the micro step h = (2 pi/omega) H/T_macro (default 1)")
        ->group(hmm);
    return [o]() {
        try {
            return run(*o);
        } catch (const CompileError& e) {
            std::cerr << e.what();
            return 1;
        } catch (const runtime::NumericalFailure& e) {
            std::cerr << fmt::format("mdl: error: {}\n", e.what());
            return 3;
        } catch (const std::invalid_argument& e) {
            std::cerr << fmt::format("mdl run: error: {}\n", e.what());
            return 2;
        }
    };
}

} // namespace mdl::cli
