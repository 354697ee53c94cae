// The optimization pipeline: LLVM's new pass manager with its default per-module pipeline at
// the requested level, tuned for the host through the target machine (so that cost models,
// vectorization of independent outputs (SLP) and instruction selection see the real CPU).
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
