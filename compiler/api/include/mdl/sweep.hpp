// Sweeps: a model simulated over a grid of parameter values (mdl/sweep_grid.hpp), each point
// with the shared compiled model and its own parameters (no recompilation), on threads or in
// worker processes (mdl/sweep_mpi.hpp: across the ranks of an MPI job). `mdl sweep` is a call
// of mdl::sweep; Python's mdl.sweep and the C API's mdl_sweep call it too.
//
//     mdl::CompiledModel model = mdl::compile_file("models/kapitza.mdl");
//     mdl::SweepGrid grid({mdl::parse_sweep_axis("omega=1e3:1e6:log:4")});
//     mdl::SimulationSettings settings;
//     settings.method = "hmm";
//     mdl::SweepOptions options;
//     options.output = "out";  // out/run_<i>.csv, out/summary.csv (docs/sweeps.md)
//     mdl::SweepReport report = mdl::sweep(model, grid, settings, options);
//
// Below it: SweepRunner runs one point (its trajectory CSV, its row of the summary CSV, its
// notes), run_on_threads and run_in_processes hand points to workers, SweepProgress counts them.
#pragma once

#include "mdl/compiled_model.hpp"
#include "mdl/simulate.hpp"
#include "mdl/sweep_grid.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mdl {

// What one run gave: its summary row and, for the exit status and messages, its status.
struct RunOutcome {
    // failed: numerical failure; error: bad setting or output; interrupted: by SIGINT/SIGTERM,
    // under way or not started
    enum class Status { ok, failed, error, interrupted };
    Status status = Status::ok;
    bool output_failed = false; // error: its trajectory file could not be written
    std::string message;        // empty when ok
    std::string row;            // the summary CSV line, without the line break
    std::string events;         // its lines of events.csv (EventCollection), each ending '\n'
    // what the run told (SimulationStatistics::notes: consistent-start changes, a tolerance not
    // met), each ending '\n'
    std::string notes;
};

// What `mdl sweep --events` collects into DIR/events.csv (docs/sweeps.md): a row per event
// of every run, the state before its reinits, at times >= `after`, with the event's cycle
// floor(t/P) and phase 2 pi (t/P - cycle) when `period` P is given. `after` and `period` are
// numbers or the names of Real parameters (then their values in each run).
struct EventCollection {
    bool enabled = false;
    std::string after;  // empty: every event
    std::string period; // empty: no cycle and phase columns
};

// The value of an --events-after or --event-period text for `model`: a number, or the name of
// one of its Real parameters. Throws std::invalid_argument naming `flag`.
double event_setting(const CompiledModel& model, const std::string& text, std::string_view flag);

std::string_view to_string(RunOutcome::Status status);

class SweepRunner {
public:
    // `trajectories`: write run_<index>.csv into `directory` (else only the summary's metrics).
    SweepRunner(const CompiledModel& compiled, SweepGrid grid, SimulationSettings settings,
                std::filesystem::path directory, bool trajectories, EventCollection events = {});

    const SweepGrid& grid() const { return grid_; }
    std::size_t size() const { return grid_.size(); }
    // The summary CSV's header line, without the line break:
    //   run, <swept parameters>, status, time, <positions>, <velocities>, <states>,
    //   max_abs(<position>)..., [max_abs_residual], [energy_drift], steps, rejected,
    //   micro_steps, force_evaluations, rows, seconds, [file], message
    std::string header() const;
    // events.csv's header line, without the line break:
    //   run, <swept parameters>, event, time, [cycle, phase], <positions>, <velocities>, <states>
    std::string events_header() const;
    // The trajectory file of a run, relative to the directory ("run_007.csv").
    std::string file_name(std::size_t index) const;
    // Simulates grid point `index`. Never throws for a run's own problems: a numerical failure
    // or a bad setting becomes the row's status and message. `fraction`, when given, follows
    // the run's progress from 0 to 1. Thread-safe.
    RunOutcome run(std::size_t index, std::atomic<double>* fraction = nullptr) const;
    // The row of a run that an interruption by `signal` kept from starting.
    RunOutcome not_started(std::size_t index, int signal) const;
    // The row of a run whose process died before reporting it (sweep_workers.hpp): its
    // trajectory file, cut to its last complete line, gives the metrics; no step counts.
    RunOutcome lost(std::size_t index, RunOutcome::Status status, std::string message,
                    double seconds) const;

    struct Metrics; // what the summary reports of a trajectory (sweep_runner.cpp)

private:
    Metrics no_rows() const; // the metrics of a trajectory before its first row
    std::string row(std::size_t index, const RunOutcome& outcome, const Metrics& metrics,
                    const SimulationStatistics* result, double seconds, bool started) const;

    const CompiledModel& compiled_;
    SweepGrid grid_;
    SimulationSettings settings_;
    std::filesystem::path directory_;
    bool trajectories_;
    EventCollection collect_;
    std::size_t positions_, states_, constraints_;
    bool constrained_, energy_, events_;
    // Fault injection for the tests (tests/cli/sweep_test.cpp): MDL_INJECT_SWEEP_CRASH=<run>
    // makes the process that starts that run kill itself with SIGKILL, as a kernel that traps
    // or the out-of-memory killer would end it.
    std::optional<std::size_t> crash_run_;
};

// Runs and failures counted so far, and the progress of the runs under way (`fraction`
// slots), shown by the caller's `show` (mdl sweep: a progress bar on stderr) once the sweep
// has lasted a second, at most ten times a second, from the thread that waits for the runs;
// `show` with done = true once at the end if it was shown.
class SweepProgress {
public:
    struct State {
        double fraction = 0.0; // of the runs, those under way counted by their progress
        std::size_t completed = 0, total = 0, unsuccessful = 0;
        double seconds = 0.0;
        bool done = false;
    };
    using Show = std::function<void(const State&)>;
    SweepProgress(std::size_t total, std::size_t slots, Show show = {});
    SweepProgress(const SweepProgress&) = delete;
    SweepProgress& operator=(const SweepProgress&) = delete;
    ~SweepProgress() { done(); }

    std::atomic<double>* slot(std::size_t i) { return &fractions_[i]; }
    void finished(RunOutcome::Status status); // thread-safe
    std::size_t completed() const { return completed_.load(); }
    std::size_t unsuccessful() const { return unsuccessful_.load(); }
    void draw(); // from one thread only
    void done();

private:
    using Clock = std::chrono::steady_clock;
    std::size_t total_;
    std::unique_ptr<std::atomic<double>[]> fractions_;
    std::size_t slots_;
    Show show_;
    std::atomic<std::size_t> completed_{0}, unsuccessful_{0};
    Clock::time_point began_, last_;
    bool shown_ = false;
};

// Runs the points that `next` hands out (nullopt: no more) on `jobs` threads and gives each
// outcome to `done` (called from the worker threads). The calling thread waits, calling
// `idle` every `poll` (progress bar, MPI service) until all threads have finished.
using NextRun = std::function<std::optional<std::size_t>()>;
using RunDone = std::function<void(std::size_t index, RunOutcome outcome)>;
void run_on_threads(const SweepRunner& runner, std::size_t jobs, const NextRun& next,
                    const RunDone& done, SweepProgress& progress, const std::function<void()>& idle,
                    std::chrono::microseconds poll);

// processes: each run in a worker process, so that a run that crashes or is killed is one
// failed row and the sweep goes on; threads: runs on threads of the calling process.
enum class Isolation { processes, threads };

class SweepDistribution;

struct SweepOptions {
    std::filesystem::path output; // the directory (created when missing)
    bool trajectories = true;     // run_<i>.csv per run; false: summary.csv only
    std::size_t jobs = 0;         // runs at once; 0: the hardware threads (per rank under MPI)
    Isolation isolation = Isolation::processes;
    EventCollection events;       // events.csv
    SweepProgress::Show progress; // e.g. a progress bar
    // The ranks of an MPI job (mdl/sweep_mpi.hpp); nullptr: this process only.
    SweepDistribution* distribution = nullptr;
};

// What a sweep did: every run's outcome in grid order (on rank 0 only under MPI), with the
// summary (and events.csv) written.
struct SweepReport {
    std::vector<RunOutcome> outcomes;
    std::filesystem::path summary; // DIR/summary.csv
    std::size_t jobs = 0;          // per rank
    int ranks = 1;
    bool root = true;       // false: an MPI rank other than 0 (no outcomes, no files)
    int interrupted_by = 0; // the signal that interrupted it, or 0
    std::vector<std::string> silent_ranks; // MPI: ranks that did not report every run
    std::size_t count(RunOutcome::Status status) const;
    std::size_t output_failures() const; // trajectory files that could not be written
};

// Runs every point of `grid` with `settings` and writes DIR/run_<i>.csv, DIR/summary.csv and
// (options.events) DIR/events.csv. A run's own failure (numerical, a bad setting for its point,
// a crash of its worker process) is its row's status and message. Throws std::invalid_argument
// naming the option for bad settings (an axis that is not a Real parameter: "-p n: ...", jobs
// 0, an output directory that cannot be created, events of a model without when-clauses,
// every run failing to start), WriteFailure when the summary cannot be written.
SweepReport sweep(const CompiledModel& compiled, const SweepGrid& grid,
                  const SimulationSettings& settings, const SweepOptions& options);

// One point of a sweep kept in memory: its parameters, and its result or the exception its run
// threw (NumericalFailure; std::invalid_argument for a setting its parameters make bad).
struct SweepPoint {
    std::vector<std::pair<std::string, double>> parameters;
    std::shared_ptr<SimulationResult> result; // with its notes in result->statistics.notes
    std::exception_ptr error;
};

// The points of `grid` simulated with `settings` on `jobs` threads (0: the hardware threads),
// in grid order, their results in memory (no files): what Python's mdl.sweep returns. Once
// interruption_signal() is set no new point starts; those left have neither result nor error.
std::vector<SweepPoint> sweep_results(const CompiledModel& compiled, const SweepGrid& grid,
                                      const SimulationSettings& settings, std::size_t jobs = 0);

// "omega = 1000, vmax = 2": the point's parameters, for messages.
std::string describe_point(const SweepGrid& grid, std::size_t index);

// Where the runs go when they go beyond this process: the ranks of an MPI job (MpiSweep,
// mdl/sweep_mpi.hpp, in the library mdl_sweep_mpi).
class SweepDistribution {
public:
    virtual ~SweepDistribution() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    // Rank 0's `ok` on every rank.
    virtual bool broadcast(bool ok) const = 0;
    // On rank 0 every outcome in grid order, on the other ranks none.
    virtual std::vector<RunOutcome> run(const SweepRunner& runner, Isolation isolation,
                                        std::size_t jobs, SweepProgress& progress) = 0;
    virtual std::vector<std::string> silent_ranks() const = 0;
};

} // namespace mdl
