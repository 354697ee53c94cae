// The runs of `mdl sweep`: one grid point simulated with the shared compiled model (its own
// parameters, no recompilation), its trajectory CSV, and its row of the summary CSV; a pool of
// threads that runs points as a work source hands them out; a progress bar over the runs.
#pragma once

#include "mdl/compiled_model.hpp"
#include "mdl/simulate.hpp"
#include "sweep_grid.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mdl::cli {

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

// Runs and failures counted so far, drawn on stderr as a progress bar when enabled (stderr a
// terminal, no --quiet), once the sweep has lasted a second, at most ten times a second;
// erased when done. `fraction` slots hold the progress of the runs under way.
class SweepProgress {
public:
    SweepProgress(std::size_t total, std::size_t slots, bool enabled);
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
    bool enabled_;
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

} // namespace mdl::cli
