// mdl sweep FILE.mdl -p omega=1e3:1e8:log:6 -p vmax=1,2,4 --output DIR [--jobs N]
//                    [--method ... and every other option of mdl run]
// Runs the Cartesian product of the parameter values with one compiled model (each run with
// its own parameters, no recompilation) on all cores, or across the ranks of an MPI job when
// launched by mpirun; writes DIR/run_<i>.csv per run and DIR/summary.csv (docs/sweeps.md).
#include "commands.hpp"
#include "exit_status.hpp"
#include "interruption.hpp"
#include "mdl/compiled_model.hpp"
#include "runtime/output/csv_writer.hpp"
#include "simulation_options.hpp"
#include "sweep_grid.hpp"
#include "sweep_runner.hpp"
#include "sweep_workers.hpp"
#ifdef MDL_HAVE_MPI
#include "sweep_mpi.hpp"
#else
#include "mpi_sweep_launcher.hpp"
#endif

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unistd.h>

namespace mdl::cli {

namespace {

namespace fs = std::filesystem;

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

std::size_t default_jobs() {
    std::size_t hardware = std::max(1u, std::thread::hardware_concurrency());
    // ranks sharing the node share its cores
    long local = environment_number({"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"}).value_or(1);
    return std::max<std::size_t>(1, hardware / static_cast<std::size_t>(std::max(1L, local)));
}

std::string describe(const SweepGrid& grid, std::size_t index) {
    std::string text;
    for (const auto& [name, value] : grid.point(index)) {
        text += fmt::format("{}{} = {}", text.empty() ? "" : ", ", name, value);
    }
    return text;
}

// summary.csv or events.csv, a header and then the rows of each run: `rows` gives a run's
// lines (none, one or several, each ending '\n'). When a write fails, the file is cut back to
// its last complete row (a full disk must not leave half a row) and the failure names the file.
void write_rows(const fs::path& path, const std::string& header,
                const std::vector<RunOutcome>& outcomes,
                const std::function<std::string(const RunOutcome&)>& rows) {
    errno = 0;
    std::ofstream out(path, std::ios::binary);
    if (!out) {
        throw WriteFailure(path.string(), runtime::OutputError(errno).what());
    }
    std::uintmax_t complete = 0;
    const auto line = [&](const std::string& text) {
        errno = 0;
        out << text;
        out.flush();
        if (!out) {
            const int error = errno;
            out.close();
            std::error_code ignored;
            if (fs::is_regular_file(path, ignored)) {
                fs::resize_file(path, complete, ignored);
            }
            throw WriteFailure(path.string(), runtime::OutputError(error).what());
        }
        complete += text.size();
    };
    line(header + '\n');
    for (const RunOutcome& r : outcomes) {
        std::string text = rows(r);
        if (!text.empty()) {
            line(text);
        }
    }
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
    for (const auto& axis : grid.axes()) {
        for (const auto& [name, value] : compiled.structural_parameters()) {
            if (name == axis.name) {
                throw std::invalid_argument(
                    fmt::format("-p {}: '{}' is an Integer parameter (= {}), fixed when the "
                                "model is compiled; a sweep varies Real parameters (run one "
                                "sweep per value of '{}')",
                                axis.name, name, value, name));
            }
        }
        try {
            (void)compiled.parameter(axis.name);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(fmt::format("-p {}: {}", axis.name, e.what()));
        }
    }
    if (o.jobs && *o.jobs == 0) {
        throw std::invalid_argument("--jobs: must be at least 1, got 0");
    }
    std::size_t jobs = std::clamp<std::size_t>(o.jobs.value_or(default_jobs()), 1, grid.size());
    const auto world = mpi_world_size();
#ifdef MDL_HAVE_MPI
    std::optional<MpiSweep> mpi;
    if (world) {
        mpi.emplace();
    }
    const bool root = !mpi || mpi->rank() == 0;
    const int ranks = mpi ? mpi->size() : 1;
#else
    if (world && *world > 1) {
        throw std::invalid_argument(
            "this mdl was built without MPI, so the processes of mpirun would each run the whole "
            "sweep; run `mdl sweep` without mpirun (--jobs sets the number of threads)");
    }
    const bool root = true;
    const int ranks = 1;
#endif

    const fs::path directory = o.output;
    std::string directory_error;
    if (root) {
        std::error_code ec;
        fs::create_directories(directory, ec);
        if (ec || !fs::is_directory(directory)) {
            directory_error = fmt::format("--output: cannot create the directory '{}'{}", o.output,
                                          ec ? ": " + ec.message() : "");
        }
    }
    bool directory_ok = directory_error.empty();
#ifdef MDL_HAVE_MPI
    if (mpi) {
        directory_ok = mpi->broadcast(directory_ok);
    }
#endif
    if (!directory_ok) {
        if (root) {
            throw std::invalid_argument(directory_error);
        }
        return 2;
    }

    if (!o.events.enabled && (!o.events.after.empty() || !o.events.period.empty())) {
        o.events.enabled = true; // --events-after and --event-period imply --events
    }
    if (o.events.enabled && compiled.events().empty()) {
        throw std::invalid_argument(fmt::format(
            "--events: {} has no events (when-clauses, docs/events.md)", compiled.name()));
    }
    if (!o.events.after.empty()) {
        (void)event_setting(compiled, o.events.after, "--events-after");
    }
    if (!o.events.period.empty() &&
        !(event_setting(compiled, o.events.period, "--event-period") > 0.0)) {
        throw std::invalid_argument(
            fmt::format("--event-period: {} is not positive", o.events.period));
    }
    if (root && !o.summary_only) {
        warn_of_large_output(compiled, o.simulation, grid.size(), o.output);
    }
    SweepRunner runner(compiled, grid, o.simulation, directory, !o.summary_only, o.events);
    const bool show = root && !o.quiet && isatty(fileno(stderr)) != 0;
    SweepProgress progress(grid.size(), jobs, show);
    std::vector<RunOutcome> outcomes;
#ifdef MDL_HAVE_MPI
    if (mpi) {
        outcomes = mpi->run(
            runner, o.distribute == "static" ? Distribution::static_blocks : Distribution::dynamic,
            o.isolation == "process" ? Isolation::processes : Isolation::threads, jobs, progress);
    }
#endif
    const bool processes = o.isolation == "process";
    if (ranks == 1 && outcomes.empty()) {
        std::atomic<std::size_t> counter{0};
        std::vector<std::optional<RunOutcome>> results(grid.size());
        std::mutex mutex;
        NextRun next = [&]() -> std::optional<std::size_t> {
            if (interruption_signal() != 0) { // the runs not started stay so
                return std::nullopt;
            }
            std::size_t i = counter.fetch_add(1);
            return i < grid.size() ? std::optional(i) : std::nullopt;
        };
        RunDone done = [&](std::size_t index, RunOutcome outcome) {
            std::lock_guard lock(mutex);
            results[index] = std::move(outcome);
        };
        if (o.isolation == "process") {
            run_in_processes(runner, jobs, next, done, progress, std::chrono::milliseconds(100));
        } else {
            run_on_threads(runner, jobs, next, done, progress, {}, std::chrono::milliseconds(100));
        }
        for (std::size_t i = 0; i < results.size(); ++i) {
            outcomes.push_back(results[i] ? std::move(*results[i])
                                          : runner.not_started(i, interruption_signal()));
        }
    }
    progress.done();
    if (!root) {
        return 0;
    }

    const fs::path summary = directory / "summary.csv";
    write_rows(summary, runner.header(), outcomes,
               [](const RunOutcome& r) { return r.row + '\n'; });
    if (o.events.enabled) {
        write_rows(directory / "events.csv", runner.events_header(), outcomes,
                   [](const RunOutcome& r) { return r.events; });
    }
    std::size_t failed = 0, errors = 0, interrupted = 0;
    std::vector<std::size_t> unsuccessful;
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
        failed += outcomes[i].status == RunOutcome::Status::failed;
        errors += outcomes[i].status == RunOutcome::Status::error;
        interrupted += outcomes[i].status == RunOutcome::Status::interrupted;
        if (outcomes[i].status != RunOutcome::Status::ok &&
            outcomes[i].status != RunOutcome::Status::interrupted) {
            unsuccessful.push_back(i);
        }
    }
    if (errors == outcomes.size()) { // a bad setting or a full disk, not one bad point
        if (outcomes[0].output_failed) {
            throw WriteFailure(outcomes[0].message);
        }
        throw std::invalid_argument(fmt::format("every run failed to start; run {} ({}): {}", 0,
                                                describe(grid, 0), outcomes[0].message));
    }
    const auto lost = std::count_if(outcomes.begin(), outcomes.end(),
                                    [](const RunOutcome& r) { return r.output_failed; });
    if (const int signal = interruption_signal()) {
        // not --quiet's to hide: it says why the summary has unfinished runs
        std::cerr << fmt::format("mdl sweep: interrupted by {}: {} of {} runs finished, {} "
                                 "marked 'interrupted' in {}\n",
                                 signal_name(signal), outcomes.size() - interrupted,
                                 outcomes.size(), interrupted, summary.string());
#ifdef MDL_HAVE_MPI
        // under mpirun, SIGTERM is how the job ends when a rank has died
        for (const std::string& rank : mpi ? mpi->silent_ranks() : std::vector<std::string>{}) {
            std::cerr << fmt::format("mdl sweep: {} did not report its runs: it died or was "
                                     "stopped (see mpirun's message); they are marked "
                                     "'interrupted'\n",
                                     rank);
        }
#endif
        return exit_status::interrupted(signal);
    }
    if (!o.quiet) {
        constexpr std::size_t shown = 5;
        for (std::size_t k = 0; k < std::min(shown, unsuccessful.size()); ++k) {
            std::size_t i = unsuccessful[k];
            std::cerr << fmt::format("mdl sweep: run {} ({}) {}: {}\n", i, describe(grid, i),
                                     to_string(outcomes[i].status), outcomes[i].message);
        }
        if (unsuccessful.size() > shown) {
            std::cerr << fmt::format("mdl sweep: ... and {} more unsuccessful runs, see {}\n",
                                     unsuccessful.size() - shown, summary.string());
        }
        double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
        std::cerr << fmt::format(
            "mdl sweep: {} runs of {} ({} ok, {} failed, {} not started) on {}{} {}{}, "
            "{:.3f} s: {}\n",
            outcomes.size(), compiled.name(), outcomes.size() - failed - errors, failed, errors,
            ranks > 1 ? fmt::format("{} ranks x ", ranks) : "", jobs,
            processes ? "worker process" : "thread", jobs == 1 ? "" : (processes ? "es" : "s"),
            seconds, summary.string());
    }
    if (lost > 0) { // the summary is complete, but trajectories are missing
        std::cerr << fmt::format(
            "mdl sweep: error: {} trajectory file{} could not be written; "
            "the first: {}\n",
            lost, lost == 1 ? "" : "s",
            std::find_if(outcomes.begin(), outcomes.end(), [](const RunOutcome& r) {
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
