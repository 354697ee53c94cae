// The mdl subcommands: each registers its options on the CLI11 app and runs when selected.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace mdl::cli {

struct GlobalOptions {
    std::string color = "auto"; // auto, always, never
    bool color_enabled() const;
};

// Returns the function that runs the subcommand (its exit code) once options are parsed.
std::function<int()> add_check_command(CLI::App& app, const GlobalOptions& global);
std::function<int()> add_compile_command(CLI::App& app);
std::function<int()> add_run_command(CLI::App& app);
std::function<int()> add_reproduce_command(CLI::App& app);
std::function<int()> add_sweep_command(CLI::App& app);
std::function<int()> add_plot_command(CLI::App& app);
std::function<int()> add_cache_command(CLI::App& app);
std::function<int()> add_export_command(CLI::App& app);
std::function<int()> add_modes_command(CLI::App& app);
std::function<int()> add_periodic_command(CLI::App& app);
std::function<int()> add_continue_command(CLI::App& app);
std::function<int()> add_stability_chart_command(CLI::App& app);

} // namespace mdl::cli
