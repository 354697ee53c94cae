// Compile latency: source text -> native kernels, per shipped model and per stage.
//
// mdl::CompileOptions does not expose CodegenOptions::use_object_cache, and a repeated
// mdl::compile of the same model takes its machine code from the in-process object cache. So
// the warm figure runs the stages mdl::compile runs, in the same order, itself: parse + check,
// symbolic::equations_of_motion, codegen::CompiledKernels::compile with the cache off.
#include "bench.hpp"

#include "check/checker.hpp"
#include "check/front_end.hpp"
#include "codegen/compiled_kernels.hpp"
#include "mdl/compiled_model.hpp"
#include "parse/parser.hpp"
#include "symbolic/equations_of_motion.hpp"

#include <benchmark/benchmark.h>
#include <chrono>
#include <optional>
#include <stdexcept>

namespace mdl::bench {

namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point start, Clock::time_point end) {
    return std::chrono::duration<double, std::milli>(end - start).count();
}

struct Pipeline {
    std::optional<symbolic::System> system;
    std::optional<codegen::CompiledKernels> compiled;
};

// What one warm compilation spent where, in milliseconds.
struct StageTimes {
    double frontend = 0, symbolic = 0, codegen = 0;
    codegen::CompileTimings codegen_stages;
};

// parse + check, equations of motion, code generation without the object cache, on up to
// `threads` threads (0: the machine's).
StageTimes run_pipeline(const ModelSource& model, Pipeline& out, std::size_t threads) {
    StageTimes times;
    const auto start = Clock::now();
    source::SourceFile file{model.path, model.text};
    source::Diagnostics diagnostics(file);
    std::optional<check::CheckedModel> checked = check::check_file(file, diagnostics);
    if (!checked) {
        throw std::runtime_error(diagnostics.render());
    }
    const auto frontend_end = Clock::now();
    out.system.emplace(symbolic::equations_of_motion(*checked));
    const auto symbolic_end = Clock::now();
    codegen::CodegenOptions options;
    options.use_object_cache = false;
    options.threads = threads;
    out.compiled.emplace(codegen::CompiledKernels::compile(*out.system, options));
    const auto codegen_end = Clock::now();
    times.frontend = ms_between(start, frontend_end);
    times.symbolic = ms_between(frontend_end, symbolic_end);
    times.codegen = ms_between(symbolic_end, codegen_end);
    times.codegen_stages = out.compiled->timings();
    return times;
}

} // namespace

void compile_warm_benchmark(benchmark::State& state, const ModelSource& model, std::size_t threads,
                            bool warm_up) {
    if (warm_up) {
        Pipeline first; // LLVM initialised, this model's code paths and allocations warm
        run_pipeline(model, first, threads);
    }
    StageTimes sum;
    for (auto _ : state) {
        Pipeline pipeline;
        const StageTimes t = run_pipeline(model, pipeline, threads);
        benchmark::DoNotOptimize(pipeline.compiled->kernels().force);
        sum.frontend += t.frontend;
        sum.symbolic += t.symbolic;
        sum.codegen += t.codegen;
        sum.codegen_stages.target_ms += t.codegen_stages.target_ms;
        sum.codegen_stages.emit_ms += t.codegen_stages.emit_ms;
        sum.codegen_stages.optimize_ms += t.codegen_stages.optimize_ms;
        sum.codegen_stages.codegen_ms += t.codegen_stages.codegen_ms;
        sum.codegen_stages.link_ms += t.codegen_stages.link_ms;
        sum.codegen_stages.partitions = t.codegen_stages.partitions;
        // Tearing the JIT session down is not part of compiling.
        state.PauseTiming();
        pipeline.compiled.reset();
        pipeline.system.reset();
        state.ResumeTiming();
    }
    const auto average = [](double total) {
        return benchmark::Counter(total, benchmark::Counter::kAvgIterations);
    };
    state.counters["frontend_ms"] = average(sum.frontend);
    state.counters["symbolic_ms"] = average(sum.symbolic);
    state.counters["codegen_ms"] = average(sum.codegen);
    state.counters["cg_target_ms"] = average(sum.codegen_stages.target_ms);
    state.counters["cg_emit_ms"] = average(sum.codegen_stages.emit_ms);
    state.counters["cg_optimize_ms"] = average(sum.codegen_stages.optimize_ms);
    state.counters["cg_machine_ms"] = average(sum.codegen_stages.codegen_ms);
    state.counters["cg_link_ms"] = average(sum.codegen_stages.link_ms);
    state.counters["cg_partitions"] = static_cast<double>(sum.codegen_stages.partitions);
}

namespace {

void compile_cached(benchmark::State& state, const ModelSource& model) {
    mdl::compile(model.text, model.path); // fills the object cache
    for (auto _ : state) {
        std::optional<CompiledModel> compiled = mdl::compile(model.text, model.path);
        benchmark::DoNotOptimize(compiled->kernels().force);
        state.PauseTiming();
        compiled.reset();
        state.ResumeTiming();
    }
}

} // namespace

CompileTimes compile_once(const std::string& path) {
    // A cold compilation compiles: not the machine code an earlier process left on disk.
    CompileOptions options;
    options.disk_cache = false;
    const auto start = Clock::now();
    CompiledModel model = compile_file(path, options);
    const double total = ms_between(start, Clock::now());
    const CompiledModel::Timings& t = model.timings();
    return {total, t.frontend_ms, t.symbolic_ms, t.codegen_ms};
}

// Compile time against model size: models/hanging_chain.mdl with n = 10 ... 10,000 masses
// (2n positions), the array chain. From n = 3000 on (seconds per compilation) no
// warm-up compilation and 3 repetitions, whatever --benchmark_repetitions says.
void register_compile_size_benchmarks() {
    static std::vector<ModelSource> sizes;
    for (const ModelSource& m : shipped_models()) {
        if (m.stem != "hanging_chain") {
            continue;
        }
        const std::string marker = "parameter Integer n = 10";
        for (int n : compile_sizes) {
            std::string text = m.text;
            auto at = text.find(marker);
            if (at == std::string::npos) {
                throw std::runtime_error("hanging_chain.mdl: no '" + marker + "'");
            }
            text.replace(at, marker.size(), "parameter Integer n = " + std::to_string(n));
            sizes.push_back({"n" + std::to_string(n), m.path, text});
        }
    }
    for (const ModelSource& model : sizes) {
        const bool large = std::stoi(model.stem.substr(1)) >= 3000;
        auto* b = benchmark::RegisterBenchmark(("compile_size/" + model.stem).c_str(),
                                               [&model, large](benchmark::State& s) {
                                                   compile_warm_benchmark(s, model, 0, !large);
                                               })
                      ->Unit(benchmark::kMillisecond)
                      ->UseRealTime()
                      ->Iterations(1);
        if (large) {
            b->Repetitions(3);
        }
    }
}

void register_compile_benchmarks(const std::vector<ModelSource>& models) {
    register_compile_size_benchmarks();
    for (const ModelSource& model : models) {
        benchmark::RegisterBenchmark(
            ("compile/" + model.stem).c_str(),
            [&model](benchmark::State& s) { compile_warm_benchmark(s, model, 0); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    }
    // The same on the calling thread alone: what a machine with one core would see.
    for (const ModelSource& model : models) {
        benchmark::RegisterBenchmark(
            ("compile_serial/" + model.stem).c_str(),
            [&model](benchmark::State& s) { compile_warm_benchmark(s, model, 1); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    }
    for (const ModelSource& model : models) {
        benchmark::RegisterBenchmark(("compile_cached/" + model.stem).c_str(),
                                     [&model](benchmark::State& s) { compile_cached(s, model); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    }
}

} // namespace mdl::bench
