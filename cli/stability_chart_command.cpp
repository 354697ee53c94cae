// mdl stability-chart FILE.mdl -p a=0:5 -p q=0:5 --grid 50x50 [--at q=pi | --orbit] [-j N]
//                              [--csv F] [--boundary F] [--plot F.svg]
// The Floquet stability of a periodic solution over a grid of two Real parameters, with the
// boundaries refined by bisection (mdl/stability_chart.hpp, docs/analysis.md): the grid's
// verdicts as CSV, the boundary points as CSV (standard output when no file is named), and a
// picture with the stable region shaded. Threads only (no MPI).
#include "analysis_options.hpp"
#include "commands.hpp"
#include "exit_status.hpp"
#include "interruption.hpp"
#include "mdl/compiled_model.hpp"
#include "mdl/stability_chart.hpp"
#include "model_options.hpp"
#include "output_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <numbers>
#include <optional>
#include <sstream>
#include <thread>

namespace mdl::cli {

namespace {

struct ChartOptions {
    std::string file;
    std::vector<std::string> parameters; // a=0:5[:log] ranges, l=0.3 fixed values
    std::string grid = "41x41";
    std::vector<std::string> at;
    bool orbit = false;
    double period = 0.0;
    double tolerance = 1e-6;
    double stability_tolerance = 1e-6;
    std::optional<std::size_t> threads;
    std::string csv, boundary, plot, title;
    std::vector<std::string> library_paths;
    bool no_cache = false;
    bool quiet = false;
};

double number(const std::string& text, const std::string& flag) {
    double value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, error] = std::from_chars(text.data(), end, value);
    if (text.empty() || error != std::errc() || ptr != end || !std::isfinite(value)) {
        throw std::invalid_argument(fmt::format("{}: '{}' is not a finite number", flag, text));
    }
    return value;
}

// A number, or a multiple or fraction of pi: "pi", "-pi", "2*pi", "pi/2", "0.5*pi".
double value_or_pi(const std::string& text, const std::string& flag) {
    const auto pi = text.find("pi");
    if (pi == std::string::npos) {
        return number(text, flag);
    }
    std::string before = text.substr(0, pi), after = text.substr(pi + 2);
    double factor = 1.0;
    if (before == "-") {
        factor = -1.0;
    } else if (!before.empty()) {
        if (before.back() != '*') {
            throw std::invalid_argument(fmt::format("{}: '{}' is not a number", flag, text));
        }
        factor = number(before.substr(0, before.size() - 1), flag);
    }
    if (!after.empty()) {
        if (after.front() != '/') {
            throw std::invalid_argument(fmt::format("{}: '{}' is not a number", flag, text));
        }
        factor /= number(after.substr(1), flag);
    }
    return factor * std::numbers::pi;
}

std::pair<std::string, std::string> split_assignment(const std::string& text,
                                                     const std::string& flag) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
        throw std::invalid_argument(fmt::format("{} expects name=value, got '{}'", flag, text));
    }
    return {text.substr(0, eq), text.substr(eq + 1)};
}

// "a=0:5" or "omega=10:1000:log" (a range), else "l=0.3" (a fixed value).
struct ParsedParameters {
    std::vector<ChartRange> ranges;
    std::vector<ParameterValue> fixed;
};

ParsedParameters parse_parameters(const std::vector<std::string>& texts) {
    ParsedParameters parsed;
    for (const std::string& text : texts) {
        const auto [name, spec] = split_assignment(text, "-p");
        const std::string flag = "-p " + name;
        const auto colon = spec.find(':');
        if (colon == std::string::npos) {
            parsed.fixed.emplace_back(name, value_or_pi(spec, flag));
            continue;
        }
        ChartRange r;
        r.name = name;
        r.lo = value_or_pi(spec.substr(0, colon), flag);
        std::string rest = spec.substr(colon + 1);
        const auto second = rest.find(':');
        if (second != std::string::npos) {
            const std::string spacing = rest.substr(second + 1);
            if (spacing != "log" && spacing != "lin") {
                throw std::invalid_argument(
                    fmt::format("{}: the range's spacing is lin or log, not '{}' (-p a=0:5, -p "
                                "omega=10:1000:log)",
                                flag, spacing));
            }
            r.log = spacing == "log";
            rest = rest.substr(0, second);
        }
        r.hi = value_or_pi(rest, flag);
        parsed.ranges.push_back(r);
    }
    if (parsed.ranges.size() != 2) {
        throw std::invalid_argument(
            fmt::format("-p: a chart needs two parameter ranges (-p a=0:5 -p q=0:5), got {}",
                        parsed.ranges.size()));
    }
    return parsed;
}

std::pair<std::size_t, std::size_t> parse_grid(const std::string& text) {
    const auto x = text.find('x');
    auto count = [&](const std::string& part) {
        std::size_t n = 0;
        const char* end = part.data() + part.size();
        const auto [ptr, error] = std::from_chars(part.data(), end, n);
        if (part.empty() || error != std::errc() || ptr != end || n < 2 || n > 10000) {
            throw std::invalid_argument(fmt::format(
                "--grid: expected N1xN2 with 2 <= N <= 10000 points per parameter (--grid "
                "50x50), got '{}'",
                text));
        }
        return n;
    };
    if (x == std::string::npos) {
        throw std::invalid_argument(
            fmt::format("--grid: expected N1xN2 (--grid 50x50), got '{}'", text));
    }
    return {count(text.substr(0, x)), count(text.substr(x + 1))};
}

int chart(const ChartOptions& o) {
    catch_interruptions();
    const ParsedParameters parameters = parse_parameters(o.parameters);
    StabilityChartSettings s;
    s.x = parameters.ranges[0];
    s.y = parameters.ranges[1];
    std::tie(s.x.points, s.y.points) = parse_grid(o.grid);
    for (const std::string& text : o.at) {
        const auto [name, value] = split_assignment(text, "--at");
        s.at.emplace_back(name, value_or_pi(value, "--at " + name));
    }
    s.orbit = o.orbit;
    s.period = o.period;
    s.tolerance = o.tolerance;
    s.stability_tolerance = o.stability_tolerance;
    if (o.threads && *o.threads == 0) {
        throw std::invalid_argument("--threads: must be at least 1, got 0");
    }
    s.threads = o.threads.value_or(std::max(1u, std::thread::hardware_concurrency()));
    if (!o.plot.empty() && std::filesystem::path(o.plot).extension() != ".svg") {
        throw std::invalid_argument(
            fmt::format("--plot: '{}' is not an .svg file (the chart is drawn as SVG)", o.plot));
    }
    s.progress = [](std::size_t, std::size_t) {
        return interruption_signal() == 0;
    };

    const auto began = std::chrono::steady_clock::now();
    CompileOptions compile;
    compile.library_paths = o.library_paths;
    compile.disk_cache = !o.no_cache;
    compile.structural_parameters = parameters.fixed;
    CompiledModel model = compile_file(o.file, compile);
    for (const ParameterValue& fixed : parameters.fixed) {
        const std::string& name = fixed.first; // captured below: no structured binding
        const double value = fixed.second;
        const bool structural =
            std::any_of(model.structural_parameters().begin(), model.structural_parameters().end(),
                        [&](const auto& p) { return p.first == name; });
        if (!structural) {
            try {
                model.set_parameter(name, value);
            } catch (const std::invalid_argument& e) {
                throw std::invalid_argument(fmt::format("-p {}: {}", name, e.what()));
            }
        }
    }
    for (const ChartRange* r : {&s.x, &s.y}) {
        try {
            (void)model.parameter(r->name);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(fmt::format("-p {}: {}", r->name, e.what()));
        }
    }
    const StabilityChart chart = stability_chart(model, s);

    std::ostringstream grid, boundary;
    write_chart_grid_csv(grid, chart);
    write_chart_boundary_csv(boundary, chart);
    if (!o.csv.empty()) {
        write_output_file("--csv", o.csv, grid.str());
    }
    if (!o.boundary.empty()) {
        write_output_file("--boundary", o.boundary, boundary.str());
    }
    if (!o.plot.empty()) {
        write_output_file("--plot", o.plot,
                          stability_chart_svg(chart, o.title.empty()
                                                         ? model.name() + ": " + chart.solution
                                                         : o.title));
    }
    if (o.csv.empty() && o.boundary.empty() && o.plot.empty()) {
        std::cout << boundary.str();
    }
    std::size_t stable = 0, unstable = 0, failed = 0;
    for (const ChartPoint& p : chart.points) {
        stable += p.verdict == ChartPoint::Verdict::stable;
        unstable += p.verdict == ChartPoint::Verdict::unstable;
        failed += p.verdict == ChartPoint::Verdict::failed;
    }
    if (!o.quiet) {
        for (std::size_t k = 0, shown = 0; k < chart.points.size() && shown < 3; ++k) {
            const ChartPoint& p = chart.points[k];
            if (p.verdict == ChartPoint::Verdict::failed && p.message != "stopped") {
                std::cerr << fmt::format("mdl stability-chart: {} = {}, {} = {}: {}\n", s.x.name,
                                         chart.x_values[k / s.y.points], s.y.name,
                                         chart.y_values[k % s.y.points], p.message);
                ++shown;
            }
        }
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
        std::cerr << fmt::format(
            "mdl stability-chart: {} of {}, {} x {} points ({} stable, {} unstable, {} failed), "
            "{} boundary points to {:g}, {} monodromy matrices on {} thread{}, {:.3f} s\n",
            chart.solution, model.name(), s.x.points, s.y.points, stable, unstable, failed,
            chart.boundary.size(), s.tolerance, chart.evaluations, s.threads,
            s.threads == 1 ? "" : "s", seconds);
    }
    if (const int signal = interruption_signal()) {
        std::cerr << fmt::format("mdl stability-chart: interrupted by {}: the points not "
                                 "computed are 'failed' (stopped) in the output\n",
                                 signal_name(signal));
        return exit_status::interrupted(signal);
    }
    if (failed == chart.points.size()) {
        std::cerr << fmt::format("mdl stability-chart: error: no point could be computed: {}\n",
                                 chart.points.front().message);
        return exit_status::numerical_failure;
    }
    return exit_status::success;
}

} // namespace

std::function<int()> add_stability_chart_command(CLI::App& app) {
    auto o = std::make_shared<ChartOptions>();
    CLI::App* cmd = app.add_subcommand(
        "stability-chart",
        "Floquet stability of a periodic solution over a grid of two parameters, boundaries "
        "refined by bisection (Ince-Strutt diagrams); CSV and an SVG plot");
    cmd->add_option("file", o->file, "Model file (.mdl)")->required();
    cmd->add_option("-p,--parameter", o->parameters,
                    "Two ranges -p a=0:5 -p q=0:5 (the first is the plot's x; ':log' for "
                    "logarithmic spacing, as -p omega=10:1000:log); other -p name=value fix a "
                    "parameter")
        ->allow_extra_args(false);
    cmd->add_option("--grid", o->grid, "Points per parameter, N1xN2 (default 41x41)");
    cmd->add_option("--at", o->at,
                    "The solution: the start state with this position or velocity replaced, "
                    "--at q=pi --at der(q)=0; it must stay a solution under the forcing (an "
                    "equilibrium of the forced model); default: the start state")
        ->allow_extra_args(false);
    cmd->add_flag("--orbit", o->orbit,
                  "The solution: the periodic orbit found by shooting from the start state (with "
                  "--at's values), of the forcing's period or, autonomous, of unknown period");
    cmd->add_option(
        "--period", o->period,
        "The forcing's period (default: the vibrations' common period; needed for "
        "a force with explicit time; with --orbit in an autonomous model, a guess of the "
        "orbit's period)");
    cmd->add_option("--tolerance", o->tolerance,
                    "Boundary points to this fraction of the bisected range (default 1e-6)");
    cmd->add_option("--stability-tolerance", o->stability_tolerance,
                    "Stable when every Floquet multiplier has |mu| <= 1 + this (default 1e-6)");
    cmd->add_option("-j,--threads", o->threads, "Threads (default: the hardware threads)");
    cmd->add_option("--csv", o->csv,
                    "Write the grid: x, y, verdict (stable, unstable, failed), max |mu|, message");
    cmd->add_option("--boundary", o->boundary,
                    "Write the refined boundary points (standard output when neither --csv, "
                    "--boundary nor --plot is given)");
    cmd->add_option("--plot", o->plot, "Draw the chart into an .svg file");
    cmd->add_option("--title", o->title, "The plot's title (default: model and solution)");
    cmd->add_option("--library", o->library_paths,
                    "A folder of component models, searched after the model's own folder")
        ->allow_extra_args(false);
    cmd->add_flag("--no-cache", o->no_cache,
                  "Neither read nor write the code cache on disk (see mdl cache)");
    cmd->add_flag("-q,--quiet", o->quiet, "No summary line on stderr");
    return [o]() {
        return run_reporting("stability-chart", [o] { return chart(*o); });
    };
}

} // namespace mdl::cli
