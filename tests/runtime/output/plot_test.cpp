// Plots with gnuplot (runtime/output/plot.hpp): real PNG and SVG images, the script, and the
// errors a front end turns into flag messages. gnuplot is a declared dependency
// (scripts/setup): without it the rendering tests fail, saying so.
#include "runtime/output/plot.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

using namespace mdl::runtime;

namespace {

std::string temp_path(const std::string& name) {
    const std::filesystem::path dir = std::filesystem::path(MDL_BINARY_DIR) / "tests/runtime/plot";
    std::filesystem::create_directories(dir);
    return (dir / name).string();
}

// A CSV as CsvWriter writes it: time, q, der(q), one quoted name; a damped oscillation.
std::string oscillation_csv(const std::string& name, double damping) {
    const std::string path = temp_path(name);
    std::ofstream out(path);
    out << "time,q,der(q),\"lambda(a,b)\"\n";
    for (int i = 0; i <= 200; ++i) {
        const double t = 0.05 * i;
        out << t << ',' << std::exp(-damping * t) * std::cos(2 * t) << ','
            << -2 * std::exp(-damping * t) * std::sin(2 * t) << ',' << t * t << '\n';
    }
    return path;
}

std::string contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::uint32_t big_endian(const std::string& bytes, std::size_t at) {
    std::uint32_t value = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        value = value << 8 | static_cast<unsigned char>(bytes[at + i]);
    }
    return value;
}

PlotError::Kind error_kind(const PlotSpec& spec, std::string& message) {
    try {
        gnuplot_script(spec);
    } catch (const PlotError& e) {
        message = e.what();
        return e.kind();
    }
    FAIL("no PlotError");
    return PlotError::Kind::gnuplot_failed;
}

} // namespace

TEST_CASE("plot: gnuplot, a declared dependency (scripts/setup), renders a PNG") {
    PlotSpec spec;
    spec.output = temp_path("oscillation.png");
    spec.title = "damped oscillator";
    spec.series.push_back({.file = oscillation_csv("png.csv", 0.3), .y = "q"});
    spec.series.push_back({.file = spec.series[0].file, .y = "der(q)"});
    // a missing gnuplot fails here with "cannot run 'gnuplot': not found (install gnuplot...)"
    const std::string messages = render_plot(spec);
    CHECK(messages.empty());
    const std::string png = contents(spec.output);
    REQUIRE(png.size() > 8000); // two curves, grid, key and labels: some 20-40 kB
    CHECK(png.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
    CHECK(png.substr(12, 4) == "IHDR");
    CHECK(big_endian(png, 16) == 800); // width, height as asked
    CHECK(big_endian(png, 20) == 600);
}

TEST_CASE("plot: an SVG holds every series of several files, lines and points") {
    PlotSpec spec;
    spec.output = temp_path("two_files.svg");
    spec.width = 640;
    spec.logx = true;
    spec.series.push_back({.file = oscillation_csv("hmm.csv", 0.3), .y = "q"});
    spec.series.push_back(
        {.file = oscillation_csv("direct.csv", 0.31), .y = "q", .style = PlotStyle::points});
    spec.series.push_back({.file = spec.series[0].file,
                           .y = "lambda(a,b)",
                           .title = "multiplier",
                           .style = PlotStyle::linespoints});
    render_plot(spec);
    const std::string svg = contents(spec.output);
    CHECK(svg.find("<svg") != std::string::npos);
    CHECK(svg.find("width=\"640\"") != std::string::npos);
    CHECK(svg.find("id=\"gnuplot_plot_3\"") != std::string::npos);
    // legend entries: the files' stems and columns, as several files and columns are plotted
    CHECK(svg.find("<text>hmm: q</text>") != std::string::npos);
    CHECK(svg.find("<text>direct: q</text>") != std::string::npos);
    CHECK(svg.find("<text>multiplier</text>") != std::string::npos);
    CHECK(svg.size() > 20000); // 201 points per series
}

TEST_CASE("plot: the script reads columns by number and quotes names") {
    const std::string file = oscillation_csv("it's.csv", 0.3);
    PlotSpec spec;
    spec.output = temp_path("out.SVG"); // the extension in any case
    spec.logy = true;
    spec.series.push_back({.file = file, .x = "q", .y = "der(q)", .style = PlotStyle::points});
    const std::string script = gnuplot_script(spec);
    CHECK(script.find("set terminal svg") != std::string::npos);
    CHECK(script.find("set datafile separator ','") != std::string::npos);
    CHECK(script.find("it''s.csv' skip 1 using 2:3 with points") != std::string::npos);
    CHECK(script.find("title 'der(q)'") != std::string::npos);
    CHECK(script.find("set xlabel 'q'") != std::string::npos);
    CHECK(script.find("set ylabel 'der(q)'") != std::string::npos);
    CHECK(script.find("set logscale y") != std::string::npos);
    CHECK(script.find("set logscale x") == std::string::npos);

    spec.series.push_back({.file = file, .y = "lambda(a,b)"}); // a quoted header field
    CHECK(gnuplot_script(spec).find("using 1:4 with lines") != std::string::npos);
    CHECK(gnuplot_script(spec).find("set ylabel") == std::string::npos); // two columns
}

TEST_CASE("plot: unknown columns, files and formats are errors that say which") {
    const std::string file = oscillation_csv("errors.csv", 0.3);
    std::string message;
    PlotSpec spec;
    spec.output = temp_path("errors.png");
    spec.series.push_back({.file = file, .y = "der(qq)"});
    CHECK(error_kind(spec, message) == PlotError::Kind::y_column);
    CHECK(message == "no column 'der(qq)' in '" + file +
                         "'; did you mean 'der(q)'? (columns: time, q, der(q), lambda(a,b))");

    spec.series[0] = {.file = file, .x = "tme", .y = "q"};
    CHECK(error_kind(spec, message) == PlotError::Kind::x_column);
    CHECK(message.find("did you mean 'time'?") != std::string::npos);

    spec.series[0] = {.file = file, .y = "zzzzz"};
    CHECK(error_kind(spec, message) == PlotError::Kind::y_column);
    CHECK(message.find("did you mean") == std::string::npos);

    spec.series[0] = {.file = temp_path("missing.csv"), .y = "q"};
    CHECK(error_kind(spec, message) == PlotError::Kind::file);
    CHECK(message == "cannot open '" + temp_path("missing.csv") + "'");

    const std::string header_only = temp_path("header_only.csv");
    std::ofstream(header_only) << "time,q\n";
    spec.series[0] = {.file = header_only, .y = "q"};
    CHECK(error_kind(spec, message) == PlotError::Kind::file);
    CHECK(message.find("has no data rows") != std::string::npos);

    spec.series[0] = {.file = file, .y = "q"};
    spec.output = temp_path("errors.pdf");
    CHECK(error_kind(spec, message) == PlotError::Kind::output);
    CHECK(message.find("neither .png nor .svg") != std::string::npos);
}

TEST_CASE("plot: a missing gnuplot and a failing one are reported") {
    PlotSpec spec;
    spec.series.push_back({.file = oscillation_csv("gnuplot.csv", 0.3), .y = "q"});
    spec.output = temp_path("gnuplot.png");
    for (const char* program : {"mdl-no-such-gnuplot", "/nonexistent/gnuplot"}) {
        spec.gnuplot = program;
        try {
            render_plot(spec);
            FAIL("rendered without gnuplot");
        } catch (const PlotError& e) {
            CHECK(e.kind() == PlotError::Kind::gnuplot_missing);
            CHECK(std::string(e.what()).find("gnuplot-nox") != std::string::npos);
        }
    }
    spec.gnuplot = "gnuplot";
    spec.output = temp_path("no/such/directory/out.png");
    try {
        render_plot(spec);
        FAIL("rendered into a missing directory");
    } catch (const PlotError& e) {
        CHECK(e.kind() == PlotError::Kind::gnuplot_failed);
        CHECK(std::string(e.what()).find("gnuplot failed") != std::string::npos);
    }
}
