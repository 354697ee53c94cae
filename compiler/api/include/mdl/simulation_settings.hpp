// The settings of one simulation: every option of `mdl run`, typed. A field left empty falls
// back to the model's annotation(experiment(...)), then to the method's default, exactly as
// the command line does (docs/cli.md lists the options; docs/embedding.md the API).
//
//     mdl::SimulationSettings s;
//     s.method = "hmm";
//     s.stop = 1.0;
//     s.step = 1.0 / 80;
//
// Bad values are reported as std::invalid_argument whose message names the option as the
// command line spells it ("--step: ..."), so a host shows the same message as `mdl run`.
#pragma once

#include "mdl/compiled_model.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace mdl {

struct SimulationSettings {
    std::optional<std::string> method; // verlet, dopri5, ..., hmm, hmm-shake, strobo, hmm-stiff
    std::optional<double> start, stop, step, rtol, atol, rho_inf, constraint_tol;
    std::optional<std::size_t> every; // every N-th output row (and the last)
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
// stiff spring when the model is compiled; --library, --no-cache, Integer parameters).
CompileOptions compile_options(const SimulationSettings& settings);

// The values on their own (finite, in range), before any run: std::invalid_argument naming
// the option. simulate() calls it; a sweep calls it once before its runs.
void validate_settings(const SimulationSettings& settings);

// One option by the name of its command-line flag without dashes ("stop", "micro-steps-per-
// period"; "_" may stand for "-"): a pointer to the field, for hosts that set options by name
// (the C API, the Python module). An unknown name throws std::invalid_argument listing them.
using SettingField = std::variant<std::optional<std::string>*, std::optional<double>*,
                                  std::optional<std::size_t>*, std::optional<int>*, bool*>;
SettingField setting_field(SimulationSettings& settings, std::string_view name);
// The names setting_field knows, in the order of `mdl run --help`.
const std::vector<std::string>& setting_names();
// Sets the option `name` from its text as on the command line ("1e-3", "hmm", "true"):
// std::invalid_argument naming the option when the text is not of its type.
void set_setting(SimulationSettings& settings, std::string_view name, std::string_view text);

} // namespace mdl
