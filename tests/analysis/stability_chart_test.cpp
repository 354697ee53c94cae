// The stability chart driver (runtime/analysis/stability_chart.hpp) on the Mathieu equation,
// with a verdict computed in the test (the monodromy matrix by the test's own RK4, stable when
// max |multiplier| <= 1 + 1e-6): its refined boundaries against the characteristic values of
// Abramowitz & Stegun's Table 20.1 and of Hill's method (tests/support/mathieu_reference.hpp).
// Independent of the library's Floquet code, which tests/api/stability_chart_test.cpp checks.
#include "runtime/analysis/chart_plot.hpp"
#include "runtime/analysis/stability_chart.hpp"

#include "mathieu_reference.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

using namespace mdl::runtime::analysis;

namespace {

// x = a, y = q. RK4's error grows with q (solutions growing as exp(sqrt(2q) t) within the
// period): more steps at q >= 5.
Verdict mathieu_verdict(double a, double q) {
    const double mu = mathieu::max_multiplier(mathieu::monodromy(a, q, q < 5 ? 1000 : 4000));
    return {mu <= 1 + 1e-6 ? Verdict::Kind::stable : Verdict::Kind::unstable, mu, ""};
}

// The distance from a to the nearest characteristic value at q.
double distance_to_curve(double a, double q) {
    double best = std::numeric_limits<double>::infinity();
    for (double c : mathieu::characteristic_values(q, a + 10)) {
        best = std::min(best, std::abs(c - a));
    }
    return best;
}

std::size_t lines(const std::string& text) {
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

} // namespace

TEST_CASE("Mathieu chart: boundaries on the characteristic curves (Hill's method)",
          "[analysis][stability_chart]") {
    // q = 1, 1.5, 2: every band here is wider than the spacing 0.25 in a
    const ChartAxis a{"a", -2.0, 6.0, 33}, q{"q", 1.0, 2.0, 3};
    const StabilityChart chart =
        stability_chart(a, q, mathieu_verdict, {.threads = 2, .tolerance = 1e-8});
    REQUIRE(chart.count(Verdict::Kind::failed) == 0);
    CHECK(chart.tolerance == 1e-8);
    std::size_t along_a = 0;
    for (const BoundaryPoint& p : chart.boundary) {
        CAPTURE(p.x, p.y, p.along_x);
        CHECK(p.converged);
        CHECK(p.width <= 1e-8 * 8.0);
        CHECK(p.stable_multiplier <= 1 + 1e-6);
        CHECK(p.unstable_multiplier > 1 + 1e-6);
        if (p.along_x) {
            ++along_a;
            CHECK(distance_to_curve(p.x, p.y) < 1e-6);
        } else {
            // along q at a fixed a: the characteristic curve through (a, q) passes within the
            // tolerance in q, so within |da/dq| * 1e-8 * 1 in a (|da/dq| < 3 here)
            CHECK(distance_to_curve(p.x, p.y) < 1e-6);
        }
    }
    // at each q, one boundary point per characteristic value in (-2, 6): a0, b1, a1, b2, a2
    for (std::size_t j = 0; j < q.points; ++j) {
        const std::vector<double> values = mathieu::characteristic_values(q.value(j), 6.0);
        std::size_t found = 0;
        for (const BoundaryPoint& p : chart.boundary) {
            found += p.along_x && p.j == j ? 1 : 0;
        }
        CHECK(found == values.size());
        CHECK(values.size() == 5);
    }
    CHECK(along_a == 15);
    // the verdicts on the grid: stable exactly between a0 and b1, a1 and b2, a2 and b3
    for (std::size_t j = 0; j < q.points; ++j) {
        const std::vector<double> v = mathieu::characteristic_values(q.value(j), 20.0);
        for (std::size_t i = 0; i < a.points; ++i) {
            const double x = a.value(i);
            const bool inside =
                (x > v[0] && x < v[1]) || (x > v[2] && x < v[3]) || (x > v[4] && x < v[5]);
            CHECK((chart.at(i, j).kind == Verdict::Kind::stable) == inside);
        }
    }
}

namespace {

// The boundary found at q near `value` (a chart of 3 x 2 points around it, spacing 1e-4 in a:
// the narrow bands at q = 10 are 4.3e-4 wide), or NaN.
double boundary_near(double value, double q) {
    const ChartAxis a{"a", value - 1.3e-4, value + 0.7e-4, 3}, qs{"q", q, q + 0.1, 2};
    const StabilityChart chart =
        stability_chart(a, qs, mathieu_verdict, {.tolerance = 1e-3}); // 2e-7 in a
    for (const BoundaryPoint& p : chart.boundary) {
        if (p.along_x && p.j == 0 && p.converged) {
            return p.x;
        }
    }
    return std::nan("");
}

} // namespace

TEST_CASE("Mathieu chart: boundaries against Abramowitz & Stegun (Table 20.1, series 20.2.25)",
          "[analysis][stability_chart]") {
    for (const mathieu::TabulatedValues& row : mathieu::abramowitz_stegun_20_1) {
        for (double value : row.values) {
            if (!std::isnan(value)) {
                CAPTURE(row.q, value);
                CHECK(std::abs(boundary_near(value, row.q) - value) < 1e-6);
                CHECK(distance_to_curve(value, row.q) < 1e-8); // the two references agree
            }
        }
    }
    for (double value : mathieu::power_series(0.2)) {
        CAPTURE(value);
        CHECK(std::abs(boundary_near(value, 0.2) - value) < 1e-6);
    }
}

TEST_CASE("stability chart: threads, log axes, failures, stopping and bad input",
          "[analysis][stability_chart]") {
    // a stable disc x^2 + y^2 < 1 with a failing corner
    auto disc = [](double x, double y) {
        if (x > 1.4 && y > 1.4) {
            throw std::runtime_error("no periodic solution here");
        }
        const double r = std::hypot(x, y);
        return Verdict{r < 1 ? Verdict::Kind::stable : Verdict::Kind::unstable, r, ""};
    };
    const ChartAxis x{"x", -1.5, 1.5, 13}, y{"y", -1.5, 1.5, 11};
    const StabilityChart one = stability_chart(x, y, disc, {.threads = 1});
    const StabilityChart three = stability_chart(x, y, disc, {.threads = 3});
    REQUIRE(one.boundary.size() == three.boundary.size());
    for (std::size_t k = 0; k < one.boundary.size(); ++k) {
        CHECK(one.boundary[k].x == three.boundary[k].x);
        CHECK(one.boundary[k].y == three.boundary[k].y);
        CHECK(std::abs(std::hypot(one.boundary[k].x, one.boundary[k].y) - 1) < 3 * 1e-6 * 3.0);
    }
    CHECK(one.evaluations == three.evaluations);
    CHECK(one.count(Verdict::Kind::failed) == 1);
    CHECK(one.at(12, 10).message == "no periodic solution here");

    std::ostringstream grid, boundary;
    write_grid_csv(grid, one);
    write_boundary_csv(boundary, one);
    CHECK(grid.str().rfind("x,y,verdict,max_multiplier,message\n", 0) == 0);
    CHECK(lines(grid.str()) == 1 + 13 * 11);
    CHECK(grid.str().find("1.5,1.5,failed,nan,no periodic solution here\n") != std::string::npos);
    CHECK(lines(boundary.str()) == 1 + one.boundary.size());
    const std::string svg = stability_chart_svg(one, {.title = "disc"});
    CHECK(svg.rfind("<svg", 0) == 0);
    CHECK(svg.find("</svg>") != std::string::npos);
    CHECK(svg.find("<polygon") != std::string::npos);
    CHECK(svg.find("<line") != std::string::npos);
    CHECK(svg.find("not computed") != std::string::npos);

    // a logarithmic axis: points and bisection in log10 of the value
    const ChartAxis w{"omega", 1.0, 1000.0, 4, true};
    CHECK(w.value(1) == Approx(10.0));
    CHECK(w.value(2) == Approx(100.0));
    const StabilityChart logarithmic = stability_chart(w, y, [](double omega, double) {
        return Verdict{omega > 42.0 ? Verdict::Kind::stable : Verdict::Kind::unstable, 1, ""};
    });
    REQUIRE(logarithmic.boundary.size() == y.points);
    CHECK(std::abs(std::log10(logarithmic.boundary[0].x / 42.0)) <= 1e-6 * 3);

    // stopping after 20 evaluations: the rest are failed "stopped", nothing refined
    std::atomic<std::size_t> calls{0};
    const StabilityChart stopped = stability_chart(
        x, y, disc, {.threads = 2, .progress = [&](std::size_t done, std::size_t planned) {
                         ++calls;
                         CHECK(planned == 13 * 11);
                         return done < 20;
                     }});
    CHECK(stopped.stopped);
    CHECK(stopped.boundary.empty());
    CHECK(stopped.count(Verdict::Kind::failed) >= 13 * 11 - 21);

    CHECK_THROWS_WITH(stability_chart({"x", 0, 1, 1}, y, disc),
                      "parameter 'x': a chart needs at least 2 points along each parameter");
    CHECK_THROWS_WITH(stability_chart({"w", -1, 1, 3, true}, y, disc),
                      "parameter 'w': a logarithmic range needs positive bounds");
    CHECK_THROWS_AS(stability_chart(x, x, disc), std::invalid_argument);
    CHECK_THROWS_AS(stability_chart(x, y, disc, {.tolerance = 0}), std::invalid_argument);
}
