// The runs a sweep does in this process: on `jobs` worker processes (sweep_workers.hpp) or
// threads (run_on_threads), whichever the sweep's isolation asks for. Used by a sweep on one
// process (sweep.cpp) and by each rank of an MPI sweep (sweep_mpi.cpp).
#pragma once

#include "mdl/sweep.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mdl {

// Runs the points `next` hands out on this process's workers, each outcome to `done`. `idle`,
// when given, is called about every millisecond (rank 0 serving the other ranks), else the
// progress is drawn every 100 ms. `where` names this process in the message of a run whose
// worker process died (" on rank 2" under MPI).
void run_locally(const SweepRunner& runner, Isolation isolation, std::size_t jobs,
                 const NextRun& next, const RunDone& done, SweepProgress& progress,
                 const std::function<void()>& idle = {}, const std::string& where = "");

// The runs first, first + stride, first + 2 stride, ... run here, by index: nullopt for the
// runs of other processes and for those an interruption (SIGINT/SIGTERM) kept from starting.
std::vector<std::optional<RunOutcome>> run_strided(const SweepRunner& runner, Isolation isolation,
                                                   std::size_t jobs, std::size_t first,
                                                   std::size_t stride, SweepProgress& progress,
                                                   const std::string& where = "");

} // namespace mdl
