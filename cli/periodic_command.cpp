// mdl periodic FILE.mdl [-p name=value]... [--period T] [--csv F] [--samples N]
// The periodic orbit of a forced model (period from its vibrations, or given) or an
// autonomous one (period unknown), by shooting; prints its Floquet multipliers and stability
// and writes the orbit over one period as CSV (mdl/periodic.hpp does the work).
#include "analysis_options.hpp"
#include "commands.hpp"
#include "exit_status.hpp"
#include "mdl/periodic.hpp"
#include "model_options.hpp"
#include "output_file.hpp"
#include "runtime/numerical_failure.hpp"

#include <cmath>
#include <fmt/format.h>
#include <iostream>
#include <memory>

namespace mdl::cli {

namespace {

struct PeriodicOptions {
    std::string file;
    std::vector<std::string> parameters;
    std::vector<std::string> library;
    bool no_cache = false;
    double period = 0.0;
    std::string csv;
    std::size_t samples = 200;
    double tolerance = 1e-10;
    int max_iterations = 40;
};

int run(const PeriodicOptions& o) {
    const auto values = parse_assignments(o.parameters);
    const CompiledModel compiled =
        compile_with_parameters(o.file, values, o.parameters, o.library, o.no_cache);
    PeriodicSettings settings;
    settings.period = o.period;
    settings.samples = o.samples;
    settings.tolerance = o.tolerance;
    settings.max_iterations = o.max_iterations;
    const PeriodicOrbit orbit = periodic_orbit(compiled, settings);
    const std::size_t n = orbit.q.size();
    std::string text = fmt::format("periodic orbit of {} ({}): period {}\n", compiled.name(),
                                   orbit.autonomous ? "autonomous, period found" : "forced",
                                   runtime::format_number(orbit.period));
    text += fmt::format("  single shooting: {} Newton iterations, residual {:.2g}\n",
                        orbit.iterations, orbit.residual);
    text += "  state at t = 0:";
    for (std::size_t i = 0; i < n; ++i) {
        text += fmt::format(" {} = {}", compiled.position_names()[i],
                            runtime::format_number(orbit.q[i]));
    }
    for (std::size_t i = 0; i < n; ++i) {
        text += fmt::format(" {} = {}", compiled.velocity_names()[i],
                            runtime::format_number(orbit.v[i]));
    }
    text += "\n  Floquet multipliers:\n";
    for (std::size_t j = 0; j < orbit.multipliers.size(); ++j) {
        text += fmt::format("    mu{:<3} {:<36} |mu| = {:.10g}{}\n", j + 1,
                            format_complex(orbit.multipliers[j]), std::abs(orbit.multipliers[j]),
                            static_cast<int>(j) == orbit.trivial ? "  (trivial: the phase)" : "");
    }
    text += fmt::format("  {} (max |mu| = {:.10g}{})\n", orbit.stability, orbit.max_modulus,
                        orbit.autonomous ? " apart from the trivial one" : "");
    std::cout << text;
    if (!o.csv.empty()) {
        std::string csv;
        for (std::size_t c = 0; c < orbit.columns.size(); ++c) {
            csv += (c ? "," : "") + orbit.columns[c];
        }
        csv += "\n";
        const std::size_t columns = orbit.columns.size();
        for (std::size_t r = 0; r * columns < orbit.orbit.size(); ++r) {
            for (std::size_t c = 0; c < columns; ++c) {
                csv += (c ? "," : "") + runtime::format_number(orbit.orbit[r * columns + c]);
            }
            csv += "\n";
        }
        write_output_file("--csv", o.csv, csv);
    }
    return exit_status::success;
}

} // namespace

std::function<int()> add_periodic_command(CLI::App& app) {
    auto o = std::make_shared<PeriodicOptions>();
    CLI::App* cmd = app.add_subcommand(
        "periodic", "Find a periodic orbit by shooting (forced: the period of the vibrations or "
                    "--period; autonomous: period unknown) and print its Floquet multipliers "
                    "and stability");
    cmd->add_option("file", o->file, "Model file (.mdl)")->required();
    cmd->add_option("-p,--parameter", o->parameters, "Set a parameter: -p Omega=1.2")
        ->allow_extra_args(false);
    cmd->add_option("--library", o->library,
                    "A folder of component models, searched after the model's own folder")
        ->allow_extra_args(false);
    cmd->add_flag("--no-cache", o->no_cache, "Neither read nor write the code cache on disk");
    cmd->add_option("--period", o->period,
                    "The period: required when the force uses time explicitly; a first guess "
                    "for an autonomous model; must be a common period of the vibrations")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--csv", o->csv,
                    "Write the orbit over one period as CSV (time, positions, velocities)");
    cmd->add_option("--samples", o->samples, "Rows of the orbit in the CSV (plus one)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
    cmd->add_option("--tolerance", o->tolerance,
                    "Newton's tolerance on the shooting residual (relative to max(1, |state|))")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--max-iterations", o->max_iterations, "Newton iterations before giving up")
        ->check(CLI::Range(1, 10000));
    return [o]() {
        return run_reporting("periodic", [o] { return run(*o); });
    };
}

} // namespace mdl::cli
