// mdl sweep FILE.mdl -p omega=1e3:1e8:log:6 -p vmax=1,2,4 --output DIR [--jobs N]
//                    [--method ... and every other option of mdl run]
// Runs the Cartesian product of the parameter values with one compiled model (each run with
// its own parameters, no recompilation) on all cores, or across the ranks of an MPI job when
// launched by mpirun; writes DIR/run_<i>.csv per run and DIR/summary.csv (docs/sweeps.md).
// The sweep is the library's (mdl/sweep.hpp); this file parses the options, prints the
// summary line, the unsuccessful runs and the runs' notes, and draws the progress bar.
#include "commands.hpp"
#include "exit_status.hpp"
#include "interruption.hpp"
#include "mdl/compiled_model.hpp"
#include "mdl/sweep.hpp"
#include "simulation_options.hpp"
#ifdef MDL_HAVE_MPI
#include "mdl/sweep_mpi.hpp"
#else
#include "mpi_sweep_launcher.hpp"
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <iostream>
#include <memory>
#include <optional>
#include <unistd.h>

namespace mdl::cli {

namespace {

struct SweepOptions {
    std::string file;
    SimulationSettings simulation;
    std::vector<std::string> parameters; // name=values
    std::string output;                  // directory
    std::optional<std::size_t> jobs;     // default: one per hardware thread
    std::string distribute = "dynamic";
    std::string isolation = "process"; // process: worker processes; thread: threads
    bool summary_only = false;
    bool quiet = false;
    EventCollection events; // --events, --events-after, --event-period
};

std::optional<long> environment_number(std::initializer_list<const char*> names) {
    for (const char* name : names) {
        if (const char* value = std::getenv(name)) {
            char* end = nullptr;
            long number = std::strtol(value, &end, 10);
            if (end != value && *end == '\0') {
                return number;
            }
        }
    }
    return std::nullopt;
}

// Set by mpirun/mpiexec: Open MPI, then MPICH's Hydra and other PMI launchers.
std::optional<long> mpi_world_size() {
    return environment_number({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"});
}
long mpi_rank_from_environment() {
    return environment_number({"OMPI_COMM_WORLD_RANK", "PMI_RANK"}).value_or(0);
}

// Before the runs: a warning when their trajectory files may take more than 1 GB together
// (the same count for every run: the grid varies parameters, not the step or the interval).
// An adaptive method writing every step has no count known in advance: no warning.
void warn_of_large_output(const CompiledModel& compiled, const SimulationSettings& settings,
                          std::size_t runs, const std::string& directory) {
    std::optional<OutputForecast> f;
    try {
        f = forecast_output(compiled, settings);
    } catch (const std::invalid_argument&) {
        return; // each run reports the setting
    }
    if (!f) {
        return;
    }
    const double total = f->max_csv_bytes() * static_cast<double>(runs);
    if (total > large_output_bytes) {
        std::cerr << fmt::format(
            "mdl sweep: warning: the {} runs will write {:.0f} rows of {} values each into '{}': "
            "up to {:.3g} GB at {} bytes a value; --every N writes every N-th state, "
            "--summary-only no trajectories\n",
            runs, f->rows, f->columns, directory, total / 1e9, f->max_csv_value_bytes);
    }
}

// The progress bar on stderr (a terminal, no --quiet): erased when done.
void draw_progress(const SweepProgress::State& s) {
    if (s.done) {
        std::fprintf(stderr, "\r\033[K");
        std::fflush(stderr);
        return;
    }
    constexpr int width = 40;
    std::string bar(static_cast<std::size_t>(s.fraction * width), '#');
    bar.resize(width, '.');
    std::fprintf(stderr, "\r[%s] %5.1f%%  %zu/%zu runs%s %6.1f s", bar.c_str(), 100 * s.fraction,
                 s.completed, s.total,
                 s.unsuccessful ? fmt::format(" ({} unsuccessful)", s.unsuccessful).c_str() : "",
                 s.seconds);
    std::fflush(stderr);
}

// The unsuccessful runs and the runs' notes, at most five lines of each, then a count.
void print_runs(const SweepReport& report, const SweepGrid& grid) {
    constexpr std::size_t shown = 5;
    std::size_t unsuccessful = 0, noted = 0;
    for (std::size_t i = 0; i < report.outcomes.size(); ++i) {
        const RunOutcome& r = report.outcomes[i];
        if (r.status != RunOutcome::Status::ok && r.status != RunOutcome::Status::interrupted &&
            unsuccessful++ < shown) {
            std::cerr << fmt::format("mdl sweep: run {} ({}) {}: {}\n", i, describe_point(grid, i),
                                     to_string(r.status), r.message);
        }
    }
    if (unsuccessful > shown) {
        std::cerr << fmt::format("mdl sweep: ... and {} more unsuccessful runs, see {}\n",
                                 unsuccessful - shown, report.summary.string());
    }
    for (std::size_t i = 0; i < report.outcomes.size(); ++i) {
        const std::string& notes = report.outcomes[i].notes;
        for (std::size_t at = 0; at < notes.size();) {
            const std::size_t end = notes.find('\n', at);
            if (noted++ < shown) {
                std::cerr << fmt::format("mdl sweep: run {} ({}): {}\n", i, describe_point(grid, i),
                                         notes.substr(at, end - at));
            }
            at = end == std::string::npos ? notes.size() : end + 1;
        }
    }
    if (noted > shown) {
        std::cerr << fmt::format("mdl sweep: ... and {} more notes of the runs\n", noted - shown);
    }
}

int sweep(SweepOptions o) {
    catch_interruptions();
    std::vector<SweepAxis> axes;
    for (const std::string& p : o.parameters) {
        axes.push_back(parse_sweep_axis(p));
    }
    SweepGrid grid(std::move(axes));
    validate_settings(o.simulation);
    auto began = std::chrono::steady_clock::now();
    CompiledModel compiled = compile_file(o.file, compile_options(o.simulation));
    if (o.jobs && *o.jobs == 0) {
        throw std::invalid_argument("--jobs: must be at least 1, got 0");
    }
    mdl::SweepOptions options;
    options.output = o.output;
    options.trajectories = !o.summary_only;
    options.jobs = o.jobs.value_or(0);
    options.isolation = o.isolation == "process" ? Isolation::processes : Isolation::threads;
    options.events = o.events;
    const auto world = mpi_world_size();
#ifdef MDL_HAVE_MPI
    std::optional<MpiSweep> mpi;
    if (world) {
        mpi.emplace(o.distribute == "static" ? Distribution::static_blocks : Distribution::dynamic);
        options.distribution = &*mpi;
    }
    const bool root = !mpi || mpi->rank() == 0;
#else
    if (world && *world > 1) {
        throw std::invalid_argument(
            "this mdl was built without MPI, so the processes of mpirun would each run the whole "
            "sweep; run `mdl sweep` without mpirun (--jobs sets the number of threads)");
    }
    const bool root = true;
#endif
    if (!o.quiet && isatty(fileno(stderr)) != 0) {
        options.progress = draw_progress;
    }
    if (root && !o.summary_only) {
        warn_of_large_output(compiled, o.simulation, grid.size(), o.output);
    }
    const SweepReport report = mdl::sweep(compiled, grid, o.simulation, options);
    if (!report.root) {
        return 0;
    }
    const std::size_t runs = report.outcomes.size();
    const std::size_t interrupted = report.count(RunOutcome::Status::interrupted);
    if (const int signal = report.interrupted_by) {
        // not --quiet's to hide: it says why the summary has unfinished runs
        std::cerr << fmt::format("mdl sweep: interrupted by {}: {} of {} runs finished, {} "
                                 "marked 'interrupted' in {}\n",
                                 signal_name(signal), runs - interrupted, runs, interrupted,
                                 report.summary.string());
        // under mpirun, SIGTERM is how the job ends when a rank has died
        for (const std::string& rank : report.silent_ranks) {
            std::cerr << fmt::format("mdl sweep: {} did not report its runs: it died or was "
                                     "stopped (see mpirun's message); they are marked "
                                     "'interrupted'\n",
                                     rank);
        }
        return exit_status::interrupted(signal);
    }
    if (!o.quiet) {
        print_runs(report, grid);
        const std::size_t failed = report.count(RunOutcome::Status::failed);
        const std::size_t errors = report.count(RunOutcome::Status::error);
        const bool processes = options.isolation == Isolation::processes;
        const std::size_t jobs = report.jobs;
        double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
        std::cerr << fmt::format(
            "mdl sweep: {} runs of {} ({} ok, {} failed, {} not started) on {}{} {}{}, "
            "{:.3f} s: {}\n",
            runs, compiled.name(), runs - failed - errors, failed, errors,
            report.ranks > 1 ? fmt::format("{} ranks x ", report.ranks) : "", jobs,
            processes ? "worker process" : "thread", jobs == 1 ? "" : (processes ? "es" : "s"),
            seconds, report.summary.string());
    }
    if (const std::size_t lost = report.output_failures(); lost > 0) {
        // the summary is complete, but trajectories are missing
        std::cerr << fmt::format(
            "mdl sweep: error: {} trajectory file{} could not be written; "
            "the first: {}\n",
            lost, lost == 1 ? "" : "s",
            std::find_if(report.outcomes.begin(), report.outcomes.end(), [](const RunOutcome& r) {
                return r.output_failed;
            })->message);
        return exit_status::output_failed;
    }
    return exit_status::success;
}

} // namespace

std::function<int()> add_sweep_command(CLI::App& app) {
    auto o = std::make_shared<SweepOptions>();
    CLI::App* cmd = app.add_subcommand(
        "sweep", "Simulate a model over a grid of parameter values in parallel (threads, or MPI "
                 "ranks under mpirun); write one CSV per run and a summary CSV");
    cmd->add_option("file", o->file, "Model file (.mdl)")->required();
    add_simulation_options(cmd, o->simulation);
    cmd->add_option("-p,--parameter", o->parameters,
                    "Parameter values: -p vmax=1,2,4 (list), -p omega=1e3:1e8:log:6 (N values "
                    "from lo to hi, log or lin spacing), -p l=0.3 (one value); the runs are the "
                    "Cartesian product, the first -p varying slowest")
        ->allow_extra_args(false);
    cmd->add_option("-o,--output", o->output,
                    "Directory to write: run_<i>.csv per run and summary.csv (created if missing)")
        ->required();
    cmd->add_option(
        "-j,--jobs", o->jobs,
        "Runs at once (worker processes or threads; per rank under mpirun); default: the hardware "
        "threads (shared by the ranks of a node)");
    cmd->add_option("--distribute", o->distribute,
                    "Under mpirun: dynamic (rank 0 hands out runs as threads become free) or "
                    "static (rank r does runs r, r + N, ...); default dynamic")
        ->check(CLI::IsMember({"static", "dynamic"}));
    cmd->add_option("--isolation", o->isolation,
                    "process (default): runs in worker processes, so a run that crashes or is "
                    "killed is one failed row and the sweep goes on (under mpirun: the worker "
                    "processes of each rank, so a crashing run does not end the MPI job); "
                    "thread: runs on threads of one process")
        ->check(CLI::IsMember({"process", "thread"}));
    cmd->add_flag("--summary-only", o->summary_only,
                  "Write only summary.csv, no trajectory per run");
    cmd->add_flag("-q,--quiet", o->quiet, "No summary line and no progress bar");
    cmd->add_flag("--events", o->events.enabled,
                  "Also write DIR/events.csv: a row per event of every run (a model with "
                  "when-clauses), the state before its reinits, for bifurcation diagrams "
                  "(docs/sweeps.md)");
    cmd->add_option("--events-after", o->events.after,
                    "events.csv: only the events at times >= T, a number or a Real parameter's "
                    "name (skips transients); implies --events");
    cmd->add_option("--event-period", o->events.period,
                    "events.csv: add each event's cycle floor(t/P) and phase 2 pi (t/P - cycle), "
                    "P a number or a Real parameter's name (the forcing period); implies --events");
    return [o]() {
#ifndef MDL_HAVE_MPI
        if (mpi_world_size()) {
            exec_mpi_sweep(); // returns only if there is no mdl-sweep-mpi
        }
#endif
        const bool rank0 = mpi_rank_from_environment() == 0;
        try {
            return sweep(*o);
        } catch (const CompileError& e) {
            if (rank0) {
                std::cerr << e.what();
            }
            return 1;
        } catch (const WriteFailure& e) {
            if (rank0) {
                std::cerr << fmt::format("mdl sweep: error: {}\n", e.what());
            }
            return exit_status::output_failed;
        } catch (const std::invalid_argument& e) {
            if (rank0) {
                std::cerr << fmt::format("mdl sweep: error: {}\n", e.what());
            }
            return exit_status::bad_input;
        }
    };
}

} // namespace mdl::cli
