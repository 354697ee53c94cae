// One simulation of a compiled model with any of mdl's methods (classical, HMM, stroboscopic
// averaging): the settings `mdl run` and `mdl sweep` share, their command-line options, and the
// run itself, which streams CSV and returns what a summary needs.
#pragma once

#include "mdl/compiled_model.hpp"
#include "runtime/model.hpp"
#include "runtime/state.hpp"

#include <CLI/CLI.hpp>
#include <cstddef>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace mdl::cli {

// Every field left empty falls back to the model's annotation(experiment(...)), then to the
// method's default.
struct SimulationSettings {
    std::optional<std::string> method;
    std::optional<double> start, stop, step, rtol, atol, rho_inf, constraint_tol;
    std::optional<std::size_t> every; // CSV: every N-th output row (and the last)
    // HMM
    std::optional<std::string> algorithm, filter;
    std::optional<double> window, macro_time;
    std::optional<double> period; // the vibrations' common period (HMM and strobo)
    std::optional<std::size_t> micro_steps_per_period; // HMM and stroboscopic averaging
    // stroboscopic averaging (order, micro) and stiff HMM (macro shared)
    std::optional<int> order;
    std::optional<std::string> macro, micro;
    // stiff HMM
    std::optional<double> omega, reproject_every;
    std::optional<double> relax_constraints; // a compile option: see compile_options()
    std::vector<std::string> library_paths;  // --library DIR: folders of component models
    bool no_cache = false;                   // --no-cache: not the code cache on disk
    // -p name=value pairs: Integer parameters among them are compile options
    std::vector<std::pair<std::string, double>> structural_parameters;
};

// The compile options the settings ask for (--relax-constraints turns each constraint into a
// stiff spring when the model is compiled).
CompileOptions compile_options(const SimulationSettings& settings);

// Registers the method and its options on `cmd` (shared by run and sweep).
void add_simulation_options(CLI::App* cmd, SimulationSettings& settings);

struct SimulationResult {
    std::string method; // as run: "verlet", "hmm-shake", "strobo", ...
    double start = 0.0, stop = 0.0;
    runtime::State final_state;  // the last output state
    std::size_t steps = 0;       // (macro) steps taken
    std::size_t rejected = 0;    // adaptive methods
    std::size_t micro_steps = 0; // multiscale methods
    std::size_t force_evaluations = 0;
    std::size_t rows = 0; // CSV rows written
    double seconds = 0.0; // wall time of the integration
    std::string summary;  // one line for stderr: method, settings and cost
};

// Called with the time of each output state (progress bars).
using ProgressCallback = std::function<void(double t)>;

// Integrates `model` (a view of `compiled` with its current parameters) and writes the CSV to
// `out`. Throws std::invalid_argument naming the flag for bad settings and
// runtime::NumericalFailure for numerical failures (the CSV written so far stays valid).
SimulationResult simulate(const CompiledModel& compiled, const runtime::Model& model,
                          const SimulationSettings& settings, std::ostream& out,
                          const ProgressCallback& progress = {});

// The flags' values on their own (finite, in range), before any run: std::invalid_argument
// naming the flag. simulate() calls it; `mdl sweep` calls it once before its runs.
void validate_settings(const SimulationSettings& settings);

// "name=value" of -p, or std::invalid_argument naming the flag.
std::pair<std::string, double> parse_assignment(const std::string& text);

} // namespace mdl::cli
