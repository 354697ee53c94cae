#include "codegen/partition.hpp"

#include "codegen/optimize.hpp"

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <numeric>

namespace mdl::codegen {

namespace {

// Estimated compile time of a function of n IR instructions, in units of about 12 µs (the
// machine-code time of one instruction), fitted on the shipped models at O2 on one x86-64
// machine: a fixed cost per function (building the machine function, running some 80 machine
// passes over it), a linear part (instruction selection, register allocation) and, when the
// function is SLP-vectorized, about as much again plus a quadratic part (the vectorizer's
// trees and scheduling regions span the block). Only the ranking and the ratios matter.
double estimated_cost(const llvm::Function& f, const CodegenOptions& options) {
    const auto n = static_cast<double>(f.getInstructionCount());
    const bool slp = slp_vectorizes(f, options);
    return 30.0 + n + (slp ? n + n * n / 800.0 : 0.0);
}

std::vector<double> costs(const llvm::Module& module, const CodegenOptions& options) {
    std::vector<double> result;
    for (const llvm::Function& f : module) {
        if (!f.isDeclaration()) {
            result.push_back(estimated_cost(f, options));
        }
    }
    return result;
}

} // namespace

std::vector<std::size_t> plan_partitions(const llvm::Module& module, std::size_t partitions,
                                         const CodegenOptions& options) {
    const std::vector<double> cost = costs(module, options);
    std::vector<std::size_t> plan(cost.size(), 0);
    if (partitions <= 1) {
        return plan;
    }
    // Largest first, each to the least loaded partition (ties: the lowest index, and the
    // order of equal costs is the module order, so the plan is deterministic).
    std::vector<std::size_t> order(cost.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return cost[a] > cost[b]; });
    std::vector<double> load(partitions, 0.0);
    for (std::size_t f : order) {
        const auto least = std::min_element(load.begin(), load.end());
        plan[f] = static_cast<std::size_t>(least - load.begin());
        *least += cost[f];
    }
    return plan;
}

double estimated_compile_cost(const symbolic::System& system) {
    double cost = static_cast<double>(system.pool().size());
    for (symbolic::Kernel k : symbolic::all_kernels) {
        const std::size_t outputs = system.outputs(k).size();
        cost += outputs == 0 ? 0.0 : 30.0 + static_cast<double>(outputs);
    }
    return cost;
}

void keep_partition(llvm::Module& module, const std::vector<std::size_t>& plan,
                    std::size_t partition) {
    std::size_t index = 0;
    for (llvm::Function& f : module) {
        if (f.isDeclaration()) {
            continue;
        }
        if (plan.at(index++) != partition) {
            // A declaration needs external linkage; emit_ir.cpp gives sections hidden
            // external linkage already, so the name is what the other object defines.
            f.deleteBody();
            f.setLinkage(llvm::GlobalValue::ExternalLinkage);
        }
    }
}

} // namespace mdl::codegen
