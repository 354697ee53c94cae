// Consistent initialization (runtime/consistent_start.hpp): start positions projected onto
// g(q) = 0 with the smallest mass-weighted change and velocities onto G v = 0, against the
// projections computed by hand for a pendulum; `fixed = true` start values kept; the errors
// naming the constraints that cannot be met and the redundant ones.
#include "mdl/compiled_model.hpp"
#include "runtime/consistent_start.hpp"
#include "shipped_model.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

using namespace mdl;
using Catch::Detail::Approx;

namespace {

// A bob on a rod of length 1 from the origin, released off the rod circle.
std::string pendulum(const std::string& x, const std::string& y, const std::string& extra = "") {
    return "model Bob\n  body b(m = 2, x(start = 0.6" + x + "), y(start = 0.6" + y +
           "), vx(start = 1), vy(start = 1));\n  constraint rod: b.x^2 + b.y^2 = 1;\n" + extra +
           "end Bob;\n";
}

runtime::State start_of(const test::LoadedModel& m) {
    runtime::State s = m.model.zero_state(0.0);
    const auto q = m.compiled.start_positions(), v = m.compiled.start_velocities();
    for (std::size_t i = 0; i < q.size(); ++i) {
        s.q[static_cast<Eigen::Index>(i)] = q[i];
        s.v[static_cast<Eigen::Index>(i)] = v[i];
    }
    return s;
}

} // namespace

TEST_CASE("consistent start: the nearest point of the rod circle, the tangent velocity") {
    test::LoadedModel m(compile(pendulum("", "")));
    runtime::State s = start_of(m);
    const runtime::ConsistentStart c =
        runtime::make_start_consistent(m.model, s, m.compiled.start_fixed());
    // equal masses: the nearest point of the circle to (0.6, 0.6) is (1, 1)/sqrt(2); the
    // velocity (1, 1) is radial there, so its tangential part is 0
    CHECK(s.q[0] == Approx(std::sqrt(0.5)).epsilon(1e-14));
    CHECK(s.q[1] == Approx(std::sqrt(0.5)).epsilon(1e-14));
    CHECK(s.v[0] == Approx(0).margin(1e-14));
    CHECK(s.v[1] == Approx(0).margin(1e-14));
    REQUIRE(c.changes.size() == 4);
    CHECK(c.changes[0].name == "b.x");
    CHECK(c.changes[0].from == 0.6);
    CHECK(c.newton_iterations > 0);
    CHECK(c.residual < 1e-12);
    CHECK(c.lines()[0].rfind("consistent start: changed 'b.x' from 0.6 to 0.7071067811865", 0) ==
          0);
    // already consistent: nothing changes, not even by round-off
    runtime::State again = s;
    CHECK(runtime::make_start_consistent(m.model, again, m.compiled.start_fixed()).changes.empty());
    CHECK(again.q == s.q);
}

TEST_CASE("consistent start: a value marked fixed = true is kept") {
    test::LoadedModel m(compile(pendulum(", fixed = true", "")));
    runtime::State s = start_of(m);
    const auto c = runtime::make_start_consistent(m.model, s, m.compiled.start_fixed());
    CHECK(s.q[0] == 0.6);
    CHECK(s.q[1] == Approx(0.8).epsilon(1e-14));
    // velocities: b.x is fixed, so its velocity is kept too and vy = -x vx / y
    CHECK(s.v[0] == 1.0);
    CHECK(s.v[1] == Approx(-0.6 / 0.8).epsilon(1e-13));
    CHECK(c.changes.size() == 2);
}

TEST_CASE("consistent start: constraints that cannot be met are named") {
    // both coordinates fixed off the circle
    test::LoadedModel m(compile(pendulum(", fixed = true", ", fixed = true")));
    runtime::State s = start_of(m);
    try {
        runtime::make_start_consistent(m.model, s, m.compiled.start_fixed());
        FAIL("no error");
    } catch (const runtime::InconsistentStart& e) {
        CHECK(e.redundant() == std::vector<int>{0});
        CHECK(std::string(e.what()).find("'rod'") != std::string::npos);
        CHECK(std::string(e.what()).find("fixed = true") != std::string::npos);
    }
    // a constraint whose circle the bob cannot reach: x^2 + y^2 = -1
    test::LoadedModel never(
        compile("model Bob\n  body b(m = 2, x(start = 0.6), y(start = 0.6));\n"
                "  constraint rod: b.x^2 + b.y^2 = 1;\n  constraint wall: b.x = 2;\nend Bob;\n"));
    runtime::State t = start_of(never);
    try {
        runtime::make_start_consistent(never.model, t, never.compiled.start_fixed());
        FAIL("no error");
    } catch (const runtime::InconsistentStart& e) {
        CHECK_FALSE(e.unmet().empty());
        CHECK(std::string(e.what()).find("cannot be met") != std::string::npos);
        CHECK(std::string(e.what()).find("'rod'") != std::string::npos);
    }
}

TEST_CASE("consistent start: structurally redundant constraints are named") {
    test::LoadedModel m(compile(pendulum("", "", "  constraint again: 2*b.x^2 + 2*b.y^2 = 2;\n")));
    runtime::State s = start_of(m);
    try {
        runtime::make_start_consistent(m.model, s, m.compiled.start_fixed());
        FAIL("no error");
    } catch (const runtime::InconsistentStart& e) {
        CHECK(e.redundant().size() == 1);
        CHECK(std::string(e.what()).find("depends on the others") != std::string::npos);
    }
}

TEST_CASE("consistent start: the shipped slider-crank and four-bar start on their loops") {
    for (const char* file : {"slider_crank.mdl", "four_bar.mdl"}) {
        test::ShippedModel m(file);
        runtime::State s = start_of(m);
        const auto c = runtime::make_start_consistent(m.model, s, m.compiled.start_fixed());
        CHECK_FALSE(c.changes.empty()); // their rough start values were moved
        runtime::Vector g(m.model.constraints());
        m.model.constraint(s.q, g);
        CHECK(g.lpNorm<Eigen::Infinity>() < 1e-12);
        runtime::Matrix G(m.model.constraints(), m.model.positions());
        m.model.constraint_jacobian(s.q, G);
        CHECK((G * s.v).lpNorm<Eigen::Infinity>() < 1e-12);
        for (const auto& change : c.changes) {
            CHECK(change.name != "crank.phi"); // fixed = true
        }
    }
}

TEST_CASE("consistent start: the error shows each constraint's source line with a caret") {
    // As `mdl run` reports it (compiler/api/runtime_view): the first constraint named as the
    // error, the others as notes, each with its line and a caret under the declaration's name.
    // Here the wall is met and the rod, a circle the bob on the wall cannot reach, is not.
    const auto compiled =
        compile("model Bob\n  body b(m = 2, x(start = 0.6), y(start = 0.6));\n"
                "  constraint rod: b.x^2 + b.y^2 = 1;\n  constraint wall: b.x = 2;\nend Bob;\n",
                "bob.mdl");
    const auto model = runtime_model(compiled);
    try {
        (void)initial_state(compiled, model, 0.0);
        FAIL("no error");
    } catch (const CompileError& e) {
        const std::string report = e.what();
        INFO(report);
        CHECK(report.find("bob.mdl:3:14: error: inconsistent start: the constraint") == 0);
        CHECK(report.find("\n  constraint rod: b.x^2 + b.y^2 = 1;\n             ^~~\n") !=
              std::string::npos);
    }
}

TEST_CASE("consistent start: unequal masses move in inverse proportion (the centre of mass and the "
          "momentum kept)") {
    // Two bodies on a rod of length 1 along x, started 0.4 too far apart, b1 moving. The
    // smallest change in |dq|_M with M = diag(1, 1, 3, 3) subject to x2 - x1 = 1 moves x1 by
    // m2 0.4 / (m1 + m2) = 0.3 and x2 by -m1 0.4 / (m1 + m2) = -0.1 (the centre of mass stays at
    // 1.05); the velocities' M-orthogonal projection onto vx2 = vx1 keeps the momentum:
    // both (m1 * 1 + m2 * 0) / (m1 + m2) = 0.25. The y coordinates are not constrained: kept.
    test::LoadedModel m(compile("model Rod\n"
                                "  body b1(m = 1, x(start = 0), y(start = 0), vx(start = 1));\n"
                                "  body b2(m = 3, x(start = 1.4), y(start = 0.5));\n"
                                "  constraint rod: b2.x - b1.x = 1;\nend Rod;\n"));
    runtime::State s = start_of(m);
    runtime::make_start_consistent(m.model, s, m.compiled.start_fixed());
    const auto names = m.compiled.position_names();
    const auto at = [&](const std::string& name) {
        return static_cast<Eigen::Index>(std::find(names.begin(), names.end(), name) -
                                         names.begin());
    };
    CHECK(s.q[at("b1.x")] == Approx(0.3).epsilon(1e-14));
    CHECK(s.q[at("b2.x")] == Approx(1.3).epsilon(1e-14));
    CHECK(s.q[at("b1.y")] == 0.0);
    CHECK(s.q[at("b2.y")] == 0.5);
    CHECK(s.v[at("b1.x")] == Approx(0.25).epsilon(1e-14));
    CHECK(s.v[at("b2.x")] == Approx(0.25).epsilon(1e-14));
}

TEST_CASE("consistent start: a coupled mass matrix weighs by its diagonal at the start") {
    // T = 3/2 a'^2 + a' b' + 1/2 b'^2: M = [[3, 1], [1, 1]], W = diag(M) = diag(3, 1)
    // (runtime/consistent_start.hpp). With g = a + b - 1 and a = 0.2, b = 0.4:
    // dq = W^-1 G^T y with y = 0.4 / (1/3 + 1) = 0.3, so a = 0.3, b = 0.7 (the full M would give
    // a = 0.2, b = 0.8). Velocities (a', b') = (1, 0): v - W^-1 G^T (G W^-1 G^T)^-1 G v
    // = (1, 0) - (1/3, 1) * 3/4 = (0.75, -0.75).
    test::LoadedModel m(compile("model Coupled\n"
                                "  coordinate a(start = 0.2, vstart = 1);\n"
                                "  coordinate b(start = 0.4);\n"
                                "  kinetic T = 3/2*der(a)^2 + der(a)*der(b) + 1/2*der(b)^2;\n"
                                "  constraint c: a + b = 1;\nend Coupled;\n"));
    runtime::State s = start_of(m);
    runtime::make_start_consistent(m.model, s, m.compiled.start_fixed());
    CHECK(s.q[0] == Approx(0.3).epsilon(1e-14));
    CHECK(s.q[1] == Approx(0.7).epsilon(1e-14));
    CHECK(s.v[0] == Approx(0.75).epsilon(1e-14));
    CHECK(s.v[1] == Approx(-0.75).epsilon(1e-14));
}
