// The pieces of mdl_bench (main.cpp): the shipped models, the compile-latency and kernel
// benchmarks, and the summary tables computed from one run's results.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace benchmark {
class State;
}

namespace mdl::bench {

// A shipped model, models/<stem>.mdl, read once (nothing is read from disk while timing).
struct ModelSource {
    std::string stem;
    std::string path;
    std::string text;
};
// Every models/*.mdl, sorted by name.
std::vector<ModelSource> shipped_models();

// ---- compile latency (compile_bench.cpp) -------------------------------------------------

// One compilation in milliseconds, by stage. Stages that were not measured are 0.
struct CompileTimes {
    double total_ms = 0, frontend_ms = 0, symbolic_ms = 0, codegen_ms = 0;
};

// Compiles `path` with mdl::compile_file and times it; in a fresh process this is the cold
// figure (LLVM initialisation included).
CompileTimes compile_once(const std::string& path);

// compile/<model>: warm parse + check + equations_of_motion + CompiledKernels::compile with the
// object cache off, per-stage counters. compile_cached/<model>: mdl::compile (object cache on,
// as the API always has it), i.e. what recompiling an identical model costs a host.
void register_compile_benchmarks(const std::vector<ModelSource>& models);
// One of those warm compilations per iteration (counters frontend_ms, symbolic_ms, codegen_ms,
// ...), on up to `threads` threads (0: the machine's).
// The sizes of the array chain (models/hanging_chain.mdl, n masses) in compile_size/n<N>.
inline constexpr std::array<int, 6> compile_sizes{10, 100, 300, 1000, 3000, 10000};

// `warm_up`: compile the model once before timing (LLVM initialised, its code paths warm); the
// largest models leave it out, where it would double a repetition of seconds.
void compile_warm_benchmark(benchmark::State& state, const ModelSource& model, std::size_t threads,
                            bool warm_up = true);

// ---- the n-link pendulum against sympy and MuJoCo (mechanics_bench.cpp) -------------------

// mechanics/compile/n:<n>, mechanics/acceleration/n:<n>, mechanics/step/<method>/n:<n> for
// n in mechanics_links(). Compiles the models: call it after the cold-compile measurements.
void register_mechanics_benchmarks();
const std::vector<int>& mechanics_links();

// ---- cost per step (step_bench.cpp) ------------------------------------------------------

// step/<model>/<method> for every classical method on every shipped model it applies to.
// Compiles the models: call it after the cold-compile measurements.
void register_step_benchmarks(const std::vector<ModelSource>& models);

// ---- kernel speed (kernel_bench.cpp) -------------------------------------------------------

// Floating-point operations in a JIT kernel's optimized LLVM IR, vector operations counted
// per lane.
struct KernelIrOps {
    bool found = false;
    double divisions = 0, square_roots = 0, mul_add = 0; // fdiv; llvm.sqrt; fmul, fadd, fsub
    int calls = 0;                                       // C library calls (sin, cos, ...)
};

// A kernel compared in kernel/<model>/<kernel>/{jit,handwritten,handwritten_native,paired,
// evaluator}: paired times the JIT, the hand-written kernel and the hand-written kernel again
// in rotating blocks (hand-written / itself checks the harness).
struct KernelCaseName {
    std::string model;
    std::string kernel;
    KernelIrOps jit_ir;
};

// Compiles the models, checks that the hand-written kernels, the JIT and the reference
// evaluator agree to 1e-12 relative on every input of the table, and registers the kernel
// benchmarks. Returns false (after writing why to `err`) when they disagree.
bool register_kernel_benchmarks(std::ostream& err);
const std::vector<KernelCaseName>& kernel_cases();

// ---- multiscale against direct integration (multiscale_bench.cpp) -------------------------

struct MultiscaleSettings {
    double cap_seconds = 30.0; // a direct run estimated to take longer is not run
    int repetitions = 5;       // of the runs shorter than 0.5 s (0.2 s minimum time each)
    int long_repetitions = 3;  // of the longer ones (one iteration each)
};

// Tunes every method on the Kapitza pendulum to error ~1e-3 at omega = 1e3 ... 1e8 (progress on
// `log`) and registers multiscale/<method>/omega:<w>. False (after saying why) on failure.
bool register_multiscale_benchmarks(const MultiscaleSettings& settings, std::ostream& log);

// ---- stiff springs: HMM against CVODE (stiff_bench.cpp) -----------------------------------

// The stiff-springs study runs like the multiscale one (same cap and repetitions).
using StiffSettings = MultiscaleSettings;

// models/stiff_springs.mdl at w2 = 200 ... 20000: the stiff HMM (DOPRI5 macro, the paper's
// Table 2 settings) and CVODE BDF, CVODE Adams and DOPRI5 each tuned in this run to the HMM's
// error (progress on `log`); registers stiff/<method>/w2:<value>. False (after saying why) on
// failure.
bool register_stiff_benchmarks(const StiffSettings& settings, std::ostream& log);

// ---- the multiscale inner loop (micro_step_bench.cpp) -------------------------------------

// micro_step/<case>/paired: one micro step of a force estimate against one JIT force call.
struct MicroStepCaseName {
    std::string benchmark;
    std::string description;
};
void register_micro_step_benchmarks();

// implicit_step/chain:<positions>/<stepper>: generalized-alpha with dense and sparse Newton
// matrices against velocity Verlet on the hanging chain (implicit_step_bench.cpp, issue 19).
void register_implicit_step_benchmarks();

// ida_step/chain:<links>/{dq,dense,sparse} and constraint_step/chain:<links>/rattle-{dense,
// sparse}: IDA's Newton matrices and RATTLE's constraint solves, dense against sparse, on the
// pendulum chain (constraint_solve_bench.cpp, issue 19).
void register_constraint_solve_benchmarks();
std::vector<int> constraint_solve_chain_links();
std::vector<MicroStepCaseName> micro_step_cases();

// ---- summary (summary.cpp) ---------------------------------------------------------------

// The median over repetitions of one benchmark, in nanoseconds per iteration.
struct Measurement {
    double real_ns = 0, cpu_ns = 0;
    double real_cv = 0, cpu_cv = 0; // coefficient of variation over repetitions
    std::size_t repetitions = 0;
    std::map<std::string, double> counters; // medians
};
using Results = std::map<std::string, Measurement>; // by benchmark name

// The measurement of one benchmark, or null when it did not run (filtered out).
const Measurement* find_result(const Results& results, const std::string& name);
// Table cells: 1.2e-03; milliseconds from nanoseconds with 2, 1 or 0 decimals.
std::string sci(double value);
std::string milliseconds(double ns);

struct ColdCompiles {
    std::optional<CompileTimes> in_process; // the first compile of this process
    std::string in_process_model;
    std::map<std::string, std::vector<CompileTimes>> fresh_process; // by model stem
};

// The compile and kernel tables, as Markdown.
std::string summary_markdown(const Results& results, const ColdCompiles& cold,
                             const std::vector<ModelSource>& models);

// The multiscale tables of error, force evaluations, wall time and cost ratios (Markdown,
// multiscale_bench.cpp); with a prefix, also <prefix>-time.csv and <prefix>-evaluations.csv
// (omega and a column per method) for the plot. Empty when those benchmarks were not
// registered.
std::string multiscale_markdown(const Results& results, const std::string& csv_prefix);

// The stiff-springs tables (error, steps, force and Jacobian evaluations, wall time, cost
// ratios; Markdown, stiff_bench.cpp); with a prefix, also <prefix>-time.csv and
// <prefix>-evaluations.csv (w2 and a column per method) and their log-log plots. Empty when
// those benchmarks were not registered.
std::string stiff_markdown(const Results& results, const std::string& csv_prefix);

// The compile time of the array chain against n (compile_size/n<N>): <prefix>.csv (n, the
// measured total in seconds, the least-squares power law fitted from n = 100 on) and its
// log-log plot <prefix>.svg. False, with a message on `errors`, when a file cannot be written.
bool write_compile_size_plot(const Results& results, const std::string& prefix,
                             std::ostream& errors);

} // namespace mdl::bench
