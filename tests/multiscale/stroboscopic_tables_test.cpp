// Reproduction of the inverted-pendulum tables of stroboscopic-averaging (the reproduction settings
// of docs/stroboscopic.md): the fourth-order table (16 entries) with the microstep counts, the
// second-order row at H = pi/25, and (beyond the paper's q) the p table at H = pi/50 and pi/100;
// two significant digits (relative 5%).
#include "docs_output.hpp"
#include "shipped_model.hpp"

#include "reproduce/reproduce_strobo.hpp"
#include "runtime/model.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <iostream>
#include <iterator>
#include <numbers>

using namespace mdl;
using namespace mdl::runtime;
using namespace mdl::runtime::multiscale;
using mdl::test::ShippedModel;

namespace {

constexpr double pi = std::numbers::pi;

void check_rows(const std::vector<StroboRow>& rows) {
    for (const StroboRow& r : rows) {
        INFO(r.table << " H = pi/" << pi / r.H << " eps = 1/" << 1.0 / r.eps << ": paper "
                     << r.paper << ", ours " << r.ours << "; microsteps " << r.microsteps);
        CHECK(r.microsteps == r.paper_microsteps);
        CHECK(r.ours == Approx(r.paper).epsilon(0.05));
    }
}

} // namespace

TEST_CASE("fourth-order differencing: the 16 q entries with the microstep counts",
          "[strobo][table]") {
    ShippedModel k("kapitza_eps.mdl");
    const auto rows = reproduce_stroboscopic_tables(k.model, k.start(), {"q4"},
                                                    {pi / 25, pi / 50, pi / 100, pi / 200});
    REQUIRE(rows.size() == 16);
    check_rows(rows);
    // every count is the paper's: floor(1/H) RK4 steps, 4 F each, 4 periods of 10 * 2^nu
    for (const StroboRow& r : rows) {
        CHECK(r.force_evaluations == 4 * r.microsteps); // micro RK4: 4 evaluations a step
    }
}

TEST_CASE("second-order differencing: the row at H = pi/25 (560 microsteps)", "[strobo][table]") {
    ShippedModel k("kapitza_eps.mdl");
    const auto rows = reproduce_stroboscopic_tables(k.model, k.start(), {"q2"}, {pi / 25});
    REQUIRE(rows.size() == 4);
    check_rows(rows);
}

TEST_CASE("fourth-order differencing: the p table at H = pi/50 and pi/100", "[strobo][table]") {
    ShippedModel k("kapitza_eps.mdl");
    const auto rows =
        reproduce_stroboscopic_tables(k.model, k.start(), {"p4"}, {pi / 50, pi / 100});
    REQUIRE(rows.size() == 8);
    check_rows(rows);
}

TEST_CASE("the cost at fixed H does not depend on eps; eps = 1e-9 stays accurate",
          "[strobo][eps]") {
    ShippedModel k("kapitza_eps.mdl");
    for (const double H : {pi / 50, pi / 100}) {
        // the same work for every eps: h and the windows are proportional to eps
        std::vector<std::size_t> evaluations;
        for (const double eps : {1.0 / 400, 1.0 / 3200}) {
            const GridSolution ref = oscillatory_reference(k.model, k.start(), eps, H);
            evaluations.push_back(
                stroboscopic_error(k.model, k.start(), 4, H, eps, ref).stats.force_evaluations);
        }
        // eps = 1e-9 (6e7 periods over T = 1): against the eps -> 0 limit of the stroboscopic
        // samples (an independent averaged computation); the error is the macro RK4's O(H^4),
        // which the paper's 1/3200 column shows (its eps^4 part is below 1e-6)
        const StroboRow tiny = tiny_eps_row(k.model, k.start(), H, 1e-9);
        evaluations.push_back(tiny.force_evaluations);
        INFO("H = pi/" << pi / H << ": eps = 1e-9 error " << tiny.ours << ", paper (1/3200) "
                       << tiny.paper << "; force evaluations " << evaluations[0] << ", "
                       << evaluations[1] << ", " << evaluations[2]);
        CHECK(evaluations[0] == evaluations[1]);
        CHECK(evaluations[2] == evaluations[0]);
        CHECK(tiny.microsteps == tiny.paper_microsteps);
        CHECK(tiny.ours == Approx(tiny.paper).epsilon(0.05));
    }
}

TEST_CASE("the oscillatory reference is converged", "[strobo][reference]") {
    // the tables' smallest entry is 3.45e-5: the reference must be far more accurate
    ShippedModel k("kapitza_eps.mdl");
    const GridSolution a =
        oscillatory_reference(k.model, k.start(), 1.0 / 3200, pi / 200, 1.0, 1e-13);
    const GridSolution b =
        oscillatory_reference(k.model, k.start(), 1.0 / 3200, pi / 200, 1.0, 1e-11);
    REQUIRE(a.q.size() == 64);
    double dq = 0.0, dp = 0.0;
    for (std::size_t i = 0; i < a.q.size(); ++i) {
        dq = std::max(dq, std::abs(a.q[i] - b.q[i]));
        dp = std::max(dp, std::abs(a.p[i] - b.p[i]));
    }
    INFO("rtol 1e-11 vs 1e-13: max |dq| = " << dq << ", max |dp| = " << dp);
    CHECK(dq < 5e-9);
    CHECK(dp < 1e-7);
}

// Regenerates the tables of docs/stroboscopic.md, between its <!-- tables:begin --> and
// <!-- tables:end --> markers (hidden: run with "[.docs]"; scripts/regenerate-docs).
TEST_CASE("generate the tables of docs/stroboscopic.md", "[.docs]") {
    ShippedModel k("kapitza_eps.mdl");
    auto rows = reproduce_stroboscopic_tables(k.model, k.start(), {"q4", "p4", "q2"});
    std::string tables = stroboscopic_markdown(rows);
    std::vector<StroboRow> tiny;
    for (const double H : {pi / 25, pi / 50, pi / 100, pi / 200}) {
        tiny.push_back(tiny_eps_row(k.model, k.start(), H, 1e-9));
    }
    tables += stroboscopic_markdown(tiny);
    std::ifstream in(std::string(MDL_SOURCE_DIR) + "/docs/stroboscopic.md");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string begin = "<!-- tables:begin -->\n", end = "<!-- tables:end -->";
    const auto b = text.find(begin), e = text.find(end);
    REQUIRE(b != std::string::npos);
    REQUIRE(e != std::string::npos);
    std::ofstream(test::docs_output_dir() + "stroboscopic.md")
        << text.substr(0, b + begin.size()) << tables << text.substr(e);
}
