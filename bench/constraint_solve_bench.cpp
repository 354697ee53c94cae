// Cost of the constrained methods' linear algebra on a long pendulum chain (issue 19):
//
//   ida_step/chain:<links>/<variant>: one internal step of IDA (the run from the chain's
//     start to t = 0.02 at rtol 1e-6, divided by its steps) with IDA's dense difference
//     quotients (dq), the kernels' Newton matrix factorized dense (dense) or by KLU (sparse)
//     (runtime/integrators/ida_residual.hpp);
//   constraint_step/chain:<links>/<variant>: one RATTLE step (h = 1e-3) with the dense and
//     the sparse constraint solves (runtime/integrators/sparse_constraint_solves.hpp).
//
// models/pendulum_chain.mdl with n links: n constraints, 2n positions. The chain is compiled
// when its first benchmark runs, so a filter that selects none costs nothing. The dense
// variants of the longest chains run once (seconds per step). Ratios: docs/performance.md.
#include "bench.hpp"
#include "compiler/api/runtime_view.hpp"
#include "mdl/compiled_model.hpp"
#include "runtime/integrators/ida.hpp"
#include "runtime/integrators/rattle.hpp"

#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace {

struct Chain {
    mdl::CompiledModel compiled;
    mdl::runtime::Model model;
    mdl::runtime::State start;
};

const Chain& pendulum_chain(int links) {
    static std::map<int, std::unique_ptr<Chain>> chains;
    static std::mutex mutex;
    const std::lock_guard<std::mutex> lock(mutex);
    auto& slot = chains[links];
    if (!slot) {
        mdl::CompileOptions options;
        options.structural_parameters = {{"n", links}};
        mdl::CompiledModel compiled =
            mdl::compile_file(std::string(MDL_SOURCE_DIR) + "/models/pendulum_chain.mdl", options);
        mdl::runtime::Model model = mdl::runtime_model(compiled);
        mdl::runtime::State start = mdl::initial_state(compiled, model, 0.0);
        slot = std::make_unique<Chain>(Chain{std::move(compiled), std::move(model), start});
    }
    return *slot;
}

enum class IdaVariant { dq, dense, sparse };

void ida_step(benchmark::State& bench, int links, IdaVariant variant) {
    const Chain& c = pendulum_chain(links);
    mdl::runtime::IdaOptions options;
    options.rtol = 1e-6;
    options.atol = 1e-8;
    options.model_jacobian = variant != IdaVariant::dq;
    options.linear_algebra = variant == IdaVariant::sparse ? mdl::runtime::LinearAlgebra::sparse
                                                           : mdl::runtime::LinearAlgebra::dense;
    const auto expected = variant == IdaVariant::dq
                              ? mdl::runtime::IdaLinearAlgebra::dense_difference_quotients
                          : variant == IdaVariant::dense ? mdl::runtime::IdaLinearAlgebra::dense
                                                         : mdl::runtime::IdaLinearAlgebra::sparse;
    if (mdl::runtime::ida_linear_algebra(c.model, options) != expected) {
        bench.SkipWithError("ida did not take the requested path (no SUNDIALS or no KLU)");
        return;
    }
    const double t_end = 0.02;
    std::size_t steps = 0;
    for (auto _ : bench) {
        mdl::runtime::State s = c.start;
        const mdl::runtime::IntegrationStats stats = mdl::runtime::integrate_ida(
            c.model, s, options, t_end, t_end, [](const mdl::runtime::State&) {});
        steps += stats.steps;
        benchmark::DoNotOptimize(s.q.data());
    }
    bench.counters["time_per_step"] = benchmark::Counter(
        static_cast<double>(steps), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void rattle_step(benchmark::State& bench, int links, mdl::runtime::LinearAlgebra algebra) {
    const Chain& c = pendulum_chain(links);
    mdl::runtime::Rattle<> stepper(c.model, {}, algebra);
    if ((algebra == mdl::runtime::LinearAlgebra::sparse) != stepper.sparse()) {
        bench.SkipWithError("the stepper did not take the requested path");
        return;
    }
    const int steps = algebra == mdl::runtime::LinearAlgebra::sparse || links <= 64 ? 10 : 1;
    std::size_t taken = 0;
    for (auto _ : bench) {
        mdl::runtime::State s = c.start;
        for (int i = 0; i < steps; ++i) {
            stepper.step(s, 1e-3);
        }
        taken += static_cast<std::size_t>(steps);
        benchmark::DoNotOptimize(s.q.data());
    }
    bench.counters["time_per_step"] = benchmark::Counter(
        static_cast<double>(taken), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

} // namespace

void mdl::bench::register_constraint_solve_benchmarks() {
    using mdl::runtime::LinearAlgebra;
    for (const int links : constraint_solve_chain_links()) {
        const std::string chain = "/chain:" + std::to_string(links) + "/";
        const bool long_chain = links >= 500;
        for (const auto& [name, variant] :
             {std::pair{"dq", IdaVariant::dq}, std::pair{"dense", IdaVariant::dense},
              std::pair{"sparse", IdaVariant::sparse}}) {
            if (long_chain && variant != IdaVariant::sparse) {
                continue; // a dense 6000 x 6000 LU per Newton matrix: minutes per run
            }
            const IdaVariant v = variant;
            auto* b = benchmark::RegisterBenchmark(
                ("ida_step" + chain + name).c_str(),
                [links, v](benchmark::State& s) { ida_step(s, links, v); });
            b->Unit(benchmark::kMicrosecond);
            if (links >= 200 && variant != IdaVariant::sparse) {
                b->Iterations(1);
            }
        }
        for (const auto& [name, algebra] : {std::pair{"rattle-dense", LinearAlgebra::dense},
                                            std::pair{"rattle-sparse", LinearAlgebra::sparse}}) {
            const LinearAlgebra a = algebra;
            auto* b = benchmark::RegisterBenchmark(
                ("constraint_step" + chain + name).c_str(),
                [links, a](benchmark::State& s) { rattle_step(s, links, a); });
            b->Unit(benchmark::kMicrosecond);
            if (links >= 200 && algebra == LinearAlgebra::dense) {
                b->Iterations(1);
            }
        }
    }
}

std::vector<int> mdl::bench::constraint_solve_chain_links() {
    // 4 ... 64 links place the thresholds; 1000 links (2000 positions) is issue 19's size
    return {4, 8, 16, 32, 64, 128, 256, 1000};
}
