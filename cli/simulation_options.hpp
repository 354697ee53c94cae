// The command-line options of a simulation (`mdl run`, `mdl sweep`): each flag fills a field
// of mdl::SimulationSettings (mdl/simulation_settings.hpp), which the library checks and runs.
#pragma once

#include "mdl/simulation_settings.hpp"

#include <CLI/CLI.hpp>

namespace mdl::cli {

// Registers the method and its options on `cmd`.
void add_simulation_options(CLI::App* cmd, SimulationSettings& settings);

} // namespace mdl::cli
