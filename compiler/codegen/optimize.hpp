// The optimization pipeline: LLVM's new pass manager, tuned for the host through the target
// machine (so that cost models, vectorization of independent outputs (SLP) and instruction
// selection see the real CPU). O1 and O2 run a short function pipeline made for the
// straight-line kernels (optimize.cpp says which passes and why); O3 runs LLVM's full default
// per-module pipeline.
#pragma once

#include "codegen/options.hpp"

namespace llvm {
class Function;
class Module;
class TargetMachine;
} // namespace llvm

namespace mdl::codegen {

// At options.opt_level; O0 leaves the module as emitted (one instruction per DAG node, handy
// for reading).
void optimize(llvm::Module& module, llvm::TargetMachine& target, const CodegenOptions& options);

// Whether the O2 pipeline SLP-vectorizes this function: every function of a per-step kernel
// (force, constraint, curvature, ...), the functions of the force Jacobians only up to
// options.slp_max_jacobian_instructions IR instructions, as counted before vectorization.
bool slp_vectorizes(const llvm::Function& f, const CodegenOptions& options);

} // namespace mdl::codegen
