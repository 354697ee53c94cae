// The command-line options of a simulation (`mdl run`, `mdl sweep`): each flag fills a field
// of mdl::SimulationSettings (mdl/simulation_settings.hpp), which the library checks and runs.
#pragma once

#include "mdl/simulate.hpp"
#include "mdl/simulation_settings.hpp"

#include <CLI/CLI.hpp>

namespace mdl::cli {

// Registers the method and its options on `cmd`.
void add_simulation_options(CLI::App* cmd, SimulationSettings& settings);

// `mdl run` and `mdl sweep` warn before a run whose CSV output may exceed this (1 GB).
inline constexpr double large_output_bytes = 1e9;

// "this run will write 4e+07 rows of 7 values to 'out.csv', up to 7 GB (...); --every N ..."
// for `mdl run`'s warning (OutputForecast: counted, or projected for adaptive methods).
std::string describe_large_output(const OutputForecast& forecast, const std::string& output);

} // namespace mdl::cli
