// Splitting one module's functions among the threads that compile them. Internal to
// mdl_codegen (exposes LLVM types).
//
// Every kernel and kernel section is a function on its own (straight-line code, no calls
// other than the math library and a sectioned kernel's calls of its sections), and both the
// pass pipeline (optimize.cpp) and the machine-code pipeline work function by function. So the
// functions of one model can be optimized and compiled on several threads at once, each thread
// in its own LLVMContext holding the whole module, with the bodies of the functions other
// threads compile reduced to declarations, and the objects linked together by the JIT. Every
// function's machine code is the same whichever partition compiles it.
#pragma once

#include "codegen/options.hpp"
#include "symbolic/system.hpp"

#include <cstddef>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace mdl::codegen {

// Which partition compiles each function the module defines (in module order), for
// `partitions` partitions: the longest-processing-time-first rule on an estimate of each
// function's compile time under `options`, which grows faster than linearly with its size.
// Deterministic: the same module gives the same plan on every thread.
std::vector<std::size_t> plan_partitions(const llvm::Module& module, std::size_t partitions,
                                         const CodegenOptions& options);

// A rough estimate of the compile time of a system's kernels before any IR exists, in the
// units of the plan: a fixed cost per kernel plus the DAG's nodes and the kernels' outputs.
double estimated_compile_cost(const symbolic::System& system);

// Reduces the functions `plan` gives to other partitions than `partition` to declarations
// (their symbols are linked from the other partitions' objects).
void keep_partition(llvm::Module& module, const std::vector<std::size_t>& plan,
                    std::size_t partition);

} // namespace mdl::codegen
