#include "codegen/optimize.hpp"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/OptimizationLevel.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Target/TargetMachine.h>

namespace mdl::codegen {

void optimize(llvm::Module& module, llvm::TargetMachine& target, OptLevel level) {
    if (level == OptLevel::O0) {
        return;
    }
    const llvm::OptimizationLevel pipeline_level =
        level == OptLevel::O1   ? llvm::OptimizationLevel::O1
        : level == OptLevel::O2 ? llvm::OptimizationLevel::O2
                                : llvm::OptimizationLevel::O3;
    // As clang sets them: the SLP vectorizer packs independent outputs (force[0], force[1])
    // into vector instructions from O2 on. It is the most expensive IR pass on large kernels
    // (about half of the optimization time) but makes them 10-30% faster, and kernels run far
    // more often than they compile. Kernels have no loops to vectorize.
    llvm::PipelineTuningOptions tuning;
    tuning.SLPVectorization = level >= OptLevel::O2;
    tuning.LoopVectorization = level >= OptLevel::O2;

    llvm::LoopAnalysisManager loops;
    llvm::FunctionAnalysisManager functions;
    llvm::CGSCCAnalysisManager sccs;
    llvm::ModuleAnalysisManager modules;
    llvm::PassBuilder builder(&target, tuning);
    builder.registerModuleAnalyses(modules);
    builder.registerCGSCCAnalyses(sccs);
    builder.registerFunctionAnalyses(functions);
    builder.registerLoopAnalyses(loops);
    builder.crossRegisterProxies(loops, functions, sccs, modules);
    llvm::ModulePassManager passes = builder.buildPerModuleDefaultPipeline(pipeline_level);
    passes.run(module, modules);
}

} // namespace mdl::codegen
