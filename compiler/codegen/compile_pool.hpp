// The threads that compile the partitions of one model (partition.hpp) at once. Internal to
// mdl_codegen.
#pragma once

#include <cstddef>
#include <functional>

namespace mdl::codegen {

// How many threads a compilation may use: the hardware threads of this machine (at least 1).
std::size_t hardware_compile_threads();

// Runs task(0) .. task(count - 1) and returns when all have finished: task(0) on the calling
// thread, the others on a process-wide pool of worker threads, created on first use and kept
// (each keeps its host target machines, jit.hpp, warm for later compilations). The first
// exception a task throws is rethrown here, after all tasks have finished. Any number of
// threads may call it at once; their tasks share the pool.
void run_concurrently(std::size_t count, const std::function<void(std::size_t)>& task);

} // namespace mdl::codegen
