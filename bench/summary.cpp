// The tables of the report, computed from the medians of one run's repetitions.
#include "bench.hpp"

#include "runtime/output/plot.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <optional>
#include <utility>

namespace mdl::bench {

namespace {

// Target of issue 4: compile under 10 ms per model, warm; JIT at least 0.95x hand-written.
constexpr double compile_target_ms = 10.0;
constexpr double kernel_target_ratio = 0.95;

double counter(const Measurement& m, const std::string& name) {
    auto it = m.counters.find(name);
    return it == m.counters.end() ? 0.0 : it->second;
}

double median(std::vector<double> values) {
    if (values.empty()) {
        return 0.0;
    }
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

std::string ms(double value) {
    return fmt::format("{:.2f}", value);
}

std::string ns(double value) {
    return value >= 100 ? fmt::format("{:.0f}", value) : fmt::format("{:.1f}", value);
}

std::string percent(double fraction) {
    return fmt::format("{:.1f}%", 100 * fraction);
}

std::string compile_table(const Results& results, const ColdCompiles& cold,
                          const std::vector<ModelSource>& models) {
    std::string out;
    std::size_t rows = 0, met = 0;
    double worst = 0;
    std::string worst_model;
    out += "| model | warm total [ms] | front end | symbolic | codegen | codegen: target / "
           "emit IR / optimize / machine code / JIT link | threads | one thread [ms] | cv of "
           "total | cached recompile [ms] | cold, fresh process [ms] | warm < 10 ms |\n";
    out += "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|:-:|\n";
    for (const ModelSource& model : models) {
        const Measurement* warm = find_result(results, "compile/" + model.stem);
        if (warm == nullptr) {
            continue;
        }
        const double total = warm->real_ns / 1e6;
        const Measurement* cached = find_result(results, "compile_cached/" + model.stem);
        const Measurement* serial = find_result(results, "compile_serial/" + model.stem);
        std::string cold_text = "-";
        if (auto it = cold.fresh_process.find(model.stem); it != cold.fresh_process.end()) {
            std::vector<double> totals;
            for (const CompileTimes& t : it->second) {
                totals.push_back(t.total_ms);
            }
            cold_text = ms(median(totals));
        }
        out +=
            fmt::format("| {} | **{}** | {} | {} | {} | {} / {} / {} / {} / {} | {} | {} | {} | {} "
                        "| {} | {} |\n",
                        model.stem, ms(total), ms(counter(*warm, "frontend_ms")),
                        ms(counter(*warm, "symbolic_ms")), ms(counter(*warm, "codegen_ms")),
                        ms(counter(*warm, "cg_target_ms")), ms(counter(*warm, "cg_emit_ms")),
                        ms(counter(*warm, "cg_optimize_ms")), ms(counter(*warm, "cg_machine_ms")),
                        ms(counter(*warm, "cg_link_ms")), counter(*warm, "cg_partitions"),
                        serial ? ms(serial->real_ns / 1e6) : "-", percent(warm->real_cv),
                        cached ? ms(cached->real_ns / 1e6) : "-", cold_text,
                        total < compile_target_ms ? "yes" : "no");
        ++rows;
        met += total < compile_target_ms ? 1 : 0;
        if (total > worst) {
            worst = total;
            worst_model = model.stem;
        }
    }
    if (rows == 0) {
        return "";
    }
    out += fmt::format("\n{} of {} models compile in under {} ms warm; the slowest is {} "
                       "({} ms).\n",
                       met, rows, compile_target_ms, worst_model, ms(worst));
    if (cold.in_process) {
        const CompileTimes& t = *cold.in_process;
        out += fmt::format("\nCold, first compilation of this process (`{}`, LLVM "
                           "initialisation included): **{} ms** (front end {}, symbolic {}, "
                           "codegen {}).\n",
                           cold.in_process_model, ms(t.total_ms), ms(t.frontend_ms),
                           ms(t.symbolic_ms), ms(t.codegen_ms));
    }
    return out;
}

// compile_size/n<N>: (n, total in ms) for the sizes that ran.
std::vector<std::pair<int, double>> compile_size_totals(const Results& results) {
    std::vector<std::pair<int, double>> totals;
    for (int n : compile_sizes) {
        if (const Measurement* m = find_result(results, "compile_size/n" + std::to_string(n))) {
            totals.emplace_back(n, m->real_ns / 1e6);
        }
    }
    return totals;
}

// The least-squares line through (log n, log time) from n = 100 on: time = c n^slope.
struct PowerLaw {
    double c = 0, slope = 0;
};
std::optional<PowerLaw> fit_power_law(const std::vector<std::pair<int, double>>& totals) {
    double sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0, count = 0.0;
    for (const auto& [n, total] : totals) {
        if (n >= 100) {
            const double x = std::log(static_cast<double>(n)), y = std::log(total);
            sx += x, sy += y, sxx += x * x, sxy += x * y, count += 1.0;
        }
    }
    if (count < 2.0) {
        return std::nullopt;
    }
    const double slope = (count * sxy - sx * sy) / (count * sxx - sx * sx);
    return PowerLaw{std::exp((sy - slope * sx) / count), slope};
}

// Compile time against size: compile_size/n<N> (models/hanging_chain.mdl, 2N positions).
std::string compile_size_table(const Results& results) {
    const std::vector<std::pair<int, double>> totals = compile_size_totals(results);
    if (totals.empty()) {
        return "";
    }
    std::string out = "| masses n | positions | total [ms] | front end | symbolic | codegen |\n"
                      "|--:|--:|--:|--:|--:|--:|\n";
    for (const auto& [n, total] : totals) {
        const Measurement& m = *find_result(results, "compile_size/n" + std::to_string(n));
        out += fmt::format("| {} | {} | **{}** | {} | {} | {} |\n", n, 2 * n, ms(total),
                           ms(counter(m, "frontend_ms")), ms(counter(m, "symbolic_ms")),
                           ms(counter(m, "codegen_ms")));
    }
    const auto total_at = [&](int n) -> std::optional<double> {
        for (const auto& [size, total] : totals) {
            if (size == n) {
                return total;
            }
        }
        return std::nullopt;
    };
    out += "\n";
    if (const auto t100 = total_at(100), t1000 = total_at(1000); t100 && t1000) {
        out +=
            fmt::format("- From n = 100 to n = 1000 the compile time grows **{:.1f}x** (10x more "
                        "masses; target: at most 12x): {}.\n",
                        *t1000 / *t100, *t1000 / *t100 <= 12.0 ? "met" : "not met");
    }
    for (const auto& [n, target_s] : {std::pair{1000, 1.0}, std::pair{10000, 10.0}}) {
        if (const auto t = total_at(n)) {
            out +=
                fmt::format("- n = {} ({} positions) compiles in **{:.2f} s** (target: under "
                            "{:g} s): {}.\n",
                            n, 2 * n, *t / 1e3, target_s, *t / 1e3 < target_s ? "met" : "not met");
        }
    }
    if (const auto fit = fit_power_law(totals)) {
        out += fmt::format("- Fitted on log-log axes from n = 100 on, the time grows as "
                           "n^{:.2f} (1 is linear).\n",
                           fit->slope);
    }
    return out;
}

} // namespace

bool write_compile_size_plot(const Results& results, const std::string& prefix,
                             std::ostream& errors) {
    const std::vector<std::pair<int, double>> totals = compile_size_totals(results);
    const std::optional<PowerLaw> fit = fit_power_law(totals);
    if (!fit) {
        return true; // nothing measured to plot
    }
    const std::string csv_path = prefix + ".csv";
    std::ofstream csv(csv_path);
    csv << "n,measured,fitted\n";
    for (const auto& [n, total] : totals) {
        csv << fmt::format("{},{:.6g},{:.6g}\n", n, total / 1e3,
                           fit->c * std::pow(static_cast<double>(n), fit->slope) / 1e3);
    }
    csv.close();
    if (!csv) {
        errors << "mdl_bench: cannot write " << csv_path << "\n";
        return false;
    }
    runtime::PlotSpec spec;
    spec.output = prefix + ".svg";
    spec.title = fmt::format("compile time of models/hanging_chain.mdl against n (fit: n^{:.2f})",
                             fit->slope);
    spec.xlabel = "masses n (2n positions)";
    spec.ylabel = "compile time [s]";
    spec.logx = spec.logy = true;
    spec.series.push_back({csv_path, "n", "measured", "measured", runtime::PlotStyle::linespoints});
    spec.series.push_back({csv_path, "n", "fitted", fmt::format("fitted n^{:.2f}", fit->slope),
                           runtime::PlotStyle::lines});
    try {
        runtime::render_plot(spec);
    } catch (const runtime::PlotError& e) {
        errors << "mdl_bench: no plot " << spec.output << ": " << e.what() << "\n";
    }
    return true;
}

namespace {

std::string kernel_table(const Results& results) {
    std::string out;
    std::size_t rows = 0, met = 0;
    double lowest = 1e300;
    out +=
        "| model | kernel | JIT [ns] | hand-written -O2 [ns] | **hand-written / JIT, "
        "paired** | harness check: hand-written / itself | ratio of the medians | JIT >= 0.95x | "
        "cv JIT, hand | hand-written -O2 -march=native [ns] | native / JIT | DAG evaluator "
        "[ns] | evaluator / JIT |\n";
    out += "|---|---|--:|--:|--:|--:|--:|:-:|--:|--:|--:|--:|--:|\n";
    for (const KernelCaseName& c : kernel_cases()) {
        const std::string prefix = "kernel/" + c.model + "/" + c.kernel + "/";
        const Measurement* jit = find_result(results, prefix + "jit");
        const Measurement* hand = find_result(results, prefix + "handwritten");
        const Measurement* paired = find_result(results, prefix + "paired");
        const Measurement* native = find_result(results, prefix + "handwritten_native");
        const Measurement* evaluator = find_result(results, prefix + "evaluator");
        if (jit == nullptr || hand == nullptr) {
            continue;
        }
        const double of_medians = hand->cpu_ns / jit->cpu_ns;
        const double ratio = paired ? counter(*paired, "hand_over_jit") : of_medians;
        out += fmt::format(
            "| {} | {} | {} | {} | **{}** | {} | {:.2f} | {} | {}, {} | {} | {} | {} | {} |\n",
            c.model, c.kernel, ns(jit->cpu_ns), ns(hand->cpu_ns),
            paired ? fmt::format("{:.2f}", ratio) : "-",
            paired ? fmt::format("{:.2f}", counter(*paired, "hand_over_hand")) : "-", of_medians,
            ratio >= kernel_target_ratio ? "yes" : "no", percent(jit->cpu_cv),
            percent(hand->cpu_cv), native ? ns(native->cpu_ns) : "-",
            native ? fmt::format("{:.2f}", native->cpu_ns / jit->cpu_ns) : "-",
            evaluator ? ns(evaluator->cpu_ns) : "-",
            evaluator ? fmt::format("{:.0f}", evaluator->cpu_ns / jit->cpu_ns) : "-");
        ++rows;
        met += ratio >= kernel_target_ratio ? 1 : 0;
        lowest = std::min(lowest, ratio);
    }
    if (rows == 0) {
        return "";
    }
    out += fmt::format("\n{} of {} kernels reach the target (hand-written / JIT >= {}, paired "
                       "where measured); the lowest ratio is {:.2f}.\n",
                       met, rows, kernel_target_ratio, lowest);
    out += "\nFloating-point operations in the JIT kernels' optimized LLVM IR (vector "
           "operations counted per lane):\n\n";
    out += "| model | kernel | fdiv | sqrt | fmul + fadd + fsub | C library calls |\n";
    out += "|---|---|--:|--:|--:|--:|\n";
    for (const KernelCaseName& c : kernel_cases()) {
        if (c.jit_ir.found) {
            out += fmt::format("| {} | {} | {:g} | {:g} | {:g} | {} |\n", c.model, c.kernel,
                               c.jit_ir.divisions, c.jit_ir.square_roots, c.jit_ir.mul_add,
                               c.jit_ir.calls);
        }
    }
    return out;
}

// The multiscale inner loop: micro step against force call (micro_step_bench.cpp). The target
// is checked against the force call as an integration makes it (each input waiting for the
// previous output); the ratio to independent calls is shown beside it.
std::string micro_step_table(const Results& results) {
    constexpr double target = 1.5;
    std::string out;
    std::size_t rows = 0, met = 0;
    for (const MicroStepCaseName& c : micro_step_cases()) {
        const Measurement* m = find_result(results, c.benchmark);
        if (m == nullptr) {
            continue;
        }
        const double chained = counter(*m, "micro_over_force_chain");
        out += fmt::format(
            "| {} | {:.0f} | {} | {} | {} | **{:.2f}** | {:.2f} | {} | {} | {:.2f} |\n",
            c.description, counter(*m, "micro_steps"), ns(counter(*m, "force_chain_ns")),
            ns(counter(*m, "force_ns")), ns(counter(*m, "micro_step_ns")), chained,
            counter(*m, "micro_over_force"), chained < target ? "yes" : "no",
            ns(counter(*m, "generic_step_ns")), counter(*m, "generic_over_force"));
        ++rows;
        met += chained < target ? 1 : 0;
    }
    if (rows == 0) {
        return "";
    }
    return "| estimate | micro steps per estimate | JIT force call, chained [ns] | JIT force call, "
           "independent [ns] | micro step [ns] | **micro step / chained call** | micro step / "
           "independent call | < 1.5 | old generic loop: micro step [ns] | generic / independent "
           "call |\n|---|--:|--:|--:|--:|--:|--:|:-:|--:|--:|\n" +
           out +
           fmt::format("\n{} of {} estimates reach the target (a micro step costs less than {} "
                       "chained force calls).\n",
                       met, rows, target);
}

// Per-step cost of every classical integrator on every shipped model (step_bench.cpp): rows
// are models, columns methods, cells the median time per step.
std::string step_table(const Results& results) {
    const std::string prefix = "step/";
    std::vector<std::string> models, methods;
    std::map<std::pair<std::string, std::string>, double> cells; // ns per step
    for (const auto& [name, m] : results) {
        if (name.rfind(prefix, 0) != 0) {
            continue;
        }
        const std::size_t slash = name.find('/', prefix.size());
        if (slash == std::string::npos) {
            continue;
        }
        const std::string model = name.substr(prefix.size(), slash - prefix.size());
        const std::string method = name.substr(slash + 1);
        if (std::find(models.begin(), models.end(), model) == models.end()) {
            models.push_back(model);
        }
        if (std::find(methods.begin(), methods.end(), method) == methods.end()) {
            methods.push_back(method);
        }
        cells[{model, method}] = 1e9 * counter(m, "time_per_step");
    }
    if (cells.empty()) {
        return "";
    }
    std::sort(models.begin(), models.end());
    std::string out = "| model |";
    std::string rule = "|---|";
    for (const std::string& method : methods) {
        out += " " + method + " |";
        rule += "--:|";
    }
    out += "\n" + rule + "\n";
    for (const std::string& model : models) {
        out += "| " + model + " |";
        for (const std::string& method : methods) {
            auto it = cells.find({model, method});
            out += it == cells.end() ? " - |" : " " + ns(it->second) + " |";
        }
        out += "\n";
    }
    return out + "\nNanoseconds per step (median of 3 repetitions of at least 0.05 s each); - "
                 "where the method does not apply to the model "
                 "(first-order states for the Verlet family, damping for Störmer, constraints "
                 "for the unconstrained methods and the other way round).\n";
}

} // namespace

const Measurement* find_result(const Results& results, const std::string& name) {
    auto it = results.find(name);
    return it == results.end() ? nullptr : &it->second;
}

// implicit_step/chain:<positions>/<stepper> (implicit_step_bench.cpp): the cost of one
// generalized-alpha step with dense and sparse Newton matrices (modified Newton, and the
// sparse one also with Newton's method) against one Verlet step.
std::string implicit_step_table(const Results& results) {
    std::string out = "| positions | Verlet [µs/step] | generalized-alpha, sparse | "
                      "sparse, Newton's method | generalized-alpha, dense | sparse / Verlet | "
                      "dense / sparse |\n"
                      "|--:|--:|--:|--:|--:|--:|--:|\n";
    bool any = false;
    const auto optional = [](const Measurement* m) {
        return m != nullptr ? fmt::format("{:.1f}", counter(*m, "time_per_step") * 1e6)
                            : std::string("-");
    };
    for (int positions : {16, 32, 48, 64, 100, 200, 2000}) {
        const std::string stem = "implicit_step/chain:" + std::to_string(positions) + "/";
        const Measurement* verlet = find_result(results, stem + "verlet");
        const Measurement* sparse = find_result(results, stem + "galpha-sparse");
        const Measurement* newton = find_result(results, stem + "galpha-sparse-newton");
        const Measurement* dense = find_result(results, stem + "galpha-dense");
        if (verlet == nullptr || sparse == nullptr) {
            continue;
        }
        any = true;
        const double v = counter(*verlet, "time_per_step") * 1e6;
        const double sp = counter(*sparse, "time_per_step") * 1e6;
        const double de = dense != nullptr ? counter(*dense, "time_per_step") * 1e6 : 0.0;
        out += fmt::format("| {} | {:.2f} | {:.1f} | {} | {} | **{:.1f}** | {} |\n", positions, v,
                           sp, optional(newton), optional(dense), sp / v,
                           dense != nullptr ? fmt::format("{:.2f}", de / sp) : "-");
    }
    return any ? out : "";
}

// ida_step/... and constraint_step/... (constraint_solve_bench.cpp): IDA with difference
// quotients, the kernels' dense and sparse Newton matrices; RATTLE dense and sparse.
std::string constraint_solve_table(const Results& results) {
    std::string out = "| links (constraints) | unknowns of IDA | IDA dq [µs/step] | IDA dense | "
                      "IDA sparse | dq / sparse | dense / sparse | RATTLE dense [µs/step] | "
                      "RATTLE sparse | dense / sparse |\n"
                      "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n";
    bool any = false;
    const auto time = [&](const std::string& name) {
        const Measurement* m = find_result(results, name);
        return m != nullptr ? counter(*m, "time_per_step") * 1e6 : 0.0;
    };
    const auto cell = [](double us) {
        return us > 0 ? fmt::format("{:.1f}", us) : "-";
    };
    const auto ratio = [](double a, double b) {
        return a > 0 && b > 0 ? fmt::format("{:.2f}", a / b) : "-";
    };
    for (const int links : constraint_solve_chain_links()) {
        const std::string chain = "/chain:" + std::to_string(links) + "/";
        const double dq = time("ida_step" + chain + "dq");
        const double dense = time("ida_step" + chain + "dense");
        const double sparse = time("ida_step" + chain + "sparse");
        const double rattle_dense = time("constraint_step" + chain + "rattle-dense");
        const double rattle_sparse = time("constraint_step" + chain + "rattle-sparse");
        if (sparse == 0 && rattle_sparse == 0) {
            continue;
        }
        any = true;
        out += fmt::format("| {} | {} | {} | {} | {} | {} | **{}** | {} | {} | **{}** |\n", links,
                           6 * links, cell(dq), cell(dense), cell(sparse), ratio(dq, sparse),
                           ratio(dense, sparse), cell(rattle_dense), cell(rattle_sparse),
                           ratio(rattle_dense, rattle_sparse));
    }
    return any ? out : "";
}

std::string sci(double value) {
    return fmt::format("{:.1e}", value);
}

std::string milliseconds(double ns) {
    const double ms = ns / 1e6;
    return ms >= 100 ? fmt::format("{:.0f}", ms)
           : ms >= 1 ? fmt::format("{:.1f}", ms)
                     : fmt::format("{:.2f}", ms);
}

std::string summary_markdown(const Results& results, const ColdCompiles& cold,
                             const std::vector<ModelSource>& models) {
    std::string out;
    const std::string compile = compile_table(results, cold, models);
    if (!compile.empty()) {
        out += "### Compile latency per shipped model\n\n" + compile + "\n";
    }
    const std::string sizes = compile_size_table(results);
    if (!sizes.empty()) {
        out += "### Compile time against model size (the array chain)\n\n"
               "`models/hanging_chain.mdl` (arrays, a for-loop, an if-expression in a "
               "reduction) with n masses, warm, one compilation per repetition.\n\n" +
               sizes + "\n";
    }
    const std::string implicit = implicit_step_table(results);
    if (!implicit.empty()) {
        out += "### Implicit steps on a large model: sparse against dense linear algebra\n\n"
               "`models/hanging_chain.mdl` with n masses (2n positions), one step of "
               "generalized-alpha (rho_inf = 0.8, h = 1e-4) with the sparse and the dense "
               "Newton matrix (`runtime/sparse_jacobians.hpp`), modified Newton (the "
               "default) and, sparse, Newton's method, and one velocity Verlet "
               "step, from a displaced start (`implicit_step/...`, time per step). The "
               "performance issue's target: generalized-alpha within 10x of Verlet at 2000 "
               "positions.\n\n" +
               implicit + "\n";
    }
    const std::string constrained = constraint_solve_table(results);
    if (!constrained.empty()) {
        out += "### Constrained methods on a long chain: sparse against dense linear algebra\n\n"
               "`models/pendulum_chain.mdl` with n links (n constraints, 2n positions). IDA: "
               "one internal step (the run from the start to t = 0.02 at rtol 1e-6 divided by "
               "its steps) with IDA's dense difference quotients (dq) and with the kernels' "
               "Newton matrix (`runtime/integrators/ida_residual.hpp`) factorized by a dense LU "
               "or by KLU (`ida_step/...`). RATTLE: one step (h = 1e-3) with dense and with "
               "sparse constraint solves (`runtime/integrators/sparse_constraint_solves.hpp`, "
               "`constraint_step/...`). - where not run (a dense 6000 x 6000 LU per Newton "
               "matrix).\n\n" +
               constrained + "\n";
    }
    const std::string kernels = kernel_table(results);
    if (!kernels.empty()) {
        out += "### Kernel time per call\n\n" + kernels + "\n";
    }
    const std::string steps = step_table(results);
    if (!steps.empty()) {
        out += "### Cost per step of the classical integrators\n\n" + steps + "\n";
    }
    const std::string micro = micro_step_table(results);
    if (!micro.empty()) {
        out += "### The multiscale inner loop: one micro step against one force call\n\n" + micro +
               "\n";
    }
    std::size_t repetitions = 0;
    for (const auto& [name, m] : results) {
        repetitions = std::max(repetitions, m.repetitions);
    }
    if (!out.empty()) {
        std::size_t cold_runs = 0;
        for (const auto& [stem, runs] : cold.fresh_process) {
            cold_runs = std::max(cold_runs, runs.size());
        }
        out += fmt::format("Medians of {} repetition(s) per benchmark; cold fresh-process "
                           "figures are medians of {} process(es) per model.\n",
                           repetitions, cold_runs);
    }
    return out;
}

} // namespace mdl::bench
