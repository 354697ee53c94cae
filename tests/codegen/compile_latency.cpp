// Prints how long CompiledKernels::compile takes for each seed system once LLVM is initialized
// (median of several runs, object cache off), stage by stage. A measurement, not a test.
#include "codegen/compiled_kernels.hpp"

#include "../symbolic/seed_systems.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <vector>

namespace {

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
    using namespace mdl;
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 21;
    struct Seed {
        const char* name;
        std::function<std::unique_ptr<symbolic::System>()> build;
    };
    const Seed seeds[] = {{"kapitza", test::kapitza},
                          {"double_pendulum", test::double_pendulum},
                          {"damped_oscillator", test::damped_oscillator}};

    // The first compilation pays for LLVM's one-time initialization.
    const auto warm_start = std::chrono::steady_clock::now();
    (void)codegen::CompiledKernels::compile(*test::kapitza());
    const double first_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - warm_start)
            .count();
    std::printf("first compilation (LLVM initialization included): %.2f ms\n", first_ms);
    std::printf("%-20s %8s %8s %8s %8s %8s %8s %8s %8s\n", "system", "derive", "target", "emit",
                "optimize", "codegen", "link", "total", "cached");

    for (const Seed& seed : seeds) {
        for (codegen::OptLevel level : {codegen::OptLevel::O2, codegen::OptLevel::O3}) {
            std::vector<double> derive, target, emit, optimize, codegen_ms, link, total, cached;
            for (int i = 0; i < runs; ++i) {
                const auto start = std::chrono::steady_clock::now();
                const auto system = seed.build(); // builds and derives the kernels
                derive.push_back(std::chrono::duration<double, std::milli>(
                                     std::chrono::steady_clock::now() - start)
                                     .count());
                codegen::CodegenOptions options;
                options.opt_level = level;
                options.use_object_cache = false;
                const auto compiled = codegen::CompiledKernels::compile(*system, options);
                const codegen::CompileTimings& t = compiled.timings();
                target.push_back(t.target_ms);
                emit.push_back(t.emit_ms);
                optimize.push_back(t.optimize_ms);
                codegen_ms.push_back(t.codegen_ms);
                link.push_back(t.link_ms);
                total.push_back(t.total_ms);
                options.use_object_cache = true;
                (void)codegen::CompiledKernels::compile(*system, options); // fills the cache
                cached.push_back(
                    codegen::CompiledKernels::compile(*system, options).timings().total_ms);
            }
            std::printf("%-17s %s %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f\n", seed.name,
                        level == codegen::OptLevel::O2 ? "O2" : "O3", median(derive),
                        median(target), median(emit), median(optimize), median(codegen_ms),
                        median(link), median(total), median(cached));
        }
    }
    return 0;
}
