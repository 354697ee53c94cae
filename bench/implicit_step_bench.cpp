// Cost of one implicit step on a large model (issue 19): generalized-alpha on the hanging
// chain of n masses (2n positions) with dense and with sparse Newton matrices
// (runtime/sparse_jacobians.hpp), both with the default modified Newton iteration, the sparse
// one also with Newton's method (a new matrix at every iterate: galpha-sparse-newton),
// against one velocity Verlet step on the same chain, the cheapest explicit step.
// implicit_step/chain:<positions>/<stepper>, time per step; the chain is compiled when its first
// benchmark runs (a chain of 1000 masses takes seconds), so a filter that selects none costs
// nothing. Ratios: docs/performance.md.
#include "bench.hpp"
#include "compiler/api/runtime_view.hpp"
#include "mdl/compiled_model.hpp"
#include "runtime/integrators/generalized_alpha.hpp"
#include "runtime/integrators/verlet.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

namespace {

struct Chain {
    mdl::CompiledModel compiled;
    mdl::runtime::Model model;
    mdl::runtime::State start;
};

// The chain of `masses`, compiled once per process, its start state displaced so that the
// springs stretch unevenly (Newton then iterates, as in a real run).
const Chain& chain(int masses) {
    static std::map<int, std::unique_ptr<Chain>> chains;
    static std::mutex mutex;
    const std::lock_guard<std::mutex> lock(mutex);
    auto& slot = chains[masses];
    if (!slot) {
        mdl::CompileOptions options;
        options.structural_parameters = {{"n", masses}};
        mdl::CompiledModel compiled =
            mdl::compile_file(std::string(MDL_SOURCE_DIR) + "/models/hanging_chain.mdl", options);
        mdl::runtime::Model model = mdl::runtime_model(compiled);
        mdl::runtime::State start = mdl::initial_state(compiled, model, 0.0);
        for (Eigen::Index i = 0; i < start.q.size(); ++i) {
            start.q[i] += 0.01 * std::sin(1.7 * static_cast<double>(i));
        }
        slot = std::make_unique<Chain>(Chain{std::move(compiled), std::move(model), start});
    }
    return *slot;
}

constexpr double step = 1e-4;

template <class Stepper>
void run_steps(benchmark::State& bench, Stepper& stepper, const Chain& c, int steps) {
    std::size_t taken = 0;
    std::size_t updates = 0; // Newton updates (implicit steppers)
    for (auto _ : bench) {
        mdl::runtime::State s = c.start;
        for (int i = 0; i < steps; ++i) {
            stepper.step(s, step);
            if constexpr (requires { stepper.newton_iterations(); }) {
                updates += static_cast<std::size_t>(stepper.newton_iterations());
            }
        }
        taken += static_cast<std::size_t>(steps);
        benchmark::DoNotOptimize(s.q.data());
    }
    bench.counters["time_per_step"] = benchmark::Counter(
        static_cast<double>(taken), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    if constexpr (requires { stepper.jacobian_evaluations(); }) {
        const double per_step = 1.0 / static_cast<double>(std::max<std::size_t>(taken, 1));
        bench.counters["newton_updates_per_step"] = static_cast<double>(updates) * per_step;
        bench.counters["matrices_per_step"] =
            static_cast<double>(stepper.jacobian_evaluations()) * per_step;
    }
}

void verlet(benchmark::State& bench, int masses) {
    const Chain& c = chain(masses);
    mdl::runtime::VelocityVerlet<> stepper(c.model);
    run_steps(bench, stepper, c, 100);
}

void galpha(benchmark::State& bench, int masses, mdl::runtime::LinearAlgebra algebra,
            bool jacobian_reuse = true) {
    const Chain& c = chain(masses);
    mdl::runtime::ImplicitOptions options;
    options.linear_algebra = algebra;
    options.jacobian_reuse = jacobian_reuse;
    mdl::runtime::GeneralizedAlpha<> stepper(c.model, 0.8, options);
    if ((algebra == mdl::runtime::LinearAlgebra::sparse) != stepper.sparse()) {
        bench.SkipWithError("the stepper did not take the requested path");
        return;
    }
    run_steps(bench, stepper, c, algebra == mdl::runtime::LinearAlgebra::dense ? 2 : 20);
}

} // namespace

void mdl::bench::register_implicit_step_benchmarks() {
    using mdl::runtime::LinearAlgebra;
    // 16 ... 200 positions place the threshold of sparse_jacobians.hpp; 2000 is the target
    // of issue 19 (the dense path only once there: a 2000 x 2000 LU per Newton iteration).
    for (int masses : {8, 16, 24, 32, 50, 100, 1000}) {
        const std::string stem = "implicit_step/chain:" + std::to_string(2 * masses) + "/";
        benchmark::RegisterBenchmark((stem + "verlet").c_str(), [masses](benchmark::State& s) {
            verlet(s, masses);
        })->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark((stem + "galpha-sparse").c_str(), [masses](
                                                                           benchmark::State& s) {
            galpha(s, masses, LinearAlgebra::sparse);
        })->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark(
            (stem + "galpha-sparse-newton").c_str(),
            [masses](benchmark::State& s) { galpha(s, masses, LinearAlgebra::sparse, false); })
            ->Unit(benchmark::kMicrosecond);
        auto* dense = benchmark::RegisterBenchmark(
            (stem + "galpha-dense").c_str(),
            [masses](benchmark::State& s) { galpha(s, masses, LinearAlgebra::dense); });
        dense->Unit(benchmark::kMicrosecond);
        if (masses >= 1000) {
            dense->Iterations(1);
        }
    }
}
