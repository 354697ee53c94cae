// The runs of a local `mdl sweep` in worker processes, so that a run which kills the process it
// runs in (a crash, the out-of-memory killer, a signal sent to it) is one failed row and the
// sweep goes on. The alternative to run_on_threads (mdl/sweep.hpp), with the same contract.
//
// `jobs` workers are forked from the sweep's process after the model is compiled: each shares
// the compiled kernels copy-on-write, takes run indices from a pipe, runs them with
// SweepRunner::run (writing its trajectory file itself) and sends the outcome back through a
// second pipe. A worker that dies while running a run gives that run a `failed` row naming the
// signal or exit status, its trajectory file cut to its last complete line; a new worker is
// forked for the runs left. Runs do not share an address space, so one run's corruption cannot
// reach another's results. SIGINT/SIGTERM reach the workers (the same process group, or
// forwarded when only the sweep's process was signalled): the runs under way end at a step
// boundary as in a threaded sweep.
#pragma once

#include "mdl/sweep.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

namespace mdl {

// Runs the points that `next` hands out in `jobs` worker processes; `next`, `done`, `idle` and
// the progress are called in this process, on the calling thread only (so under MPI they may
// call MPI). `idle` is called at least every `poll`. `where` names this process in the message
// of a run whose worker died (" on rank 2" under MPI). Returns when every run handed out has an
// outcome. Throws std::runtime_error when no worker process can be created at all (fork or
// socket failing).
void run_in_processes(const SweepRunner& runner, std::size_t jobs, const NextRun& next,
                      const RunDone& done, SweepProgress& progress, std::chrono::milliseconds poll,
                      const std::function<void()>& idle = {}, const std::string& where = "");

} // namespace mdl
