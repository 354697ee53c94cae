// The C++ embedding API: compile a .mdl model in-process and call its native kernels.
//
//     mdl::CompiledModel model = mdl::compile_file("models/kapitza.mdl");
//     model.set_parameter("omega", 1e6);          // no recompilation
//     auto q = model.start_positions(), v = model.start_velocities();
//     auto theta = model.phases(0.0);
//     std::vector<double> f(model.sizes().positions);
//     model.force()(model.args(0.0, q.data(), v.data(), nullptr, theta.data()), f.data());
//
// Errors in the model are thrown as mdl::CompileError carrying clang-style diagnostics; bad
// arguments (an unknown parameter, a non-finite value) as std::invalid_argument. Nothing here
// calls exit().
#pragma once

#include "abi/kernel_abi.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mdl {

struct CompileOptions {
    int opt_level = 2;          // 0..3, LLVM's optimization level for the kernels
    bool fast_math = false;     // opt-in: reassociation, FMA contraction (results differ in ulps)
    bool keep_ir = false;       // keep the optimized LLVM IR (CompiledModel::llvm_ir)
    std::size_t node_limit = 0; // bound on the symbolic expression DAG; 0 = the default
    // omega > 0: each constraint g(q) = 0 becomes the stiff potential
    // (omega^2/2) g^2 / (grad g^T M^-1 grad g), a spring of frequency omega across the
    // constraint (hmm-stiff-constrained Sect. 5); the compiled model then has no constraints
    // and ordinary ODE methods (hmm-stiff) integrate the DAE. 0: constraints kept.
    double relax_constraints = 0;
    // Values of Integer parameters (array sizes, loop bounds): they fix the model's structure,
    // so they are given here, when compiling (-p n=200). Names that are not Integer parameters
    // are ignored here (Real parameters are set on the compiled model, without recompiling).
    std::vector<std::pair<std::string, double>> structural_parameters;
    // Folders searched for component models (Pendulum -> Pendulum.mdl) after the folder of the
    // model's file; then the folders of the MDL_PATH environment variable.
    std::vector<std::string> library_paths;
    // Look up and keep the machine code in the code cache on disk (mdl/code_cache.hpp), so
    // that another process compiling the same model skips LLVM's optimization and code
    // generation. false: only this process's memory is used (mdl --no-cache).
    bool disk_cache = true;
};

// The model could not be compiled. what() is the full clang-style report
// ("file:line:col: error: ...", the source line, a caret), one entry per line in messages().
class CompileError : public std::runtime_error {
public:
    CompileError(const std::string& report, std::vector<std::string> messages)
        : std::runtime_error(report), messages_(std::move(messages)) {}
    const std::vector<std::string>& messages() const { return messages_; }

private:
    std::vector<std::string> messages_;
};

struct Sizes {
    std::size_t positions = 0;   // n
    std::size_t states = 0;      // k, first-order states
    std::size_t constraints = 0; // m
    std::size_t vibrations = 0;  // r
    std::size_t parameters = 0;  // P
};

// One compiled kernel (kernel_abi.h) as a callable object: kernel(args, out).
class Kernel {
public:
    Kernel(mdl_kernel kernel, std::size_t count) : function_(kernel), outputs_(count) {}
    void operator()(const mdl_kernel_args& args, double* out) const { function_(&args, out); }
    explicit operator bool() const { return function_ != nullptr; }
    std::size_t outputs() const { return outputs_; } // number of doubles written to out
    mdl_kernel function() const { return function_; }

private:
    mdl_kernel function_;
    std::size_t outputs_;
};

// A fast time scale of the model: a vibration, or a spring marked `fast`.
struct FastScale {
    std::string source; // "vibration a", "spring s2"
    double omega = 0;   // rad per unit time, with the parameters' current values
};

// Ahead-of-time compilation of a model's kernels (mdl compile --emit-object, --emit-header).
struct ObjectOptions {
    // The prefix of the object's C symbols (<prefix>_force, <prefix>_kernels); empty: the
    // model's name in lower case ("Kapitza" -> "kapitza").
    std::string prefix;
    // The CPU the code is for: "x86-64" (default: runs on every x86-64 machine), a newer level
    // or CPU ("x86-64-v3", "skylake"), or "native" (this machine's CPU and its features).
    std::string cpu = "x86-64";
    // The target triple; empty: this machine's. This build generates code for its own
    // architecture only.
    std::string triple;
};

// A branch of a when-clause (docs/events.md): the event fires when the indicator (kernel
// event_indicator, output `index`) crosses zero from below; its reinits take the values of
// event_reinit outputs first_reinit, first_reinit + 1, ...
struct EventInfo {
    enum class Target { position, velocity, state };
    struct Reinit {
        Target target = Target::velocity;
        std::size_t index = 0; // position (position, velocity) or first-order state
        std::string name;      // "b.vy"
    };
    std::string name;       // the condition as written: "b.y <= 0"
    std::size_t clause = 0; // the when-clause; of its branches firing at once, the first wins
    std::vector<Reinit> reinits;
    std::size_t first_reinit = 0;
    bool terminates = false;
    std::string terminate_message;
};

// A parameter's name and value, as set_parameter takes them.
using ParameterValue = std::pair<std::string, double>;

class CompiledModel {
public:
    CompiledModel(CompiledModel&&) noexcept;
    CompiledModel& operator=(CompiledModel&&) noexcept;
    ~CompiledModel();

    const std::string& name() const;
    Sizes sizes() const;
    const std::vector<std::string>& position_names() const; // "q", "b1.x"
    const std::vector<std::string>& velocity_names() const; // "der(q)", "b1.vx"
    const std::vector<std::string>& state_names() const;
    const std::vector<std::string>& constraint_names() const;
    // "file:line:col" of each constraint's declaration (a joint's constraints: the joint).
    const std::vector<std::string>& constraint_locations() const;
    // The source line and caret under each constraint's declaration, as a diagnostic shows
    // them (followed by the "in <instance>" notes of a constraint inside a component).
    const std::vector<std::string>& constraint_excerpts() const;
    const std::vector<std::string>& vibration_names() const;
    const std::vector<std::string>& parameter_names() const;
    // The unit of a quantity by its name or CSV column ("b.x", "der(q)", "k", "time",
    // "der(b.vx)"), declared or inferred by the unit check ("m", "rad/s", "N/m";
    // docs/language.md, Units); "" when it is not known or the model declares no units.
    std::string unit(std::string_view name) const;

    // Parameters. Setting one fixes it; parameters defined from others (omega = 1/eps) are
    // recomputed from the current values unless they were set themselves. Throws
    // std::invalid_argument for an unknown name (with a suggestion) or a value that makes a
    // parameter non-finite; the model is then unchanged.
    std::span<const double> parameters() const;
    double parameter(std::string_view name) const;
    // The Integer parameters as compiled (name, value): fixed by compile(); setting one to
    // another value throws std::invalid_argument (recompile with structural_parameters).
    const std::vector<std::pair<std::string, long long>>& structural_parameters() const;
    void set_parameter(std::string_view name, double value);
    void reset_parameters(); // back to the model's defaults
    // The parameters as setting `overrides` one after the other would leave them, without
    // changing this model (same exceptions as set_parameter). Const and thread-safe.
    std::vector<double> parameters_with(std::span<const ParameterValue> overrides) const;
    // A model with this one's parameters and `overrides` set, sharing its compiled kernels (no
    // recompilation; copies only parameters and names). Const and thread-safe: threads may
    // each make their own from one shared model and set its parameters freely.
    CompiledModel with_parameters(std::span<const ParameterValue> overrides) const;

    // Start values with the current parameters.
    std::vector<double> start_positions() const;
    std::vector<double> start_velocities() const;
    std::vector<double> start_states() const;
    // Per position: its start value is marked `fixed = true` (kept by consistent
    // initialization, runtime/consistent_start.hpp).
    std::vector<bool> start_fixed() const;
    // The vibrations' phases theta_i(t) = omega_i t + c_i and their rates omega_i.
    std::vector<double> phases(double t) const;
    std::vector<double> phase_rates() const;
    std::vector<FastScale> fast_scales() const;
    // The when-clauses' branches, in source order (empty: the model has no events).
    std::vector<EventInfo> events() const;
    // Whether the force is even in vibration i's phase (proved symbolically; false = not
    // shown). HMM's asynchronous algorithm then integrates half a window.
    bool force_even_in_phase(std::size_t vibration) const;
    // Whether the force is even in all phases mirrored at once (one vibration: the same as
    // force_even_in_phase(0); none: true). What HMM's Algorithm 2 needs with several.
    bool force_even_in_all_phases() const;

    // Kernel arguments bound to the current parameters.
    mdl_kernel_args args(double t, const double* q, const double* v, const double* x = nullptr,
                         const double* theta = nullptr) const;
    const mdl_kernels& kernels() const;
    Kernel mass() const;        // diagonal of M when mass_constant() && mass_diagonal()
    Kernel mass_matrix() const; // M(q), n x n row-major, symmetric positive definite
    // M does not depend on the positions (no kinetic energy with M(q)) / has no off-diagonal
    // entries. Both: M = diag(mass()), and every method applies.
    bool mass_constant() const;
    bool mass_diagonal() const;
    Kernel force() const;
    Kernel rates() const;
    Kernel potential() const;
    Kernel constraint() const;
    Kernel constraint_jacobian() const;
    Kernel curvature() const;
    Kernel force_dq() const;
    Kernel force_dv() const;

    // Experiment settings of the model's annotation: numeric ones evaluated with the current
    // parameters; has_setting tells whether the model gives one.
    bool has_setting(std::string_view key) const;
    double number_setting(std::string_view key, double fallback) const;
    std::string text_setting(std::string_view key, const std::string& fallback) const;

    // The derived equations in readable form (mdl compile --emit-symbolic).
    std::string symbolic_text() const;
    // The kernels as a relocatable, position-independent object file (ELF on Linux), compiled
    // with this model's optimization options for options.cpu: functions <prefix>_<kernel> and
    // `const mdl_kernels <prefix>_kernels` (kernel_abi.h); they call only libm. For linking
    // into programs and shared libraries without LLVM. Throws std::invalid_argument for an
    // unknown CPU or triple or a prefix that is not a C identifier.
    std::string object_code(const ObjectOptions& options = {}) const;
    // The C header for that object: self-contained (it carries kernel_abi.h), it declares the
    // symbols and gives the sizes, names, the current parameter values and the start state.
    std::string c_header(const ObjectOptions& options = {}) const;
    // The optimized LLVM IR, when compiled with keep_ir.
    const std::string& llvm_ir() const;
    // Milliseconds spent in each stage of this compilation.
    struct Timings {
        double frontend_ms = 0, symbolic_ms = 0, codegen_ms = 0, total_ms = 0;
        // Where the machine code came from: "miss" (compiled), "memory" (an identical
        // compilation earlier in this process), "disk" (the code cache, written by an earlier
        // process) or "off" (not looked up: keep_ir).
        std::string cache = "off";
    };
    const Timings& timings() const;

    struct State;

private:
    friend CompiledModel compile(std::string_view, std::string_view, const CompileOptions&);
    explicit CompiledModel(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

// Where the library's warnings go: the first code-cache failure of the process ("code cache:
// removed the damaged entry ..."), never an error (the kernels are compiled anyway). The
// library prints nothing itself; without a handler the warning is dropped. `mdl` prints it
// on stderr as "mdl: warning: code cache: ...". Set it before compiling.
void set_warning_handler(std::function<void(const std::string& warning)> handler);

// Compiles model source text; `name` is the file name used in diagnostics.
CompiledModel compile(std::string_view source, std::string_view name = "<model>",
                      const CompileOptions& options = {});
// Reads and compiles a .mdl file (CompileError when it cannot be read).
CompiledModel compile_file(const std::string& path, const CompileOptions& options = {});

} // namespace mdl
