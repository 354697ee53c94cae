// Stability charts of compiled models (mdl/stability_chart.hpp): the Floquet multipliers of the
// library (monodromy matrices from the compiled Jacobian kernels) over parameter grids, against
// references computed without them:
// - the Mathieu equation (models/mathieu.mdl): boundaries against Abramowitz & Stegun's Table
//   20.1 and series 20.2.25 and against Hill's method (tests/support/mathieu_reference.hpp);
// - the pendulum with a vertically vibrated pivot (models/kapitza.mdl), upright position: the
//   lower limit of stability against vmax^2 = 2 g l (Kapitza's averaging) as omega grows, and
//   both limits, the upper one which averaging misses included, against the Mathieu
//   characteristic values of its linearization (a = -4 g / (l omega^2), q = 2 vmax / (l omega))
//   by Hill's method.
#include "mdl.h"
#include "mdl/stability_chart.hpp"

#include "mathieu_reference.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>

namespace {

const std::string models = std::string(MDL_SOURCE_DIR) + "/models/";

const mdl::CompiledModel& mathieu_model() {
    static const mdl::CompiledModel model = mdl::compile_file(models + "mathieu.mdl");
    return model;
}

// The boundary found along a at q = y.lo between grid points around `value`.
double boundary_near(double value, double q) {
    mdl::StabilityChartSettings s;
    s.x = {"a", value - 1.3e-4, value + 0.7e-4, 3};
    s.y = {"q", q, q + 0.1, 2};
    s.tolerance = 1e-3; // of the range 2e-4: the boundary to 2e-7
    const mdl::StabilityChart chart = mdl::stability_chart(mathieu_model(), s);
    for (const mdl::ChartBoundaryPoint& p : chart.boundary) {
        if (p.along_x && p.j == 0 && p.converged) {
            return p.x;
        }
    }
    return std::nan("");
}

// The root in [lo, hi] of increasing f by bisection.
template <typename F>
double root(F f, double lo, double hi) {
    for (int k = 0; k < 200 && hi - lo > 1e-13 * std::abs(hi); ++k) {
        const double m = (lo + hi) / 2;
        (f(m) < 0 ? lo : hi) = m;
    }
    return (lo + hi) / 2;
}

} // namespace

TEST_CASE("Mathieu chart from the model: boundaries against Abramowitz & Stegun",
          "[analysis][stability_chart]") {
    for (const mathieu::TabulatedValues& row : mathieu::abramowitz_stegun_20_1) {
        for (double value : row.values) {
            if (!std::isnan(value)) {
                CAPTURE(row.q, value);
                CHECK(std::abs(boundary_near(value, row.q) - value) < 1e-6);
            }
        }
    }
    for (double value : mathieu::power_series(0.2)) {
        CAPTURE(value);
        CHECK(std::abs(boundary_near(value, 0.2) - value) < 1e-6);
    }
}

TEST_CASE("Mathieu chart from the model: the Ince-Strutt diagram against Hill's method",
          "[analysis][stability_chart]") {
    mdl::StabilityChartSettings s;
    s.x = {"a", -2.0, 6.0, 33}; // spacing 0.25: each band at q = 1, 1.5, 2 is wider
    s.y = {"q", 1.0, 2.0, 3};
    s.tolerance = 1e-8;
    s.threads = 2;
    const mdl::StabilityChart chart = mdl::stability_chart(mathieu_model(), s);
    CHECK(chart.solution == "the start state");
    std::size_t along_a = 0;
    for (const mdl::ChartBoundaryPoint& p : chart.boundary) {
        CAPTURE(p.x, p.y, p.along_x);
        CHECK(p.converged);
        double distance = INFINITY;
        for (double c : mathieu::characteristic_values(p.y, 20.0)) {
            distance = std::min(distance, std::abs(c - p.x));
        }
        CHECK(distance < 1e-6);
        along_a += p.along_x ? 1 : 0;
    }
    CHECK(along_a == 15); // a0, b1, a1, b2, a2 at each of q = 1, 1.5, 2
    for (const mdl::ChartPoint& p : chart.points) {
        CHECK(p.verdict != mdl::ChartPoint::Verdict::failed);
        // a conservative system: stable means every |mu| = 1
        if (p.verdict == mdl::ChartPoint::Verdict::stable) {
            CHECK(std::abs(p.max_multiplier - 1) < 1e-9);
        }
    }
    std::ostringstream grid, boundary;
    mdl::write_chart_grid_csv(grid, chart);
    mdl::write_chart_boundary_csv(boundary, chart);
    CHECK(grid.str().rfind("a,q,verdict,max_multiplier,message\n", 0) == 0);
    CHECK(boundary.str().rfind("a,q,along,i,j,width,converged,stable_side,", 0) == 0);
    CHECK(mdl::stability_chart_svg(chart, "Mathieu").find("<polygon") != std::string::npos);
}

TEST_CASE("Kapitza pendulum: the upright position's stability limits in (vmax, omega)",
          "[analysis][stability_chart]") {
    const mdl::CompiledModel model = mdl::compile_file(models + "kapitza.mdl");
    const double g = model.parameter("g"), l = model.parameter("l");
    mdl::StabilityChartSettings s;
    s.at = {{"q", 0.0}};
    s.x = {"omega", 100.0, 1000.0, 3, true}; // 100, 316, 1000
    s.y = {"vmax", 1.0, 100.0, 13, true};    // ratio 1.47: at omega = 100 the limits are 2 and 9
    s.tolerance = 1e-8;
    s.threads = 2;
    const mdl::StabilityChart chart = mdl::stability_chart(model, s);
    CHECK(chart.solution == "the start state with q = 0");
    for (std::size_t i = 0; i < chart.x_values.size(); ++i) {
        const double omega = chart.x_values[i];
        const double a = -4 * g / (l * omega * omega);
        // the Mathieu limits: a0(q) = a (lower), b1(q) = a (upper), q = 2 vmax / (l omega)
        auto value = [](double q, std::size_t n) {
            return mathieu::characteristic_values(q, 1e9, 16)[n]; // q < 1: 16 terms suffice
        };
        const double q_lower = root([&](double q) { return a - value(q, 0); }, 1e-6, 0.9);
        const double q_upper = root([&](double q) { return a - value(q, 1); }, 0.5, 1.0);
        const double lower = q_lower * l * omega / 2, upper = q_upper * l * omega / 2;
        std::vector<double> found;
        for (const mdl::ChartBoundaryPoint& p : chart.boundary) {
            if (!p.along_x && p.i == i) {
                CHECK(p.converged);
                found.push_back(p.y);
            }
        }
        CAPTURE(omega, lower, upper, found);
        REQUIRE(found.size() == (upper < 100 ? 2 : 1));
        CHECK(std::abs(found[0] - lower) < 1e-6 * lower);
        if (upper < 100) {
            CHECK(std::abs(found[1] - upper) < 1e-6 * upper);
        }
        // Kapitza's averaged limit vmax^2 = 2 g l, approached as omega grows: the relative
        // difference is 7 q^2 / 64 + ... with q = 2 vmax / (l omega) (A&S 20.2.25)
        const double kapitza = std::sqrt(2 * g * l);
        const double q = 2 * kapitza / (l * omega);
        CHECK(std::abs(found[0] / kapitza - 1) < 0.2 * q * q);
        CHECK(found[0] > kapitza);
    }
}

TEST_CASE("the periodic orbit by shooting: a damped, forced Mathieu oscillator",
          "[analysis][stability_chart]") {
    // x'' + c x' + (a - 2 q cos 2t) x = F cos 2t: a unique periodic orbit (not 0), whose
    // stability is the damped Mathieu equation's; x = exp(-c t / 2) y turns it into Mathieu's
    // with a - c^2/4, so its multipliers are exp(-c pi / 2) times those of Mathieu's
    // (a - c^2/4, q): the boundaries are where that product has modulus 1 (the test's RK4).
    const mdl::CompiledModel model = mdl::compile(R"(
model DampedMathieu
  parameter Real a = 1;
  parameter Real q = 1;
  parameter Real c = 0.1;
  parameter Real F = 1;
  vibration s(theta = 2*time) = cos(theta);
  coordinate x(start = 0, vstart = 0);
equation
  der(der(x)) = -c*der(x) - (a - 2*q*s)*x + F*s;
end DampedMathieu;
)",
                                                  "damped_mathieu.mdl");
    mdl::StabilityChartSettings s;
    s.orbit = true;
    s.x = {"a", -0.3, 2.5, 15}; // the first tongue (b1, a1) narrowed by the damping
    s.y = {"q", 1.0, 1.2, 2};
    s.threads = 2;
    const mdl::StabilityChart chart = mdl::stability_chart(model, s);
    CHECK(chart.solution == "the periodic orbit from the start state");
    const double c = 0.1, damping = std::exp(-c * std::acos(-1.0) / 2);
    auto excess = [&](double a) { // > 0: unstable
        return damping * mathieu::max_multiplier(mathieu::monodromy(a - c * c / 4, 1.0, 4000)) - 1;
    };
    std::size_t found = 0;
    for (const mdl::ChartBoundaryPoint& p : chart.boundary) {
        if (p.along_x && p.j == 0) {
            CAPTURE(p.x);
            CHECK(p.converged);
            CHECK(excess(p.x - 1e-6) * excess(p.x + 1e-6) < 0);
            ++found;
        }
    }
    CHECK(found == 2);
    for (const mdl::ChartPoint& p : chart.points) {
        CHECK(p.verdict != mdl::ChartPoint::Verdict::failed);
    }
}

TEST_CASE("C API: mdl_stability_chart on the Mathieu model", "[analysis][stability_chart]") {
    char* error = nullptr;
    mdl_model* m = mdl_compile_file((models + "mathieu.mdl").c_str(), &error);
    REQUIRE(m != nullptr);
    mdl_chart* chart = nullptr;
    const mdl_chart_range a{"a", -1.0, 3.0, 17, 0}, q{"q", 1.0, 1.5, 2, 0};
    REQUIRE(mdl_stability_chart(m, a, q, "x=0,der(x)=0", 0, 2, &chart, &error) == MDL_OK);
    const std::vector<double> values = mathieu::characteristic_values(1.0, 3.0); // a0, b1, a1
    REQUIRE(values.size() == 3);
    std::size_t at_q1 = 0;
    for (std::size_t k = 0; k < mdl_chart_boundary_size(chart); ++k) {
        const double x = mdl_chart_boundary(chart)[2 * k], y = mdl_chart_boundary(chart)[2 * k + 1];
        if (y == 1.0) {
            double distance = INFINITY;
            for (double v : values) {
                distance = std::min(distance, std::abs(v - x));
            }
            CHECK(distance < 4e-6); // tolerance 1e-6 of the range 4
            ++at_q1;
        }
    }
    CHECK(at_q1 == 3);
    // a = 0.5 (i = 6), q = 1: between b1 and a1, unstable; a = 2 (i = 12): stable
    CHECK(mdl_chart_verdicts(chart)[6 * 2 + 0] == 0);
    CHECK(mdl_chart_verdicts(chart)[12 * 2 + 0] == 1);
    CHECK(std::abs(mdl_chart_max_multipliers(chart)[12 * 2 + 0] - 1) < 1e-9);
    const auto dir = std::filesystem::path(MDL_BINARY_DIR) / "tests" / "api";
    std::filesystem::create_directories(dir);
    const std::string svg = (dir / "c_chart.svg").string();
    CHECK(mdl_chart_write(chart, nullptr, nullptr, svg.c_str(), &error) == 0);
    CHECK(std::filesystem::file_size(svg) > 1000);
    CHECK(mdl_chart_write(chart, "/nonexistent/g.csv", nullptr, nullptr, &error) != 0);
    REQUIRE(error != nullptr);
    CHECK(std::strstr(error, "writing '/nonexistent/g.csv'") != nullptr);
    mdl_free_string(error);
    error = nullptr;
    mdl_chart_free(chart);
    chart = nullptr;
    CHECK(mdl_stability_chart(m, a, q, "x=zero", 0, 1, &chart, &error) == MDL_BAD_SETTINGS);
    REQUIRE(error != nullptr);
    CHECK(std::strstr(error, "expected name=value") != nullptr);
    mdl_free_string(error);
    error = nullptr;
    const mdl_chart_range b{"b", 0.0, 1.0, 3, 0};
    CHECK(mdl_stability_chart(m, a, b, nullptr, 0, 1, &chart, &error) == MDL_BAD_SETTINGS);
    REQUIRE(error != nullptr);
    CHECK(std::strstr(error, "'b'") != nullptr);
    mdl_free_string(error);
    mdl_free(m);
}
