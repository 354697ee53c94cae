// mdl_bench: compile latency and kernel speed in one run, with the ratios computed from that
// run's results (summary.cpp). Besides Google Benchmark's flags it takes
//   --mdl_markdown=FILE        also write the summary tables to FILE (bench/run-report)
//   --mdl_cold_repetitions=N   fresh processes per model for the cold compile figure (5; 0 = none)
//   --mdl_cold_compile=PATH    internal: compile PATH once, print the times, exit
//   --mdl_multiscale_markdown=FILE  write the multiscale tables (multiscale_bench.cpp) to FILE
//   --mdl_multiscale_csv=PREFIX     and the plot data to PREFIX-time.csv, PREFIX-evaluations.csv
//   --mdl_multiscale_cap=SECONDS    direct runs estimated to take longer are not run (30)
//   --mdl_stiff_markdown=FILE  write the stiff-springs tables (stiff_bench.cpp) to FILE
//   --mdl_stiff_csv=PREFIX     and the plot data to PREFIX-time.csv, PREFIX-evaluations.csv
//   --mdl_compile_size_plot=PREFIX  the compile time against model size: PREFIX.csv, PREFIX.svg
//   --mdl_stiff_cap=SECONDS    direct stiff-springs runs estimated to take longer are not run (30)
#include "bench.hpp"

#include "source/source_file.hpp"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <optional>
#include <regex>
#include <sstream>
#include <string_view>
#include <unistd.h>

namespace mdl::bench {

std::vector<ModelSource> shipped_models() {
    namespace fs = std::filesystem;
    std::vector<ModelSource> models;
    for (const auto& entry : fs::directory_iterator(fs::path(MDL_SOURCE_DIR) / "models")) {
        if (entry.path().extension() == ".mdl") {
            const std::string path = entry.path().string();
            models.push_back(
                {entry.path().stem().string(), path, source::SourceFile::read(path).text()});
        }
    }
    std::sort(models.begin(), models.end(),
              [](const ModelSource& a, const ModelSource& b) { return a.stem < b.stem; });
    return models;
}

namespace {

double to_ns(double value, benchmark::TimeUnit unit) {
    switch (unit) {
    case benchmark::kNanosecond:
        return value;
    case benchmark::kMicrosecond:
        return value * 1e3;
    case benchmark::kMillisecond:
        return value * 1e6;
    case benchmark::kSecond:
        return value * 1e9;
    }
    return value;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double coefficient_of_variation(const std::vector<double>& values) {
    if (values.size() < 2) {
        return 0.0;
    }
    const double n = static_cast<double>(values.size());
    double mean = 0;
    for (double v : values) {
        mean += v / n;
    }
    double variance = 0;
    for (double v : values) {
        variance += (v - mean) * (v - mean) / (n - 1);
    }
    return mean > 0 ? std::sqrt(variance) / mean : 0.0;
}

// The console output as usual, and every repetition kept for the summary.
class CollectingReporter : public benchmark::ConsoleReporter {
public:
    using ConsoleReporter::ConsoleReporter;

    void ReportRuns(const std::vector<Run>& runs) override {
        ConsoleReporter::ReportRuns(runs);
        for (const Run& run : runs) {
            if (run.error_occurred) {
                continue;
            }
            Sample sample{to_ns(run.GetAdjustedRealTime(), run.time_unit),
                          to_ns(run.GetAdjustedCPUTime(), run.time_unit),
                          {},
                          1};
            for (const auto& [name, c] : run.counters) {
                sample.counters[name] = c.value;
            }
            const std::string& name = run.run_name.function_name;
            if (run.run_type == Run::RT_Iteration) {
                samples_[name].push_back(std::move(sample));
            } else if (run.aggregate_name == "median") {
                sample.repetitions = static_cast<std::size_t>(run.repetitions);
                aggregates_[name].median = std::move(sample);
            } else if (run.aggregate_name == "cv") {
                aggregates_[name].real_cv = run.real_accumulated_time; // a fraction
                aggregates_[name].cpu_cv = run.cpu_accumulated_time;
            }
        }
    }

    // Medians over the repetitions (or the reported median when only aggregates came in).
    Results results() const {
        Results results;
        for (const auto& [name, samples] : samples_) {
            Measurement& m = results[name];
            std::vector<double> real, cpu;
            std::map<std::string, std::vector<double>> counters;
            for (const Sample& s : samples) {
                real.push_back(s.real_ns);
                cpu.push_back(s.cpu_ns);
                for (const auto& [counter, value] : s.counters) {
                    counters[counter].push_back(value);
                }
            }
            m.real_ns = median(real);
            m.cpu_ns = median(cpu);
            m.real_cv = coefficient_of_variation(real);
            m.cpu_cv = coefficient_of_variation(cpu);
            m.repetitions = samples.size();
            for (const auto& [counter, values] : counters) {
                m.counters[counter] = median(values);
            }
        }
        // --benchmark_display_aggregates_only: Google Benchmark's medians and cv.
        for (const auto& [name, aggregate] : aggregates_) {
            if (results.count(name) == 0 && aggregate.median) {
                Measurement& m = results[name];
                m.real_ns = aggregate.median->real_ns;
                m.cpu_ns = aggregate.median->cpu_ns;
                m.real_cv = aggregate.real_cv;
                m.cpu_cv = aggregate.cpu_cv;
                m.repetitions = aggregate.median->repetitions;
                m.counters = aggregate.median->counters;
            }
        }
        return results;
    }

private:
    struct Sample {
        double real_ns = 0, cpu_ns = 0;
        std::map<std::string, double> counters;
        std::size_t repetitions = 1;
    };
    struct Aggregates {
        std::optional<Sample> median;
        double real_cv = 0, cpu_cv = 0;
    };
    std::map<std::string, std::vector<Sample>> samples_;
    std::map<std::string, Aggregates> aggregates_;
};

std::optional<std::string_view> flag_value(std::string_view arg, std::string_view flag) {
    if (arg.size() > flag.size() && arg.substr(0, flag.size()) == flag && arg[flag.size()] == '=') {
        return arg.substr(flag.size() + 1);
    }
    return std::nullopt;
}

std::string shell_quote(const std::string& text) {
    std::string out = "'";
    for (char c : text) {
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return out + "'";
}

// Compiles `path` in a new process of this program; nullopt when that failed.
std::optional<CompileTimes> compile_in_fresh_process(const std::string& path) {
    // Resolved here: in the shell popen starts, /proc/self/exe is the shell.
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    const std::string command = shell_quote(self) + " --mdl_cold_compile=" + shell_quote(path);
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) {
        return std::nullopt;
    }
    std::string output;
    char buffer[256];
    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) {
        output += buffer;
    }
    if (pclose(pipe) != 0) {
        return std::nullopt;
    }
    std::istringstream in(output);
    std::string tag;
    CompileTimes t;
    if (in >> tag >> t.total_ms >> t.frontend_ms >> t.symbolic_ms >> t.codegen_ms &&
        tag == "mdl-cold") {
        return t;
    }
    return std::nullopt;
}

// Whether --benchmark_filter selects the benchmark `name`, e.g. one of the multiscale or
// stiff-springs benchmarks (their calibration takes a minute or more, so it is skipped when
// they would not run).
bool filter_selects(const std::string& name) {
    std::string filter = benchmark::GetBenchmarkFilter();
    if (filter.empty() || filter == "all") {
        return true;
    }
    const bool negative = filter.front() == '-';
    if (negative) {
        filter.erase(0, 1);
    }
    const bool match = std::regex_search(name, std::regex(filter));
    return match != negative;
}

} // namespace

} // namespace mdl::bench

// frontend_bench.cpp's BENCHMARK_MAIN is renamed (bench/CMakeLists.txt); its benchmarks are
// registered at static initialisation and run with the others.
int main(int argc, char** argv) {
    using namespace mdl::bench;
    std::string markdown_path, multiscale_markdown_path, multiscale_csv_prefix;
    std::string stiff_markdown_path, stiff_csv_prefix, compile_size_prefix;
    MultiscaleSettings multiscale;
    StiffSettings stiff;
    int cold_repetitions = 5;
    std::vector<char*> args{argv[0]};
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (auto path = flag_value(arg, "--mdl_cold_compile")) {
            try {
                const CompileTimes t = compile_once(std::string(*path));
                std::printf("mdl-cold %.17g %.17g %.17g %.17g\n", t.total_ms, t.frontend_ms,
                            t.symbolic_ms, t.codegen_ms);
                return 0;
            } catch (const std::exception& e) {
                std::fprintf(stderr, "%s\n", e.what());
                return 1;
            }
        } else if (auto file = flag_value(arg, "--mdl_markdown")) {
            markdown_path = std::string(*file);
        } else if (auto tables = flag_value(arg, "--mdl_multiscale_markdown")) {
            multiscale_markdown_path = std::string(*tables);
        } else if (auto prefix = flag_value(arg, "--mdl_multiscale_csv")) {
            multiscale_csv_prefix = std::string(*prefix);
        } else if (auto cap = flag_value(arg, "--mdl_multiscale_cap")) {
            multiscale.cap_seconds = std::stod(std::string(*cap));
        } else if (auto stiff_tables = flag_value(arg, "--mdl_stiff_markdown")) {
            stiff_markdown_path = std::string(*stiff_tables);
        } else if (auto stiff_prefix = flag_value(arg, "--mdl_stiff_csv")) {
            stiff_csv_prefix = std::string(*stiff_prefix);
        } else if (auto size_prefix = flag_value(arg, "--mdl_compile_size_plot")) {
            compile_size_prefix = std::string(*size_prefix);
        } else if (auto stiff_cap = flag_value(arg, "--mdl_stiff_cap")) {
            stiff.cap_seconds = std::stod(std::string(*stiff_cap));
        } else if (auto count = flag_value(arg, "--mdl_cold_repetitions")) {
            cold_repetitions = std::stoi(std::string(*count));
        } else {
            args.push_back(argv[i]);
        }
    }
    int args_count = static_cast<int>(args.size());
    args.push_back(nullptr);
    benchmark::Initialize(&args_count, args.data());
    if (benchmark::ReportUnrecognizedArguments(args_count, args.data())) {
        return 1;
    }

    const std::vector<ModelSource> models = shipped_models();
    ColdCompiles cold;
    // Before anything else touches LLVM: the first compilation of this process.
    cold.in_process_model = "kapitza";
    cold.in_process = compile_once(std::string(MDL_SOURCE_DIR) + "/models/kapitza.mdl");
    for (int r = 0; r < cold_repetitions; ++r) {
        for (const ModelSource& model : models) {
            if (auto t = compile_in_fresh_process(model.path)) {
                cold.fresh_process[model.stem].push_back(*t);
            } else {
                std::cerr << "mdl_bench: the cold compile of " << model.path
                          << " in a fresh process failed\n";
                return 1;
            }
        }
    }

    register_compile_benchmarks(models);
    register_step_benchmarks(models);
    register_micro_step_benchmarks();
    if (filter_selects("mechanics/compile/n:2")) {
        register_mechanics_benchmarks();
    }
    register_implicit_step_benchmarks();
    register_constraint_solve_benchmarks();
    if (!register_kernel_benchmarks(std::cerr)) {
        return 1;
    }
    if (filter_selects("multiscale/hmm-simple/omega:1e6") &&
        !register_multiscale_benchmarks(multiscale, std::cerr)) {
        return 1;
    }
    if (filter_selects("stiff/hmm-stiff/w2:1000") && !register_stiff_benchmarks(stiff, std::cerr)) {
        return 1;
    }

    CollectingReporter reporter(isatty(STDOUT_FILENO) ? benchmark::ConsoleReporter::OO_Defaults
                                                      : benchmark::ConsoleReporter::OO_Tabular);
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();

    const Results results = reporter.results();
    const std::string summary = summary_markdown(results, cold, models);
    if (!compile_size_prefix.empty() &&
        !write_compile_size_plot(results, compile_size_prefix, std::cerr)) {
        return 1;
    }
    const std::string multiscale_summary = multiscale_markdown(results, multiscale_csv_prefix);
    const std::string stiff_summary = stiff_markdown(results, stiff_csv_prefix);
    std::cout << "\n"
              << summary << "\n"
              << multiscale_summary << (stiff_summary.empty() ? "" : "\n") << stiff_summary
              << std::flush;
    for (const auto& [path, text] : {std::pair{multiscale_markdown_path, multiscale_summary},
                                     std::pair{stiff_markdown_path, stiff_summary}}) {
        if (!path.empty()) {
            std::ofstream out(path);
            out << text;
            if (!out) {
                std::cerr << "mdl_bench: cannot write " << path << "\n";
                return 1;
            }
        }
    }
    if (!markdown_path.empty()) {
        std::ofstream out(markdown_path);
        out << summary;
        if (!out) {
            std::cerr << "mdl_bench: cannot write " << markdown_path << "\n";
            return 1;
        }
    }
    return 0;
}
