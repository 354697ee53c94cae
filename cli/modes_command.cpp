// mdl modes FILE.mdl [-p name=value]... [--at name=value]... [--csv FILE] [--plot FILE.svg]
// The equilibrium of a model, its linearization and natural modes (mdl/modes.hpp does the
// work): a table of frequencies, damping ratios and mode shapes on standard output, one CSV
// row per mode, an SVG of the shapes (runtime/analysis/mode_shape_plot.hpp).
#include "analysis_options.hpp"
#include "commands.hpp"
#include "exit_status.hpp"
#include "mdl/compiled_model.hpp"
#include "mdl/modes.hpp"
#include "model_options.hpp"
#include "output_file.hpp"
#include "runtime/analysis/mode_shape_plot.hpp"
#include "runtime/output/csv_writer.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <iostream>
#include <memory>

namespace mdl::cli {

namespace {

struct ModesCommandOptions {
    std::string file;
    std::vector<std::string> parameters; // name=value
    std::vector<std::string> at;         // name=value
    std::vector<std::string> library_paths;
    bool no_cache = false;
    std::string csv, plot;
    double tolerance = 1e-10;
    std::string search = "auto";
};

// "-p k=2" errors say which flag; --at reuses the parser and renames the flag.
std::pair<std::string, double> parse_at(const std::string& text) {
    try {
        return parse_assignment(text);
    } catch (const std::invalid_argument& e) {
        std::string message = e.what();
        if (message.rfind("-p ", 0) == 0) {
            message = "--at " + message.substr(3);
        }
        if (const auto example = message.find("(e.g. -p omega=1e6)");
            example != std::string::npos) {
            message.replace(example, 19, "(e.g. --at q=0.1)");
        }
        throw std::invalid_argument(message);
    }
}

std::string modes_csv(const ModesResult& r) {
    std::string out = "mode,omega,frequency_hz,damping_ratio";
    for (const std::string& c : r.coordinates) {
        out += "," + runtime::csv_field(c);
    }
    out += "\n";
    for (std::size_t k = 0; k < r.modes(); ++k) {
        out += fmt::format("{},{:.17g},{:.17g},{:.17g}", k + 1, r.omega[k], r.frequency_hz[k],
                           r.damping_ratio[k]);
        for (const double x : r.shape(k)) {
            out += fmt::format(",{:.17g}", x);
        }
        out += "\n";
    }
    return out;
}

std::string modes_plot(const CompiledModel& model, const ModesResult& r) {
    runtime::ModeShapePlot plot;
    plot.title = model.name();
    plot.coordinates = r.coordinates;
    plot.equilibrium = r.equilibrium;
    for (std::size_t k = 0; k < r.modes(); ++k) {
        plot.modes.push_back({r.omega[k], r.frequency_hz[k], r.damping_ratio[k], r.kind[k],
                              std::vector<double>(r.shape(k).begin(), r.shape(k).end())});
    }
    return runtime::mode_shape_svg(plot);
}

// The report on standard output: the equilibrium, the table of modes, the shapes.
void print_report(const CompiledModel& model, const ModesResult& r) {
    const std::size_t n = r.coordinates.size(), m = r.constraints.size();
    std::cout << fmt::format(
        "{}: equilibrium by {} ({} step{}; force residual {:.3g}{}); {} degree{} of "
        "freedom ({} coordinate{}, {} constraint{})\n\n",
        model.name(), r.search, r.newton_iterations, r.newton_iterations == 1 ? "" : "s",
        r.force_residual,
        m > 0 ? fmt::format(", constraint residual {:.3g}", r.constraint_residual) : "",
        r.degrees_of_freedom, r.degrees_of_freedom == 1 ? "" : "s", n, n == 1 ? "" : "s", m,
        m == 1 ? "" : "s");
    std::cout << fmt::format("{:>5}  {:>16}  {:>14}  {:>13}  {}\n", "mode", "omega [rad/s]",
                             "f [Hz]", "damping ratio", "kind");
    for (std::size_t k = 0; k < r.modes(); ++k) {
        std::cout << fmt::format("{:>5}  {:>16.10g}  {:>14.8g}  {:>13.6g}  {}\n", k + 1, r.omega[k],
                                 r.frequency_hz[k], r.damping_ratio[k], r.kind[k]);
    }
    const std::size_t shown = std::min<std::size_t>(r.modes(), 8);
    std::size_t width = 10;
    for (const std::string& c : r.coordinates) {
        width = std::max(width, c.size());
    }
    std::cout << "\nmode shapes (phi^T M phi = 1)" << (shown < r.modes() ? ", the first 8" : "")
              << ":\n"
              << fmt::format("{:<{}}  {:>13}", "coordinate", width, "equilibrium");
    for (std::size_t k = 0; k < shown; ++k) {
        std::cout << fmt::format("  {:>11}", fmt::format("mode {}", k + 1));
    }
    std::cout << "\n";
    // round-off (below 1e-14 of the largest value, or of 1) printed as 0
    double largest = 0;
    for (const double q : r.equilibrium) {
        largest = std::max(largest, std::abs(q));
    }
    for (std::size_t j = 0; j < n; ++j) {
        const double q =
            std::abs(r.equilibrium[j]) <= 1e-14 * std::max(largest, 1.0) ? 0.0 : r.equilibrium[j];
        std::cout << fmt::format("{:<{}}  {:>13.7g}", r.coordinates[j], width, q);
        for (std::size_t k = 0; k < shown; ++k) {
            const double x = r.shape(k)[j];
            std::cout << fmt::format("  {:>11.5g}", std::abs(x) < 1e-13 ? 0.0 : x);
        }
        std::cout << "\n";
    }
}

int run_modes(const ModesCommandOptions& o) {
    const CompiledModel model = compile_with_parameters(o.file, parse_assignments(o.parameters),
                                                        o.parameters, o.library_paths, o.no_cache);
    ModesOptions options;
    for (const std::string& text : o.at) {
        options.at.push_back(parse_at(text));
    }
    options.tolerance = o.tolerance;
    options.search = o.search;
    const ModesResult r = modes(model, options);
    for (const std::string& note : r.notes) {
        std::cerr << "mdl modes: note: " << note << "\n";
    }
    print_report(model, r);
    if (!o.csv.empty()) {
        write_output_file("--csv", o.csv, modes_csv(r));
    }
    if (!o.plot.empty()) {
        write_output_file("--plot", o.plot, modes_plot(model, r));
    }
    return exit_status::success;
}

} // namespace

std::function<int()> add_modes_command(CLI::App& app) {
    auto o = std::make_shared<ModesCommandOptions>();
    CLI::App* cmd = app.add_subcommand(
        "modes", "Find an equilibrium, linearize about it and print the natural frequencies, "
                 "damping ratios and mode shapes");
    cmd->add_option("file", o->file, "Model file (.mdl)")->required();
    cmd->add_option("-p,--parameter", o->parameters, "Override a parameter: -p k=200")
        ->allow_extra_args(false);
    cmd->add_option("--at", o->at,
                    "Start Newton's method for the equilibrium here: --at crank.phi=-1.2 "
                    "(repeatable; other positions keep their start values)")
        ->allow_extra_args(false);
    cmd->add_option("--csv", o->csv,
                    "Write one row per mode: mode, omega, frequency_hz, damping_ratio and the "
                    "shape in every coordinate");
    cmd->add_option("--plot", o->plot,
                    "Draw the mode shapes as SVG (planar bodies as points and bars, otherwise "
                    "one bar per coordinate)");
    cmd->add_option("--search", o->search,
                    "How the equilibrium is found: rest (pseudo-transient continuation "
                    "downhill from the start to a rest position), nearest (Newton's method: "
                    "the equilibrium nearest the start, stable or not), auto (nearest with "
                    "--at, else rest)")
        ->capture_default_str()
        ->check(CLI::IsMember({"auto", "rest", "nearest"}));
    cmd->add_option("--tolerance", o->tolerance,
                    "Relative residual of the static equations at the equilibrium")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cmd->add_option("--library", o->library_paths,
                    "A folder of component models, searched after the model's own folder")
        ->allow_extra_args(false);
    cmd->add_flag("--no-cache", o->no_cache,
                  "Neither read nor write the code cache on disk (see mdl cache)");
    return [o]() {
        return run_reporting("modes", [o] { return run_modes(*o); });
    };
}

} // namespace mdl::cli
