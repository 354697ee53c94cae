// The n-link pendulum against the tools users would pick instead (issue 19 item 5, issue 23):
// mdl's side of the comparison. bench/mechanics-report runs these with
// bench/sympy_n_link_pendulum.py (sympy.physics.mechanics' LagrangesMethod + lambdify) and
// bench/mujoco_bench.cpp (MuJoCo's mj_step), and writes the table of docs/performance.md.
//
//   mechanics/compile/n:<n>    models/n_link_pendulum.mdl with n links: parse + check,
//                              derivation (symbolic), JIT (codegen), per-stage counters; on
//                              one thread, so that the CPU time is the whole compilation's
//                              (sympy runs on one too)
//   mechanics/step/<method>/n:<n>  time per step of rk4 (h = 1e-3, fixed) and dopri5 (rtol
//                              1e-8, atol 1e-10, adaptive) on the joint-angle model, and of
//                              rattle (h = 1e-3) on models/pendulum_chain.mdl (the same chain as
//                              n point masses with n rod constraints), from the models' start
//                              states over 0.2 s per iteration
//   mechanics/acceleration/n:<n>   one evaluation of the accelerations M(q)^-1 f(q, v) of the
//                              joint-angle model (force and mass_matrix kernels, Cholesky), the
//                              counterpart of sympy's lambdified M and forcing plus a solve
#include "bench.hpp"

#include "compiler/api/runtime_view.hpp"
#include "mdl/compiled_model.hpp"
#include "runtime/methods.hpp"
#include "runtime/run.hpp"

#include <benchmark/benchmark.h>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace mdl::bench {

namespace {

// models/<stem>.mdl with its Integer parameter n set to `n` in the source text (so that the
// compile benchmark derives and compiles exactly that model).
ModelSource with_links(const std::string& stem, int n) {
    for (const ModelSource& m : shipped_models()) {
        if (m.stem != stem) {
            continue;
        }
        const std::string marker = "parameter Integer n = 3";
        std::string text = m.text;
        const auto at = text.find(marker);
        if (at == std::string::npos) {
            throw std::runtime_error(stem + ".mdl: no '" + marker + "'");
        }
        text.replace(at, marker.size(), "parameter Integer n = " + std::to_string(n));
        return {stem + "_n" + std::to_string(n), m.path, text};
    }
    throw std::runtime_error("models/" + stem + ".mdl not found");
}

struct NoOutput {
    void operator()(const runtime::State&) const {}
};

constexpr double duration = 0.2;

void step_benchmark(benchmark::State& bench, std::shared_ptr<CompiledModel> compiled,
                    runtime::Method method) {
    const runtime::Model model = runtime_model(*compiled);
    const runtime::State start = initial_state(*compiled, model, 0.0);
    runtime::RunSettings settings;
    settings.method = method;
    settings.stop_time = duration;
    settings.step = runtime::info(method).adaptive ? 0.0 : 1e-3;
    settings.adaptive.rtol = 1e-8;
    settings.adaptive.atol = 1e-10;
    std::size_t steps = 0;
    for (auto _ : bench) {
        runtime::State state = start;
        steps += runtime::run(model, state, settings, NoOutput{}).steps;
        benchmark::DoNotOptimize(state.q.data());
    }
    bench.counters["time_per_step"] = benchmark::Counter(
        static_cast<double>(steps), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    bench.counters["steps"] =
        benchmark::Counter(static_cast<double>(steps), benchmark::Counter::kAvgIterations);
}

void acceleration_benchmark(benchmark::State& bench, std::shared_ptr<CompiledModel> compiled) {
    const runtime::Model model = runtime_model(*compiled);
    const auto n = model.positions();
    runtime::Vector q(n), v(n), a(n);
    const runtime::Vector x(0), theta(0);
    for (Eigen::Index i = 0; i < n; ++i) { // the states of sympy_n_link_pendulum.py's timing
        q[i] = 0.1 * static_cast<double>(i);
        v[i] = 0.1 * static_cast<double>(n + i);
    }
    for (auto _ : bench) {
        model.acceleration(0.0, q, v, x, theta, a);
        benchmark::DoNotOptimize(a.data());
    }
}

} // namespace

const std::vector<int>& mechanics_links() {
    static const std::vector<int> links{2, 4, 8, 12, 16, 20};
    return links;
}

void register_mechanics_benchmarks() {
    for (int n : mechanics_links()) {
        const std::string suffix = "/n:" + std::to_string(n);
        auto source = std::make_shared<ModelSource>(with_links("n_link_pendulum", n));
        benchmark::RegisterBenchmark(
            ("mechanics/compile" + suffix).c_str(),
            [source](benchmark::State& s) { compile_warm_benchmark(s, *source, 1); })
            ->Unit(benchmark::kMillisecond);
        CompileOptions options;
        options.structural_parameters = {{"n", n}};
        auto angles = std::make_shared<CompiledModel>(
            compile_file(std::string(MDL_SOURCE_DIR) + "/models/n_link_pendulum.mdl", options));
        auto cartesian = std::make_shared<CompiledModel>(
            compile_file(std::string(MDL_SOURCE_DIR) + "/models/pendulum_chain.mdl", options));
        benchmark::RegisterBenchmark(
            ("mechanics/acceleration" + suffix).c_str(),
            [angles](benchmark::State& s) { acceleration_benchmark(s, angles); })
            ->Unit(benchmark::kMicrosecond);
        for (runtime::Method method : {runtime::Method::rk4, runtime::Method::dopri5}) {
            benchmark::RegisterBenchmark(
                ("mechanics/step/" + std::string(runtime::info(method).name) + suffix).c_str(),
                [angles, method](benchmark::State& s) { step_benchmark(s, angles, method); })
                ->Unit(benchmark::kMillisecond);
        }
        benchmark::RegisterBenchmark(("mechanics/step/rattle-cartesian" + suffix).c_str(),
                                     [cartesian](benchmark::State& s) {
                                         step_benchmark(s, cartesian, runtime::Method::rattle);
                                     })
            ->Unit(benchmark::kMillisecond);
    }
}

} // namespace mdl::bench
