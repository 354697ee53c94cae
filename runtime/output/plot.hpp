// Plots of CSV columns, rendered by gnuplot to PNG or SVG (docs/plotting.md): line and scatter
// series, from one or several CSV files on one plot (an HMM run as a line, the direct method
// as dots). Columns are named by the CSV's header line, as CsvWriter writes it
// (time, q, der(q), ..., energy); data rows are numbers. `mdl plot` is a thin front end;
// reports, reproduction figures and sweeps build a PlotSpec the same way.
//
//     PlotSpec spec{.output = "q.svg", .title = "Kapitza pendulum"};
//     spec.series.push_back({.file = "hmm.csv", .y = "q"});
//     spec.series.push_back({.file = "verlet.csv", .y = "q", .style = PlotStyle::points});
//     render_plot(spec); // throws PlotError
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace mdl::runtime {

enum class PlotStyle { lines, points, linespoints };
enum class PlotFormat { png, svg };

struct PlotSeries {
    std::string file{};     // CSV file with a header line
    std::string x = "time"; // column names from the header
    std::string y{};
    std::string title{}; // legend entry; empty: the column, or the file's stem when several
                         // files are plotted ("stem: column" when the columns differ too)
    PlotStyle style = PlotStyle::lines;
};

struct PlotSpec {
    std::vector<PlotSeries> series{};
    std::string output{}; // .png or .svg, which chooses the format
    std::string title{};
    std::string xlabel{}; // empty: the first series' x column
    std::string ylabel{}; // empty: the y column when every series plots the same one
    bool logx = false;
    bool logy = false;
    int width = 800; // pixels (SVG: user units)
    int height = 600;
    std::string gnuplot = "gnuplot"; // the program, looked up on PATH unless it has a '/'
};

// What went wrong, so that a front end can name its flag: an unknown x or y column (with a
// "did you mean" suggestion), an unreadable or empty file, an output that is neither .png
// nor .svg, gnuplot not installed, or gnuplot failing (its messages in what()).
class PlotError : public std::runtime_error {
public:
    // write_failed: the image on disk is incomplete (gnuplot exits 0 when its writes fail)
    enum class Kind {
        file,
        x_column,
        y_column,
        output,
        gnuplot_missing,
        gnuplot_failed,
        write_failed
    };
    PlotError(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
    Kind kind() const { return kind_; }

private:
    Kind kind_;
};

// The column names of a CSV file's header line (RFC 4180 quoting). Throws PlotError (file)
// when the file cannot be read, has no header or no data row.
std::vector<std::string> read_csv_header(const std::string& file);

// The format an output path asks for, by its extension (case-insensitive).
PlotFormat plot_format(const std::string& output);

// The gnuplot script that draws `spec`, after checking every file and column: the CSV files
// are read by gnuplot itself, columns by number.
std::string gnuplot_script(const PlotSpec& spec);

// Writes spec.output by running gnuplot on gnuplot_script(spec). Returns gnuplot's own
// messages (warnings such as points skipped on a log axis; usually empty).
std::string render_plot(const PlotSpec& spec);

} // namespace mdl::runtime
