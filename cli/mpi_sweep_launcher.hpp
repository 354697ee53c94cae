// MPI stays out of the start path of `mdl`: the mdl executable does not link libmpi (which,
// with what it loads, would cost every command's start-up: docs/performance.md). A sweep
// launched by mpirun is run by mdl-sweep-mpi, the same program built with MPI, installed
// beside mdl: `mpirun -np N mdl sweep ...` replaces each rank's mdl process by it (exec, so
// the process, its MPI environment and its arguments stay the same).
#pragma once

namespace mdl::cli {

// The file name of the MPI build of mdl, in the directory of the running executable.
inline constexpr const char* mpi_sweep_executable = "mdl-sweep-mpi";

// Replaces this process by mdl-sweep-mpi with the same arguments. Returns only if it cannot
// (not installed beside this executable, or exec failed); the caller then reports that this
// mdl has no MPI.
void exec_mpi_sweep();

} // namespace mdl::cli
