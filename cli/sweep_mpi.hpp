// `mdl sweep` across the processes of an MPI job (mpirun -np N mdl sweep ...). Compiled only
// when CMake finds MPI (MDL_HAVE_MPI); `mdl` initializes MPI only for a sweep launched by
// mpirun, so other runs never touch it.
//
// Each rank compiles the model once and writes the trajectory CSVs of the runs it does into
// the output directory (which all ranks must see); rank 0 gathers the summary rows and writes
// the summary in grid order, so the files are the same as a threaded run's.
//   static:  rank r does runs r, r + N, r + 2N, ... on its threads; rows gathered at the end.
//   dynamic: rank 0 hands out runs one at a time to the threads of every rank (its own too)
//            as they become free; rows come back as each run ends.
#pragma once

#include "sweep_runner.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace mdl::cli {

enum class Distribution { static_blocks, dynamic };

class MpiSweep {
public:
    MpiSweep(); // MPI_Init_thread
    ~MpiSweep();
    MpiSweep(const MpiSweep&) = delete;
    MpiSweep& operator=(const MpiSweep&) = delete;

    int rank() const { return rank_; }
    int size() const { return size_; }
    // Rank 0's `ok` on every rank (e.g. whether it could create the output directory).
    bool broadcast(bool ok) const;
    // Runs the sweep; on rank 0 every outcome in grid order, on the other ranks none. `jobs`
    // threads per rank; `progress` counts the runs this rank sees finish.
    std::vector<RunOutcome> run(const SweepRunner& runner, Distribution distribution,
                                std::size_t jobs, SweepProgress& progress);

private:
    std::vector<RunOutcome> run_static(const SweepRunner& runner, std::size_t jobs,
                                       SweepProgress& progress);
    std::vector<RunOutcome> run_dynamic(const SweepRunner& runner, std::size_t jobs,
                                        SweepProgress& progress);
    int rank_ = 0, size_ = 1;
    bool threads_may_call_mpi_ = false; // MPI_THREAD_SERIALIZED provided
};

} // namespace mdl::cli
