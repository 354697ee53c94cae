// `mdl plot` as a user runs it: images from `mdl run`'s CSV, and the one-line errors (exit 2,
// naming the flag) for unknown columns, missing files and a missing gnuplot.
#include "cli_test_support.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

using namespace cli_test;

namespace {

std::string temp(const std::string& name) {
    const std::string dir = std::string(MDL_BINARY_DIR) + "/tests/cli/plot";
    std::filesystem::create_directories(dir);
    return dir + "/" + name;
}

// The harmonic oscillator's trajectory, written by `mdl run`.
std::string run_csv(const std::string& name, const std::string& method) {
    const std::string out = temp(name + ".csv");
    const Result r = mdl("run " + model("harmonic_oscillator.mdl") +
                         " -q --stop 2 --step 1e-3 --every 10 -m " + method + " -o " + out);
    INFO(r.output);
    REQUIRE(r.status == 0);
    return out;
}

} // namespace

TEST_CASE("mdl plot renders columns of mdl run's CSV to a PNG, next to the CSV by default") {
    const std::string csv = run_csv("oscillator", "verlet");
    const std::string png = temp("oscillator.png");
    std::filesystem::remove(png);
    const Result r = mdl("plot " + csv + " --y 'q,der(q)' --title 'harmonic oscillator'");
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output == "mdl plot: wrote " + png + " (2 series)\n");
    const std::string image = read_file(png);
    REQUIRE(image.size() > 8000);
    CHECK(image.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));

    // flags before the file: --y takes one value (comma-separated), not the file too
    const Result flags_first = mdl("plot --y q --y 'der(q)' " + csv + " -o " + temp("first.svg"));
    INFO(flags_first.output);
    CHECK(flags_first.status == 0);
    CHECK(flags_first.output.find("(2 series)") != std::string::npos);
}

TEST_CASE("mdl plot draws several files on one SVG, a line and points") {
    const std::string verlet = run_csv("verlet", "verlet");
    const std::string rk4 = run_csv("rk4", "rk4");
    const std::string svg = temp("methods.svg");
    const Result r = mdl("plot " + verlet + " " + rk4 + " --x time --y q --style lines,points -o " +
                         svg + " --logx --logy");
    INFO(r.output);
    REQUIRE(r.status == 0);
    const std::string image = read_file(svg);
    CHECK(image.find("<svg") != std::string::npos);
    CHECK(image.find("<text>verlet</text>") != std::string::npos);
    CHECK(image.find("<text>rk4</text>") != std::string::npos);

    const Result script = mdl("plot " + verlet + " " + rk4 + " --y q --points --script -o x.svg");
    REQUIRE(script.status == 0);
    CHECK(script.output.find("verlet.csv' skip 1 using 1:2 with points") != std::string::npos);
    CHECK(script.output.find("rk4.csv' skip 1 using 1:2 with points") != std::string::npos);
}

TEST_CASE("mdl plot: an unknown column is exit 2 naming the flag, with a suggestion") {
    const std::string csv = run_csv("columns", "rk4");
    Result r = mdl("plot " + csv + " --y q,qq");
    CHECK(r.status == 2);
    CHECK(r.output == "mdl plot: error: --y: no column 'qq' in '" + csv +
                          "'; did you mean 'q'? (columns: time, q, der(q))\n");
    r = mdl("plot " + csv + " --x tim --y q");
    CHECK(r.status == 2);
    CHECK(r.output.find("mdl plot: error: --x: no column 'tim' in '" + csv +
                        "'; did you mean 'time'?") == 0);
    r = mdl("plot " + csv);
    CHECK(r.status == 2);
    CHECK(r.output.find("--y is required") != std::string::npos);
}

TEST_CASE("mdl plot: missing files, bad outputs and styles are exit 2") {
    const std::string csv = run_csv("errors", "rk4");
    Result r = mdl("plot /nonexistent/out.csv --y q");
    CHECK(r.status == 2);
    CHECK(r.output == "mdl plot: error: cannot open '/nonexistent/out.csv'\n");
    r = mdl("plot " + csv + " --y q -o out.pdf");
    CHECK(r.status == 2);
    CHECK(r.output == "mdl plot: error: --output: 'out.pdf' is neither .png nor .svg\n");
    r = mdl("plot " + csv + " " + csv + " " + csv + " --y q --style lines,points");
    CHECK(r.status == 2);
    CHECK(r.output.find("mdl plot: error: --style: 2 styles for 3 files") == 0);
    r = mdl("plot " + csv + " --y q --style dots");
    CHECK(r.status == 2);
    CHECK(r.output.find("--style") != std::string::npos);
    r = mdl("plot " + csv + " --y q --style lines --points");
    CHECK(r.status == 2);
}

TEST_CASE("mdl plot without gnuplot on PATH says so (exit 2)") {
    const std::string csv = run_csv("no_gnuplot", "rk4");
    const Result r = run_command("PATH=/nonexistent " + std::string(MDL_EXECUTABLE) + " plot " +
                                 csv + " --y q -o " + temp("no_gnuplot.png"));
    CHECK(r.status == 2);
    CHECK(r.output == "mdl plot: error: cannot run 'gnuplot': not found (install gnuplot: the "
                      "Debian package gnuplot-nox, which scripts/setup installs)\n");
}
