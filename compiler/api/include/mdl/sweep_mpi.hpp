// `mdl sweep` across the processes of an MPI job (mpirun -np N mdl sweep ...). Compiled only
// when CMake finds MPI (MDL_HAVE_MPI); `mdl` initializes MPI only for a sweep launched by
// mpirun, so other runs never touch it.
//
// Each rank compiles the model once and writes the trajectory CSVs of the runs it does into
// the output directory (which all ranks must see); rank 0 gathers the summary rows and writes
// the summary in grid order, so the files are the same as a threaded run's.
//   static:  rank r does runs r, r + N, r + 2N, ... ; rows gathered at the end.
//   dynamic: rank 0 hands out runs one at a time to the workers of every rank (its own too)
//            as they become free; rows come back as each run ends.
//
// A rank that dies. Open MPI (4.1, without ULFM) and MPICH end the whole job when one of its
// processes dies, so the process of a rank must not run model code: by default (--isolation
// process) each rank runs its points in worker processes (sweep_workers.hpp) and only talks MPI
// itself. A run that crashes its worker (a kernel that traps, the out-of-memory killer, a
// signal) is one failed row whose message names the rank and the signal ("the process running
// it on rank 2 was killed by SIGKILL (Killed)"); the rank forks a new worker and the sweep goes
// on. The run is not re-issued: a point that crashes would crash again on another rank.
// When the process of a rank itself dies (--isolation thread and a crashing run, or a signal
// sent to that process), mpirun reports the rank and the signal and sends SIGTERM to the other
// ranks, then SIGKILL about a second later: on SIGTERM, rank 0 stops handing out runs, waits
// at most `give_up_after_interruption` for the rows under way, marks every run without a row
// `interrupted` (naming the rank it was on) and writes the summary, so no rank waits for a
// message that will not come.
#pragma once

#include "mdl/sweep.hpp"

#include <functional>
#include <optional>

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace mdl {

enum class Distribution { static_blocks, dynamic };

// How long rank 0 waits for the other ranks' rows once interrupted (mpirun kills a job it
// aborts one second after its SIGTERM).
inline constexpr std::chrono::milliseconds give_up_after_interruption{300};

// Every rank calls mdl::sweep with the same arguments and options.distribution = &mpi:
//
//     mdl::MpiSweep mpi(mdl::Distribution::dynamic);
//     options.distribution = &mpi;
//     mdl::SweepReport report = mdl::sweep(model, grid, settings, options); // rank 0: the rows
class MpiSweep final : public SweepDistribution {
public:
    explicit MpiSweep(Distribution distribution = Distribution::dynamic); // MPI_Init_thread
    ~MpiSweep() override;
    MpiSweep(const MpiSweep&) = delete;
    MpiSweep& operator=(const MpiSweep&) = delete;

    int rank() const override { return rank_; }
    int size() const override { return size_; }
    // Rank 0's `ok` on every rank (e.g. whether it could create the output directory).
    bool broadcast(bool ok) const override;
    // Runs the sweep; on rank 0 every outcome in grid order, on the other ranks none. `jobs`
    // worker processes or threads per rank; `progress` counts the runs this rank sees finish.
    // Interrupted (SIGINT/SIGTERM), rank 0 gives each run without a row an `interrupted` one.
    std::vector<RunOutcome> run(const SweepRunner& runner, Isolation isolation, std::size_t jobs,
                                SweepProgress& progress) override;
    // On rank 0 after an interrupted run(): "rank 2 (runs 2, 5)" for each rank that did not
    // report every run it was given.
    std::vector<std::string> silent_ranks() const override { return silent_; }

private:
    std::vector<RunOutcome> run_static(const SweepRunner& runner, std::size_t jobs,
                                       SweepProgress& progress);
    std::vector<RunOutcome> run_dynamic(const SweepRunner& runner, std::size_t jobs,
                                        SweepProgress& progress);
    // Runs what `next` hands out on this rank's workers (processes or threads).
    void execute(const SweepRunner& runner, std::size_t jobs, const NextRun& next,
                 const RunDone& done, SweepProgress& progress, const std::function<void()>& idle);
    // Rank 0: outcomes in grid order; a run without one becomes `interrupted`, naming the rank
    // it was given to (`owner`, -1: none).
    std::vector<RunOutcome> complete(const SweepRunner& runner,
                                     std::vector<std::optional<RunOutcome>> results,
                                     const std::vector<int>& owner);
    int rank_ = 0, size_ = 1;
    bool threads_may_call_mpi_ = false; // MPI_THREAD_SERIALIZED provided
    Distribution distribution_;
    Isolation isolation_ = Isolation::processes;
    std::vector<std::string> silent_;
};

} // namespace mdl
