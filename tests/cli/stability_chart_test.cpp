// mdl stability-chart: the command's outputs and errors. Its numbers: the upright Kapitza
// pendulum's lower stability limit against the Mathieu characteristic value a0 of its
// linearization (Hill's method, tests/support/mathieu_reference.hpp); the library's accuracy
// is tested in tests/api/stability_chart_test.cpp.
#include "cli_test_support.hpp"
#include "mathieu_reference.hpp"

#include <cmath>
#include <filesystem>
#include <string>

using cli_test::mdl;
using cli_test::model;

namespace {

std::filesystem::path scratch(const std::string& name) {
    const auto dir = std::filesystem::path(MDL_BINARY_DIR) / "tests" / "cli" / "stability_chart";
    std::filesystem::create_directories(dir);
    return dir / name;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
        out.push_back(text.substr(start, end - start));
    }
    return out;
}

} // namespace

TEST_CASE("mdl stability-chart: the Kapitza pendulum's upright limit, CSV and plot",
          "[cli][stability_chart]") {
    const auto grid = scratch("kapitza_grid.csv"), boundary = scratch("kapitza_boundary.csv"),
               plot = scratch("kapitza.svg");
    // omega fixed at 200 by a one-point range would be refused: two omegas, 200 and 400
    const auto r =
        mdl("stability-chart " + model("kapitza.mdl") +
            " -p omega=200:400 -p vmax=1:4 -p l=0.25 --grid 2x4 --at q=0 --threads 2"
            " --tolerance 1e-9 --csv " +
            grid.string() + " --boundary " + boundary.string() + " --plot " + plot.string());
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("the start state with q = 0 of Kapitza, 2 x 4 points") !=
          std::string::npos);
    const auto g = lines(cli_test::read_file(grid));
    REQUIRE(g.size() == 1 + 8);
    CHECK(g[0] == "omega,vmax,verdict,max_multiplier,message");
    CHECK(cli_test::fields(g[1])[2] == "unstable"); // omega 200, vmax 1 < sqrt(2 g l)
    CHECK(cli_test::fields(g[4])[2] == "stable");   // omega 200, vmax 4
    const auto b = lines(cli_test::read_file(boundary));
    std::size_t checked = 0;
    for (std::size_t k = 1; k < b.size(); ++k) {
        const auto f = cli_test::fields(b[k]);
        if (f[2] != "vmax") {
            continue;
        }
        const double omega = std::stod(f[0]), vmax = std::stod(f[1]);
        const double l = 0.25, g0 = 9.8, a = -4 * g0 / (l * omega * omega);
        const double q = 2 * vmax / (l * omega);
        CHECK(std::abs(mathieu::characteristic_values(q, 1e9, 40)[0] - a) < 1e-7);
        CHECK(f[7] == "upper"); // stable above the limit
        ++checked;
    }
    CHECK(checked == 2);
    CHECK(cli_test::read_file(plot).find("</svg>") != std::string::npos);
}

TEST_CASE("mdl stability-chart: bad input names the flag", "[cli][stability_chart]") {
    const std::string mathieu = model("mathieu.mdl");
    struct Case {
        std::string arguments, message;
    };
    const Case cases[] = {
        {"-p a=0:1", "a chart needs two parameter ranges"},
        {"-p a=0:1 -p b=0:1", "-p b: "},
        {"-p a=0:1 -p q=0:1 --grid 5", "--grid: expected N1xN2"},
        {"-p a=0:1 -p q=0:1 --grid 1x5", "--grid: expected N1xN2"},
        {"-p a=0:1 -p q=0:1:cubic", "spacing is lin or log"},
        {"-p a=0:1 -p q=-1:1:log", "a logarithmic range needs positive bounds"},
        {"-p a=0:1 -p q=0:1 --at y=1", "--at: 'y' is not a position or velocity"},
        {"-p a=0:1 -p q=0:1 --plot x.png", "--plot: 'x.png' is not an .svg file"},
        {"-p a=0:1 -p q=0:1 --tolerance 2", "--tolerance: must be in (0, 1)"},
    };
    for (const Case& c : cases) {
        const auto r = mdl("stability-chart " + mathieu + " " + c.arguments);
        INFO(c.arguments << "\n" << r.output);
        CHECK(r.status == 2);
        CHECK(r.output.find(c.message) != std::string::npos);
    }
    // a model the variational equations do not cover
    const auto r = mdl("stability-chart " + model("bouncing_ball.mdl") + " -p g=1:2 -p e=0.5:0.9");
    INFO(r.output);
    CHECK(r.status == 2);
    CHECK(r.output.find("events") != std::string::npos);
    // a state that is not a solution: every point fails, with the reason
    const auto moving =
        mdl("stability-chart " + mathieu + " -p a=1:2 -p q=0:1 --grid 2x2 --at x=1");
    INFO(moving.output);
    CHECK(moving.status == 3);
    CHECK(moving.output.find("is not a periodic solution here") != std::string::npos);
}
