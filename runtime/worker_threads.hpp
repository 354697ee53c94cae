// Work spread over threads of this process, one worker loop per thread: the stability chart's
// grid and bisections (runtime/analysis/stability_chart.cpp) and the sweeps' threads
// (compiler/api/sweep: run_on_threads, sweep_results) share it.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>

namespace mdl::runtime {

// Runs worker(w) for w = 0 .. workers-1, each on a thread of its own, and returns when all have
// returned. Meanwhile the calling thread calls `idle` (when given) at least every `poll`
// (a progress bar, an MPI rank serving the others); without `idle` a single worker runs on the
// calling thread. The first exception a worker throws is rethrown once all have returned.
void run_workers(std::size_t workers, const std::function<void(std::size_t worker)>& worker,
                 const std::function<void()>& idle = {},
                 std::chrono::microseconds poll = std::chrono::milliseconds(100));

// Runs task(k) for k = 0 .. count-1 on at most `threads` threads, each taking the next k when
// done with its last. Every task runs; the first exception one throws is rethrown here once all
// have run.
void run_concurrently(std::size_t count, std::size_t threads,
                      const std::function<void(std::size_t k)>& task);

} // namespace mdl::runtime
