// mdl continue FILE.mdl -p Omega=0.5:2 [-p name=value]... [--ds S] [--ds-max S] [--csv F]
//               [--plot F.svg]
// Pseudo-arclength continuation of a periodic orbit in one parameter, through folds, with
// stability from the Floquet multipliers and folds, period doublings and Neimark-Sacker
// points located; the branch as CSV and as a frequency-response SVG (mdl/periodic.hpp and
// runtime/analysis/response_plot.hpp do the work).
#include "analysis_options.hpp"
#include "commands.hpp"
#include "exit_status.hpp"
#include "mdl/periodic.hpp"
#include "model_options.hpp"
#include "output_file.hpp"
#include "runtime/analysis/response_plot.hpp"
#include "runtime/numerical_failure.hpp"

#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <iostream>
#include <memory>
#include <stdexcept>

namespace mdl::cli {

namespace {

struct ContinueOptions {
    std::string file;
    std::vector<std::string> parameters;
    std::vector<std::string> library;
    bool no_cache = false;
    double ds = 0.05, ds_min = 1e-7, ds_max = 0.2;
    int max_points = 5000;
    double period = 0.0;
    std::string csv, plot;
    std::size_t samples = 256;
    double tolerance = 1e-10;
};

double parse_number(const std::string& text, const std::string& flag) {
    double value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc() || ptr != end || !std::isfinite(value)) {
        throw std::invalid_argument(fmt::format("{}: '{}' is not a finite number", flag, text));
    }
    return value;
}

std::string branch_csv(const Branch& branch) {
    std::string csv;
    for (const std::string& c : branch.columns()) {
        csv += c + ",";
    }
    csv += "bifurcation\n";
    const std::vector<double> table = branch.table();
    const std::size_t columns = branch.columns().size();
    for (std::size_t r = 0; r < branch.points.size(); ++r) {
        for (std::size_t c = 0; c < columns; ++c) {
            csv += runtime::format_number(table[r * columns + c]) + ",";
        }
        csv += branch.points[r].label + "\n";
    }
    return csv;
}

std::string branch_plot(const Branch& branch, const std::string& model) {
    runtime::analysis::ResponsePlot plot;
    plot.title = fmt::format("{}: periodic response", model);
    plot.xlabel = branch.parameter;
    plot.ylabel = "amplitude (max - min)/2";
    for (std::size_t i = 0; i < branch.positions.size(); ++i) {
        runtime::analysis::ResponseCurve curve;
        curve.name = branch.positions[i];
        for (const BranchPoint& p : branch.points) {
            curve.x.push_back(p.parameter);
            curve.y.push_back(p.amplitude[i]);
            curve.stable.push_back(p.stable);
        }
        plot.curves.push_back(std::move(curve));
    }
    for (const BranchPoint& p : branch.points) {
        if (!p.label.empty() && p.label != "start" && p.label != "end") {
            std::size_t largest = 0;
            for (std::size_t i = 1; i < p.amplitude.size(); ++i) {
                largest = p.amplitude[i] > p.amplitude[largest] ? i : largest;
            }
            plot.markers.push_back({p.parameter, p.amplitude[largest], p.label});
        }
    }
    return runtime::analysis::response_plot_svg(plot);
}

int run(const ContinueOptions& o) {
    std::vector<std::pair<std::string, double>> values;
    std::vector<std::string> texts;
    ContinuationSettings settings;
    for (const std::string& text : o.parameters) {
        const auto eq = text.find('=');
        const auto colon = text.find(':');
        if (colon != std::string::npos && eq != std::string::npos && colon > eq) {
            if (!settings.parameter.empty()) {
                throw std::invalid_argument(
                    fmt::format("-p {}: only one parameter is continued (already {})", text,
                                settings.parameter));
            }
            settings.parameter = text.substr(0, eq);
            const std::string flag = "-p " + text;
            settings.from = parse_number(text.substr(eq + 1, colon - eq - 1), flag);
            settings.to = parse_number(text.substr(colon + 1), flag);
            if (settings.from == settings.to) {
                throw std::invalid_argument(flag + ": the range's ends must differ");
            }
        } else {
            values.push_back(parse_assignment(text));
            texts.push_back(text);
        }
    }
    if (settings.parameter.empty()) {
        throw std::invalid_argument("give the continued parameter and its range: -p Omega=0.5:2");
    }
    const CompiledModel compiled =
        compile_with_parameters(o.file, values, texts, o.library, o.no_cache);
    try {
        compiled.parameter(settings.parameter);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(fmt::format("-p {}=...: {}", settings.parameter, e.what()));
    }
    settings.ds = o.ds;
    settings.ds_min = o.ds_min;
    settings.ds_max = std::max(o.ds_max, o.ds_min);
    settings.max_points = o.max_points;
    settings.period = o.period;
    settings.samples = o.samples;
    settings.tolerance = o.tolerance;
    const Branch branch = continuation(compiled, settings);
    std::string text =
        fmt::format("continued {} in {} from {} to {}: {} points; {}\n", compiled.name(),
                    branch.parameter, runtime::format_number(settings.from),
                    runtime::format_number(settings.to), branch.points.size(), branch.stop);
    std::size_t stable = 0;
    for (const BranchPoint& p : branch.points) {
        stable += p.stable ? 1 : 0;
        if (p.label.empty() || p.label == "start" || p.label == "end") {
            continue;
        }
        text += fmt::format("  {:<16} {} = {:.10g}  period {:.10g}  amplitude", p.label,
                            branch.parameter, p.parameter, p.period);
        for (std::size_t i = 0; i < p.amplitude.size(); ++i) {
            text += fmt::format(" {} {:.8g}", branch.positions[i], p.amplitude[i]);
        }
        text += fmt::format("  max |mu| {:.6g}\n", p.max_modulus);
    }
    text +=
        fmt::format("  {} stable and {} unstable points\n", stable, branch.points.size() - stable);
    std::cout << text;
    if (!o.csv.empty()) {
        write_output_file("--csv", o.csv, branch_csv(branch));
    }
    if (!o.plot.empty()) {
        write_output_file("--plot", o.plot, branch_plot(branch, compiled.name()));
    }
    return exit_status::success;
}

} // namespace

std::function<int()> add_continue_command(CLI::App& app) {
    auto o = std::make_shared<ContinueOptions>();
    CLI::App* cmd = app.add_subcommand(
        "continue", "Continue a periodic orbit in one parameter (pseudo-arclength, through "
                    "folds): stability from the Floquet multipliers, folds, period doublings "
                    "and Neimark-Sacker points located; the branch as CSV and an SVG plot");
    cmd->add_option("file", o->file, "Model file (.mdl)")->required();
    cmd->add_option("-p,--parameter", o->parameters,
                    "The continued parameter and its range, -p Omega=0.5:2 (from 0.5 towards "
                    "2); other parameters as -p c=0.1")
        ->allow_extra_args(false);
    cmd->add_option("--library", o->library,
                    "A folder of component models, searched after the model's own folder")
        ->allow_extra_args(false);
    cmd->add_flag("--no-cache", o->no_cache, "Neither read nor write the code cache on disk");
    cmd->add_option("--ds", o->ds, "First step along the branch (arclength)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--ds-min", o->ds_min, "Smallest step before giving up")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--ds-max", o->ds_max, "Largest step (smaller: more points)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--max-points,--steps", o->max_points, "Most points on the branch")
        ->check(CLI::Range(2, 10000000));
    cmd->add_option("--period", o->period,
                    "The period when the force uses time explicitly; a first guess for an "
                    "autonomous model")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--csv", o->csv,
                    "Write the branch as CSV: parameter, period, amplitude per position, the "
                    "state at t = 0, multipliers, max |mu|, stable, bifurcation");
    cmd->add_option("--plot", o->plot,
                    "Write the frequency-response plot as SVG (stable solid, unstable dashed)");
    cmd->add_option("--samples", o->samples, "Runge-Kutta steps per period for the amplitudes")
        ->check(CLI::Range(std::size_t{8}, std::size_t{100000}));
    cmd->add_option("--tolerance", o->tolerance, "Newton's tolerance on the shooting residual")
        ->check(CLI::PositiveNumber);
    return [o]() {
        return run_reporting("continue", [o] { return run(*o); });
    };
}

} // namespace mdl::cli
