#include "local_runs.hpp"

#include "mdl/interruption.hpp"
#include "sweep_workers.hpp"

#include <atomic>
#include <chrono>
#include <mutex>

namespace mdl {

void run_locally(const SweepRunner& runner, Isolation isolation, std::size_t jobs,
                 const NextRun& next, const RunDone& done, SweepProgress& progress,
                 const std::function<void()>& idle, const std::string& where) {
    if (isolation == Isolation::processes) {
        run_in_processes(runner, jobs, next, done, progress,
                         std::chrono::milliseconds(idle ? 1 : 100), idle, where);
    } else {
        run_on_threads(runner, jobs, next, done, progress, idle,
                       idle ? std::chrono::microseconds(500) : std::chrono::milliseconds(100));
    }
}

std::vector<std::optional<RunOutcome>> run_strided(const SweepRunner& runner, Isolation isolation,
                                                   std::size_t jobs, std::size_t first,
                                                   std::size_t stride, SweepProgress& progress,
                                                   const std::string& where) {
    const std::size_t size = runner.size();
    std::atomic<std::size_t> counter{first};
    std::vector<std::optional<RunOutcome>> results(size);
    std::mutex mutex;
    NextRun next = [&]() -> std::optional<std::size_t> {
        if (interruption_signal() != 0) { // the runs not started stay so
            return std::nullopt;
        }
        std::size_t i = counter.fetch_add(stride);
        return i < size ? std::optional(i) : std::nullopt;
    };
    RunDone done = [&](std::size_t index, RunOutcome outcome) {
        std::lock_guard lock(mutex);
        results[index] = std::move(outcome);
    };
    run_locally(runner, isolation, jobs, next, done, progress, {}, where);
    return results;
}

} // namespace mdl
