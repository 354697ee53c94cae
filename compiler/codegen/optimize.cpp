#include "codegen/optimize.hpp"

#include "codegen/emit_ir.hpp"

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

#include <cstddef>

namespace mdl::codegen {

namespace {

// SLP vectorization where slp_vectorizes says so. The vectorizer's time grows faster than
// linearly with the instructions of a block (it builds, costs and schedules a tree for every
// run of consecutive stores, over a scheduling region that spans the block): 1.8 ms for the
// 200 instructions of spring_chain's force kernel, 7 ms for a 520-instruction section of its
// df/dq, which vectorized is 5-15% faster; but an implicit integrator's step factorises the
// Jacobian after evaluating it, at a cost that grows with the cube of its size.
class SelectiveSLP : public llvm::PassInfoMixin<SelectiveSLP> {
public:
    explicit SelectiveSLP(const CodegenOptions& options) : options_(options) {}

    llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager& analyses) {
        if (!slp_vectorizes(f, options_)) {
            return llvm::PreservedAnalyses::all();
        }
        return slp_.run(f, analyses);
    }

private:
    CodegenOptions options_;
    llvm::SLPVectorizerPass slp_;
};

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
//   SLPVectorizer  - (O2, where slp_vectorizes says) packs independent outputs (force[0],
//                    force[1]) and their operands into vector instructions: 10-30% faster
//                    large kernels. It is the most expensive pass here by far, but kernels
//                    run far more often than they compile.
//   InstCombine    - (O2) cleans up the shuffles and extracts SLP leaves.
// Nothing is needed before EarlyCSE: values are SSA from the start (no SROA/mem2reg), and
// there is no control flow to simplify. Every pass is exact without fast-math (LLVM only
// reassociates floating point under the reassoc flag), so results match the reference
// evaluator bit for bit, as with the default pipeline. O3 keeps LLVM's full O3 pipeline.
llvm::FunctionPassManager straight_line_pipeline(const CodegenOptions& options) {
    const OptLevel level = options.opt_level;
    llvm::FunctionPassManager passes;
    passes.addPass(llvm::EarlyCSEPass(/*UseMemorySSA=*/false));
    passes.addPass(llvm::ReassociatePass());
    passes.addPass(llvm::InstCombinePass());
    if (level >= OptLevel::O2) {
        passes.addPass(SelectiveSLP(options));
        passes.addPass(llvm::InstCombinePass());
    }
    return passes;
}

} // namespace

bool slp_vectorizes(const llvm::Function& f, const CodegenOptions& options) {
    if (options.opt_level < OptLevel::O2) {
        return false;
    }
    return !f.hasFnAttribute(jacobian_attribute) ||
           f.getInstructionCount() <= options.slp_max_jacobian_instructions;
}

void optimize(llvm::Module& module, llvm::TargetMachine& target, const CodegenOptions& options) {
    const OptLevel level = options.opt_level;
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
        passes.addPass(llvm::createModuleToFunctionPassAdaptor(straight_line_pipeline(options)));
    }
    passes.run(module, modules);
}

} // namespace mdl::codegen
