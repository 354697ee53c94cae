// Front-end latency: read nothing from disk inside the loop; parse + check one shipped model.
#include "check/checker.hpp"
#include "check/front_end.hpp"
#include "parse/parser.hpp"

#include <benchmark/benchmark.h>
#include <filesystem>
#include <stdexcept>

namespace {

void parse_and_check(benchmark::State& state, const std::string& path) {
    auto file = mdl::source::SourceFile::read(path);
    for (auto _ : state) {
        mdl::source::Diagnostics diagnostics(file);
        auto model = mdl::check::check_file(file, diagnostics);
        if (!model) {
            throw std::runtime_error(diagnostics.render());
        }
        benchmark::DoNotOptimize(model);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(file.text().size()));
}

// One benchmark per shipped model: frontend/<model>.
const bool registered = [] {
    namespace fs = std::filesystem;
    for (const auto& entry : fs::directory_iterator(fs::path(MDL_SOURCE_DIR) / "models")) {
        if (entry.path().extension() == ".mdl") {
            std::string path = entry.path().string();
            benchmark::RegisterBenchmark(("frontend/" + entry.path().stem().string()).c_str(),
                                         [path](benchmark::State& s) { parse_and_check(s, path); })
                ->Unit(benchmark::kMicrosecond);
        }
    }
    return true;
}();

} // namespace

BENCHMARK_MAIN();
