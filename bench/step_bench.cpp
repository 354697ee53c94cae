// Cost per step of each classical integrator on each shipped model it applies to (issue 5):
// 1000 fixed steps from the model's start state per iteration (DOPRI5: adaptive to the same
// end time), reported as time per step. Steps run through runtime::run, as `mdl run` does.
#include "bench.hpp"
#include "compiler/api/runtime_view.hpp"
#include "mdl/compiled_model.hpp"
#include "runtime/methods.hpp"
#include "runtime/run.hpp"

#include <benchmark/benchmark.h>
#include <memory>
#include <vector>

namespace {

constexpr std::size_t steps_per_iteration = 1000;
constexpr double step = 1e-5; // stable for every shipped model with every explicit method

struct NoOutput {
    void operator()(const mdl::runtime::State&) const {}
};

void step_benchmark(benchmark::State& bench, std::shared_ptr<mdl::CompiledModel> compiled,
                    mdl::runtime::Method method) {
    mdl::runtime::Model model = mdl::runtime_model(*compiled);
    const mdl::runtime::State start = mdl::initial_state(*compiled, model, 0.0);
    mdl::runtime::RunSettings settings;
    settings.method = method;
    settings.step = mdl::runtime::info(method).adaptive ? 0.0 : step;
    settings.stop_time = step * steps_per_iteration;
    std::size_t steps = 0;
    for (auto _ : bench) {
        mdl::runtime::State state = start;
        steps += mdl::runtime::run(model, state, settings, NoOutput{}).steps;
        benchmark::DoNotOptimize(state.q.data());
    }
    bench.counters["time_per_step"] = benchmark::Counter(
        static_cast<double>(steps), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

} // namespace

// Called from main after the cold-compile figures are taken: compiling the models here fills
// the object cache, so from a static initializer it made every later "cold" compilation of the
// process a cache hit.
void mdl::bench::register_step_benchmarks(const std::vector<ModelSource>& models) {
    for (const ModelSource& source : models) {
        auto compiled =
            std::make_shared<mdl::CompiledModel>(mdl::compile(source.text, source.path));
        mdl::runtime::Model model = mdl::runtime_model(*compiled);
        for (const auto& info : mdl::runtime::methods()) {
            try {
                mdl::runtime::require_applicable(info.method, model);
            } catch (const std::exception&) {
                continue; // e.g. Verlet on first-order states, Störmer with damping
            }
            benchmark::RegisterBenchmark(
                ("step/" + source.stem + "/" + std::string(info.name)).c_str(),
                [compiled, method = info.method](benchmark::State& s) {
                    step_benchmark(s, compiled, method);
                })
                ->Unit(benchmark::kMicrosecond)
                // 100 (model, method) pairs: fewer and shorter repetitions than the report's
                // defaults keep them to about half a minute (a benchmark's own settings win
                // over the command line's)
                ->Repetitions(3)
                ->MinTime(0.05);
        }
    }
}
