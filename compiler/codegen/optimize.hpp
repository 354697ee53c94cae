// The optimization pipeline: LLVM's new pass manager, tuned for the host through the target
// machine (so that cost models, vectorization of independent outputs (SLP) and instruction
// selection see the real CPU). O1 and O2 run a short function pipeline made for the
// straight-line kernels (optimize.cpp says which passes and why); O3 runs LLVM's full default
// per-module pipeline.
#pragma once

#include "codegen/options.hpp"

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace mdl::codegen {

// O0 leaves the module as emitted (one instruction per DAG node, handy for reading).
void optimize(llvm::Module& module, llvm::TargetMachine& target, OptLevel level);

} // namespace mdl::codegen
