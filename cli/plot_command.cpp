// mdl plot FILE.csv... --y q[,v...] [--x time] [--output out.png|out.svg] [--title T]
//                      [--logx] [--logy] [--points | --style lines,points]
// Plots columns of CSV files (as `mdl run` writes them) with gnuplot; the work is done by
// runtime/output/plot.hpp, which other tools share (docs/plotting.md).
#include "commands.hpp"
#include "exit_status.hpp"
#include "runtime/output/plot.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <iostream>

namespace mdl::cli {

namespace {

struct PlotOptions {
    std::vector<std::string> files;
    std::string x = "time";
    std::vector<std::string> y;
    std::string output; // empty: the first file with .png for .csv
    std::string title, xlabel, ylabel;
    bool logx = false, logy = false, points = false, script = false;
    std::vector<std::string> styles; // one, or one per file
};

runtime::PlotStyle style_named(const std::string& name) {
    if (name == "points") {
        return runtime::PlotStyle::points;
    }
    if (name == "linespoints") {
        return runtime::PlotStyle::linespoints;
    }
    return runtime::PlotStyle::lines;
}

runtime::PlotSpec plot_spec(const PlotOptions& o) {
    runtime::PlotSpec spec;
    spec.output = o.output;
    if (spec.output.empty()) {
        spec.output = std::filesystem::path(o.files.front()).replace_extension(".png").string();
    }
    spec.title = o.title;
    spec.xlabel = o.xlabel;
    spec.ylabel = o.ylabel;
    spec.logx = o.logx;
    spec.logy = o.logy;
    if (o.styles.size() > 1 && o.styles.size() != o.files.size()) {
        throw std::invalid_argument(
            fmt::format("--style: {} styles for {} files (give one for all or one per file)",
                        o.styles.size(), o.files.size()));
    }
    for (std::size_t f = 0; f < o.files.size(); ++f) {
        runtime::PlotStyle style = runtime::PlotStyle::lines;
        if (o.points) {
            style = runtime::PlotStyle::points;
        } else if (!o.styles.empty()) {
            style = style_named(o.styles[o.styles.size() == 1 ? 0 : f]);
        }
        for (const std::string& y : o.y) {
            spec.series.push_back({.file = o.files[f], .x = o.x, .y = y, .style = style});
        }
    }
    return spec;
}

int plot(const PlotOptions& o) {
    runtime::PlotSpec spec = plot_spec(o);
    if (o.script) {
        std::cout << runtime::gnuplot_script(spec);
        return 0;
    }
    std::string messages = runtime::render_plot(spec);
    if (!messages.empty()) {
        std::cerr << "mdl plot: gnuplot: " << messages;
    }
    std::cout << fmt::format("mdl plot: wrote {} ({} series)\n", spec.output, spec.series.size());
    return 0;
}

} // namespace

std::function<int()> add_plot_command(CLI::App& app) {
    auto o = std::make_shared<PlotOptions>();
    CLI::App* cmd = app.add_subcommand(
        "plot", "Plot columns of CSV files (from mdl run) to a PNG or SVG image with gnuplot");
    cmd->add_option("files", o->files, "CSV files with a header line; several share the plot")
        ->required();
    cmd->add_option("--x", o->x, "Column on the horizontal axis")->capture_default_str();
    cmd->add_option("--y", o->y,
                    "Columns to plot by header name, comma-separated or repeated: --y 'q,der(q)'")
        ->required()
        ->delimiter(',')
        ->allow_extra_args(false); // `--y q out.csv`: out.csv is a file, not a column
    cmd->add_option("-o,--output", o->output,
                    "Image to write, .png or .svg (default: the first file with .png)");
    cmd->add_option("--title", o->title, "Title above the plot");
    cmd->add_option("--xlabel", o->xlabel, "Horizontal axis label (default: the --x column)");
    cmd->add_option("--ylabel", o->ylabel, "Vertical axis label (default: the --y column if one)");
    cmd->add_flag("--logx", o->logx, "Logarithmic horizontal axis");
    cmd->add_flag("--logy", o->logy, "Logarithmic vertical axis");
    CLI::Option* points = cmd->add_flag("--points", o->points, "Draw points (a scatter plot)");
    cmd->add_option("--style", o->styles,
                    "lines, points or linespoints: one for all files or one per file "
                    "(--style lines,points)")
        ->delimiter(',')
        ->allow_extra_args(false)
        ->check(CLI::IsMember({"lines", "points", "linespoints"}))
        ->excludes(points);
    cmd->add_flag("--script", o->script, "Print the gnuplot script instead of running gnuplot");
    return [o]() {
        try {
            return plot(*o);
        } catch (const runtime::PlotError& e) {
            using Kind = runtime::PlotError::Kind;
            switch (e.kind()) {
            case Kind::x_column:
                std::cerr << fmt::format("mdl plot: error: --x: {}\n", e.what());
                return 2;
            case Kind::y_column:
                std::cerr << fmt::format("mdl plot: error: --y: {}\n", e.what());
                return 2;
            case Kind::output:
                std::cerr << fmt::format("mdl plot: error: --output: {}\n", e.what());
                return 2;
            case Kind::file:
            case Kind::gnuplot_missing:
                std::cerr << fmt::format("mdl plot: error: {}\n", e.what());
                return 2;
            case Kind::write_failed:
                std::cerr << fmt::format("mdl plot: error: {}\n", e.what());
                return exit_status::output_failed;
            case Kind::gnuplot_failed:
                break;
            }
            std::cerr << fmt::format("mdl plot: error: {}\n", e.what());
            return 1;
        } catch (const std::invalid_argument& e) {
            std::cerr << fmt::format("mdl plot: error: {}\n", e.what());
            return 2;
        }
    };
}

} // namespace mdl::cli
