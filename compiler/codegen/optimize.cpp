#include "codegen/optimize.hpp"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/OptimizationLevel.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/Reassociate.h>
#include <llvm/Transforms/Vectorize/SLPVectorizer.h>

namespace mdl::codegen {

namespace {

// The pipeline for O1 and O2. The kernels emit_ir.cpp writes are straight-line functions: one
// basic block, no loops, no allocas, no calls other than the math library and (in sectioned
// kernels) their own noinline sections, every output stored once. LLVM's default per-module
// pipeline spends most of its time there finding nothing (inliner, IPO attribute inference,
// loop passes, jump threading, GVN, DSE over hundreds of stores), so this runs only the passes
// that change such code, measured on the shipped models:
//   EarlyCSE       - the emitter recomputes shared product prefixes and reciprocal powers per
//                    use (k*len, 1/r * 1/r, ...); this folds the duplicates, cheaply.
//   Reassociate    - without fast-math only its exact canonicalisations apply (x + -c*y into
//                    x - c*y); with fast-math (reassoc flags) it also regroups sums. It shapes
//                    the code so that SLP pairs more outputs: dropping it made the
//                    stiff_springs force kernel 25% slower.
//   InstCombine    - -1*x into -x, x + -y into x - y, constant folding, dead code.
//   SLPVectorizer  - (O2) packs independent outputs (force[0], force[1]) and their operands into
//                    vector instructions: 10-30% faster large kernels. It is the most expensive
//                    pass here by far, but kernels run far more often than they compile.
//   InstCombine    - (O2) cleans up the shuffles and extracts SLP leaves.
// Nothing is needed before EarlyCSE: values are SSA from the start (no SROA/mem2reg), and
// there is no control flow to simplify. Every pass is exact without fast-math (LLVM only
// reassociates floating point under the reassoc flag), so results match the reference
// evaluator bit for bit, as with the default pipeline. O3 keeps LLVM's full O3 pipeline.
llvm::FunctionPassManager straight_line_pipeline(OptLevel level) {
    llvm::FunctionPassManager passes;
    passes.addPass(llvm::EarlyCSEPass(/*UseMemorySSA=*/false));
    passes.addPass(llvm::ReassociatePass());
    passes.addPass(llvm::InstCombinePass());
    if (level >= OptLevel::O2) {
        passes.addPass(llvm::SLPVectorizerPass());
        passes.addPass(llvm::InstCombinePass());
    }
    return passes;
}

} // namespace

void optimize(llvm::Module& module, llvm::TargetMachine& target, OptLevel level) {
    if (level == OptLevel::O0) {
        return;
    }
    // As clang sets them: vectorization from O2 on (kernels have no loops to vectorize).
    llvm::PipelineTuningOptions tuning;
    tuning.SLPVectorization = level >= OptLevel::O2;
    tuning.LoopVectorization = level >= OptLevel::O2;

    llvm::LoopAnalysisManager loops;
    llvm::FunctionAnalysisManager functions;
    llvm::CGSCCAnalysisManager sccs;
    llvm::ModuleAnalysisManager modules;
    // The target machine supplies the cost models (SLP's vector widths and instruction costs).
    llvm::PassBuilder builder(&target, tuning);
    builder.registerModuleAnalyses(modules);
    builder.registerCGSCCAnalyses(sccs);
    builder.registerFunctionAnalyses(functions);
    builder.registerLoopAnalyses(loops);
    builder.crossRegisterProxies(loops, functions, sccs, modules);
    llvm::ModulePassManager passes;
    if (level == OptLevel::O3) {
        passes = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    } else {
        passes.addPass(llvm::createModuleToFunctionPassAdaptor(straight_line_pipeline(level)));
    }
    passes.run(module, modules);
}

} // namespace mdl::codegen
