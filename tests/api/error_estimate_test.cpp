// The multiscale runs' error estimates and tolerance control (SimulationStatistics::
// error_estimate, docs/methods.md "Error estimates") on the two cases of issue 31, each against
// a reference solved separately here: classical RK4 on the oscillatory equations in minimal
// coordinates, resolving the vibration (400 steps a fast period).
//
// (a) A vibrated inverted pendulum written with a rod (a point mass on a constraint): strobo's
//     herk3 micro-integrator at the default 10 steps a period misses the period map by 0.03 rad;
//     the estimate must see it (fixed settings: a warning), and the control must raise the micro
//     resolution until the run meets its tolerance (default settings).
// (b) The inverted double pendulum in joint angles (a configuration-dependent mass matrix M(q))
//     with hmm: whatever HMM's error there, the estimate must not accept a run that is off by
//     more than three times its estimate.
#include "classical_rk4.hpp"
#include "mdl/compiled_model.hpp"
#include "mdl/simulate.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <fstream>
#include <numbers>
#include <stdexcept>
#include <string>

namespace {

constexpr double omega = 1e4, l = 0.2, g = 9.8, vmax = 4.0;
// 1592 whole fast periods: strobo's last output is then a stroboscopic time, where it
// approximates the true solution (not the averaged one)
const double t_end = 1592 * 2.0 * std::numbers::pi / omega;

// q'' = (g + a(t))/l sin q, a = vmax omega cos(omega t), q(0) = 0.5, q'(0) = 0: the rod
// pendulum below in its angle from the upward vertical, by RK4 with 400 steps a fast period.
double pendulum_angle(double t1) {
    const auto rate = [](double t, const std::array<double, 2>& y) {
        return std::array<double, 2>{y[1],
                                     (g + vmax * omega * std::cos(omega * t)) / l * std::sin(y[0])};
    };
    const auto steps = static_cast<long>(std::ceil(t1 * omega / (2.0 * std::numbers::pi) * 400.0));
    return mdl::test::classical_rk4(rate, std::array<double, 2>{0.5, 0.0},
                                    t1 / static_cast<double>(steps), steps)[0];
}

const char* const rod_pendulum = R"(
model RodPendulum "vibrated inverted pendulum: a point mass on a rigid rod"
  parameter Real m = 0.1;
  parameter Real l = 0.2;
  parameter Real g = 9.8;
  parameter Real vmax = 4;
  parameter Real omega = 1e4;
  parameter Real q0 = 0.5;
  vibration a(theta = omega*time) = vmax*omega*cos(theta);
  body b(m = m, x(start = l*sin(q0)), y(start = l*cos(q0)));
  potential U = m*b.y*(g + a);
  constraint rod: b.x^2 + b.y^2 = l^2;
end RodPendulum;
)";

// The double pendulum of models/double_pendulum_angles.mdl in its joint angles: M(q) q'' =
// f(q, q', t) solved by Cramer's rule, RK4 with 400 steps a fast period; q1 at t1.
double double_pendulum_q1(double t1) {
    constexpr double m1 = 0.01, m2 = 0.005, l1 = 0.2, l2 = 0.1;
    using Y = std::array<double, 4>; // q1, q2, v1, v2
    const auto rate = [&](double t, const Y& y) {
        const double G = g + vmax * omega * std::cos(omega * t);
        const double c = std::cos(y[0] - y[1]), s = std::sin(y[0] - y[1]);
        const double a11 = (m1 + m2) * l1 * l1, a12 = m2 * l1 * l2 * c, a22 = m2 * l2 * l2;
        const double f1 = (m1 + m2) * l1 * std::sin(y[0]) * G - m2 * l1 * l2 * s * y[3] * y[3];
        const double f2 = m2 * l2 * std::sin(y[1]) * G + m2 * l1 * l2 * s * y[2] * y[2];
        const double det = a11 * a22 - a12 * a12;
        return Y{y[2], y[3], (f1 * a22 - a12 * f2) / det, (a11 * f2 - a12 * f1) / det};
    };
    const auto steps = static_cast<long>(std::ceil(t1 * omega / (2.0 * std::numbers::pi) * 400.0));
    return mdl::test::classical_rk4(rate, Y{0.5, 0.0, 0.0, 0.0}, t1 / static_cast<double>(steps),
                                    steps)[0];
}

double rod_angle(const mdl::SimulationResult& r) {
    const std::size_t last = r.rows() - 1;
    return std::atan2(r.positions[last * 2], r.positions[last * 2 + 1]); // x, y
}

// The failure a run must stop with (the test fails if it runs to its end).
mdl::NumericalFailure failure_of(const mdl::CompiledModel& model,
                                 const mdl::SimulationSettings& s) {
    try {
        const mdl::SimulationResult r = mdl::simulate(model, s);
        FAIL("ran to t = " << r.t.back() << ": " << r.statistics.summary);
    } catch (const mdl::NumericalFailure& f) {
        return f;
    }
    throw std::logic_error("unreachable: FAIL throws");
}

} // namespace

TEST_CASE("strobo on a pendulum with a rod: the estimate sees the unresolved period map and the "
          "control resolves it",
          "[error_estimate]") {
    const mdl::CompiledModel model = mdl::compile(rod_pendulum, "rod_pendulum.mdl");
    const double reference = pendulum_angle(t_end);
    mdl::SimulationSettings s;
    s.method = "strobo";
    s.stop = t_end;

    SECTION("fixed at the old default, 10 herk3 steps a period: off by 0.03, and it says so") {
        s.micro_steps_per_period = 10;
        s.step = 0.0157;
        const mdl::SimulationResult r = mdl::simulate(model, s);
        REQUIRE(r.statistics.error_estimate);
        const mdl::ErrorEstimate& e = *r.statistics.error_estimate;
        const double error = std::abs(rod_angle(r) - reference);
        INFO(r.statistics.summary << "\ntrue error " << error);
        CHECK(error > 0.02); // the issue's case: 0.031 rad
        CHECK(error <= 3.0 * e.total);
        CHECK(e.dominant == "micro");
        CHECK_FALSE(e.met()); // kept, with a warning (the CLI prints it)
        CHECK(e.remedy.find("--micro-steps-per-period") != std::string::npos);
    }
    SECTION("default settings: the tolerance raises the micro steps and is met") {
        const mdl::SimulationResult r = mdl::simulate(model, s);
        REQUIRE(r.statistics.error_estimate);
        const mdl::ErrorEstimate& e = *r.statistics.error_estimate;
        const double error = std::abs(rod_angle(r) - reference);
        INFO(r.statistics.summary << "\ntrue error " << error);
        CHECK(e.met());
        CHECK(e.runs > 1);
        CHECK(r.statistics.summary.find("micro steps per period 10 -> ") != std::string::npos);
        CHECK(error <= 3.0 * e.total);
        CHECK(error <= e.tolerance);
        // the default tolerance: rtol 1e-3, atol 1e-6 against the largest |q_i| at the outputs
        // (the rod, 0.2, and the fast displacement at outputs between stroboscopic times)
        CHECK(e.tolerance == Approx(1e-6 + 1e-3 * 0.2).epsilon(1e-2));
    }
}

TEST_CASE("hmm on the double pendulum with M(q): no run is accepted off by more than 3 times its "
          "estimate",
          "[error_estimate]") {
    mdl::CompiledModel model =
        mdl::compile_file(std::string(MDL_SOURCE_DIR) + "/models/double_pendulum_angles.mdl");
    const double reference = double_pendulum_q1(1.0);
    mdl::SimulationSettings s;
    s.method = "hmm";
    s.stop = 1.0;
    s.rtol = 1e-3; // the model's annotation Tolerance = 1e-8 is its dopri5 run's
    s.atol = 1e-6;
    for (const double H : {1.0 / 80, 1.0 / 160, 1.0 / 320}) {
        s.step = H;
        try {
            const mdl::SimulationResult r = mdl::simulate(model, s);
            REQUIRE(r.statistics.error_estimate);
            const mdl::ErrorEstimate& e = *r.statistics.error_estimate;
            const std::size_t last = r.rows() - 1;
            const double error = std::abs(r.positions[last * 2] - reference);
            INFO("H = " << H << ": " << r.statistics.summary << "\ntrue error " << error);
            CHECK(error <= 3.0 * e.total);
            if (error > e.tolerance) {
                CHECK_FALSE(e.met());
            }
        } catch (const mdl::NumericalFailure& f) {
            CHECK(std::string(f.what()).find("part dominates") != std::string::npos);
        }
    }
    SECTION("default settings: met, or stopped naming the dominant part") {
        s.step.reset();
        try {
            const mdl::SimulationResult r = mdl::simulate(model, s);
            const mdl::ErrorEstimate& e = *r.statistics.error_estimate;
            const std::size_t last = r.rows() - 1;
            const double error = std::abs(r.positions[last * 2] - reference);
            INFO(r.statistics.summary << "\ntrue error " << error);
            CHECK(e.met());
            CHECK(error <= 3.0 * e.total);
        } catch (const mdl::NumericalFailure& f) {
            INFO(f.what());
            CHECK(f.kind() == "error estimate above the tolerance");
            CHECK(std::string(f.what()).find("part dominates") != std::string::npos);
        }
    }
}

// hmm-shake and hmm-rattle (SHAKE micro steps) on the rod pendulum at t = 1: the default micro
// step (80 a period, the paper's h = (2 pi/omega) H/T_macro) misses the averaged force by
// enough to put the end position 1.6e-3 off, eight times a tolerance of rtol 3e-3 on the rod's
// 0.2. Left free, the control raises the micro steps (then H) until the run meets it; fixed,
// the run keeps them, misses the tolerance and says so. The reference is the RK4 solution of
// the angle's equation above, in Cartesian positions.
TEST_CASE("hmm-shake and hmm-rattle: the control refines the SHAKE micro steps",
          "[error_estimate]") {
    const mdl::CompiledModel model = mdl::compile(rod_pendulum, "rod_pendulum.mdl");
    const double angle = pendulum_angle(1.0);
    const double x = l * std::sin(angle), y = l * std::cos(angle);
    const auto position_error = [&](const mdl::SimulationResult& r) {
        const std::size_t last = r.rows() - 1;
        return std::max(std::abs(r.positions[last * 2] - x),
                        std::abs(r.positions[last * 2 + 1] - y));
    };
    for (const char* method : {"hmm-shake", "hmm-rattle"}) {
        mdl::SimulationSettings s;
        s.method = method;
        s.stop = 1.0;
        s.rtol = 3e-3;
        SECTION(std::string(method) + ", default settings: refined, the tolerance met") {
            const mdl::SimulationResult r = mdl::simulate(model, s);
            REQUIRE(r.statistics.error_estimate);
            const mdl::ErrorEstimate& e = *r.statistics.error_estimate;
            const double error = position_error(r);
            INFO(r.statistics.summary << "\ntrue error " << error);
            CHECK(e.met());
            CHECK(e.runs > 1);
            CHECK(r.statistics.summary.find("micro steps per period 80 -> ") != std::string::npos);
            CHECK(error <= e.tolerance);
            CHECK(error <= 3.0 * e.total);
        }
        SECTION(std::string(method) + ", the default micro steps fixed: off, and it says so") {
            s.micro_steps_per_period = 80;
            const mdl::SimulationResult r = mdl::simulate(model, s);
            REQUIRE(r.statistics.error_estimate);
            const mdl::ErrorEstimate& e = *r.statistics.error_estimate;
            const double error = position_error(r);
            INFO(r.statistics.summary << "\ntrue error " << error);
            CHECK(error > e.tolerance);
            CHECK(error <= 3.0 * e.total);
            CHECK_FALSE(e.met()); // kept, with a warning (the CLI prints it)
            CHECK(e.micro > e.tolerance / 4.0);
            CHECK_FALSE(e.remedy.empty());
        }
    }
}

// The window control: hmm with the exponential kernel on the Kapitza pendulum at omega = 1e8,
// where the paper's 40-period window leaves 0.04 of the fast force unfiltered (Calvo &
// Sanz-Serna, SIAM J. Sci. Comput. 32 (2010), Table 2.2). The reference is the averaged
// equation Q'' = (g/l) sin Q - vmax^2/(2 l^2) sin Q cos Q (the O(1/omega) terms are 1e-7 here),
// by RK4 written here; HMM's output is the averaged position.
TEST_CASE("hmm with the exponential kernel: the control widens the window", "[error_estimate]") {
    const mdl::CompiledModel model = mdl::compile(R"(
model Kapitza "inverted pendulum with a vertically vibrating pivot"
  parameter Real l = 0.2;
  parameter Real g = 9.8;
  parameter Real vmax = 4;
  parameter Real omega = 1e8;
  vibration a(theta = omega*time) = vmax*omega*cos(theta);
  coordinate q(start = 0.5, vstart = 0);
equation
  der(der(q)) = (g + a)/l*sin(q);
end Kapitza;
)",
                                                  "kapitza_1e8.mdl");
    const auto rate = [](double, const std::array<double, 2>& y) {
        return std::array<double, 2>{y[1], g / l * std::sin(y[0]) - vmax * vmax / (2.0 * l * l) *
                                                                        std::sin(y[0]) *
                                                                        std::cos(y[0])};
    };
    const double reference =
        mdl::test::classical_rk4(rate, std::array<double, 2>{0.5, 0.0}, 1e-4, 10000)[0];
    mdl::SimulationSettings s;
    s.method = "hmm";
    s.filter = "exp";
    s.stop = 1.0;
    s.rtol = 2e-3; // a tolerance of 1e-3
    SECTION("the window left free: widened, the tolerance met") {
        const mdl::SimulationResult r = mdl::simulate(model, s);
        REQUIRE(r.statistics.error_estimate);
        const mdl::ErrorEstimate& e = *r.statistics.error_estimate;
        const double error = std::abs(r.positions[r.rows() - 1] - reference);
        INFO(r.statistics.summary << "\ntrue error " << error);
        CHECK(e.met());
        CHECK(r.statistics.summary.find("window 40 -> 80 periods") != std::string::npos);
        CHECK(error <= e.tolerance);
    }
    SECTION("the paper's window fixed, the steps fine: the residual is off, and it says so") {
        s.window = 40.0;
        s.step = 1.0 / 320;
        s.micro_steps_per_period = 400;
        const mdl::SimulationResult r = mdl::simulate(model, s);
        REQUIRE(r.statistics.error_estimate);
        const mdl::ErrorEstimate& e = *r.statistics.error_estimate;
        const double error = std::abs(r.positions[r.rows() - 1] - reference);
        INFO(r.statistics.summary << "\ntrue error " << error);
        CHECK(error > e.tolerance);
        CHECK(error <= 3.0 * e.total);
        CHECK_FALSE(e.met());
        CHECK(e.dominant == "averaging");
        CHECK(e.remedy.find("--window") != std::string::npos);
    }
}

// Two unit masses, a soft spring to the origin and a stiff spring of frequency w2 between them
// (models/stiff_springs.mdl), in the plane: y = (x1, y1, x2, y2, their velocities).
std::array<double, 8> stiff_springs_rate(const std::array<double, 8>& y, double w2) {
    const double r1 = std::hypot(y[0], y[1]);
    const double dx = y[0] - y[2], dy = y[1] - y[3], r12 = std::hypot(dx, dy);
    const double f1 = -(r1 - 1.0) / r1, f12 = -w2 * w2 * (r12 - 1.0) / r12;
    return {y[4],      y[5],     y[6], y[7], f1 * y[0] + f12 * dx, f1 * y[1] + f12 * dy,
            -f12 * dx, -f12 * dy};
}

TEST_CASE("hmm-stiff stops when the kernel's residual makes the rk4 macro step unstable",
          "[error_estimate]") {
    // At w2 = 1e7 the exponential kernel over the paper's 20 periods leaves about 1e-9 of the
    // stiff spring's force: a stiffness near (272 1/s)^2 that rk4 with H = 1/32 amplified to
    // positions of 1e85, reported with exit 0 and a "met" estimate (relative to those
    // positions). Now, with the window fixed, it stops at t = 0; left free, the window is
    // widened until the run passes (40 periods to t = 1; 80 to the model's stop time 10), and
    // the run agrees with a direct solution at w2 = 1e5 (the limit w2 -> infinity is reached as
    // 1/w2).
    mdl::CompiledModel model =
        mdl::compile_file(std::string(MDL_SOURCE_DIR) + "/models/stiff_springs.mdl");
    model.set_parameter("w2", 1e7);
    mdl::SimulationSettings s;
    s.stop = 1.0;
    SECTION("the paper's window fixed: stopped, naming the remedy") {
        s.window = 20.0;
        const mdl::NumericalFailure f = failure_of(model, s);
        INFO(f.what());
        CHECK(f.kind() == "fast force not filtered out");
        CHECK(f.time() == 0.0);
        CHECK(std::string(f.what()).find("--window 40") != std::string::npos);
    }
    SECTION("the window left free: widened, the limit motion") {
        const mdl::SimulationResult r = mdl::simulate(model, s);
        CHECK(r.statistics.summary.find(
                  "window 20 -> 40 periods (fast force not filtered out at t = 0)") !=
              std::string::npos);
        const double w2 = 1e5;
        const auto reference = mdl::test::classical_rk4(
            [&](double, const std::array<double, 8>& y) { return stiff_springs_rate(y, w2); },
            std::array<double, 8>{1.0, 0.0, 2.0 + 1.0 / w2, 0.0, 0.5, -0.5, -0.5, 0.5}, 1e-6,
            1000000);
        const std::size_t last = (r.rows() - 1) * r.layout.positions;
        double error = 0.0;
        for (std::size_t j = 0; j < 4; ++j) {
            error = std::max(error, std::abs(r.positions[last + j] - reference[j]));
        }
        INFO(r.statistics.summary << "\nerror against the direct run at w2 = 1e5: " << error);
        CHECK(error < 3e-5); // the limit reached to O(1/w2) = 1e-5 (measured 7e-6)
    }
}

// A shipped model's source without its annotation (its method and steps), so that a test's
// settings and the tolerance control choose them.
std::string without_annotation(const std::string& name) {
    std::ifstream file(std::string(MDL_SOURCE_DIR) + "/models/" + name);
    std::string source, line;
    while (std::getline(file, line)) {
        if (line.find("annotation(experiment") == std::string::npos) {
            source += line + "\n";
        }
    }
    return source;
}

TEST_CASE("strobo on the Cartesian double pendulum: a run whose projection fails is repeated "
          "with a smaller macro step",
          "[error_estimate]") {
    // models/double_pendulum.mdl without its annotation (hmm-shake, H = 1/80), so that strobo
    // chooses its steps: the default rk4 macro step 2 pi/100 puts the stages so far off the
    // rods that the projection's Newton iteration fails at t = 0, which stopped every
    // controlled run (issue 31). Reference: the same pendulum in its joint angles, by RK4.
    const mdl::CompiledModel model =
        mdl::compile(without_annotation("double_pendulum.mdl"), "double_pendulum.mdl");
    mdl::SimulationSettings s;
    s.method = "strobo";
    s.stop = t_end; // a stroboscopic time
    const mdl::SimulationResult r = mdl::simulate(model, s);
    REQUIRE(r.statistics.error_estimate);
    const mdl::ErrorEstimate& e = *r.statistics.error_estimate;
    const std::size_t last = (r.rows() - 1) * r.layout.positions;
    const double q1 = std::atan2(r.positions[last], r.positions[last + 1]); // b1.x, b1.y
    const double error = std::abs(q1 - double_pendulum_q1(t_end));
    INFO(r.statistics.summary << "\ntrue error in q1 " << error);
    CHECK(r.statistics.summary.find("(iteration did not converge at t = 0)") != std::string::npos);
    CHECK(e.met());
    CHECK(error * 0.2 <= e.tolerance); // the angle's error as a distance on rod 1
    CHECK(error * 0.2 <= 3.0 * e.total);
}

TEST_CASE("hmm-shake at omega 1e6: a micro part that grows when refined is named, with why",
          "[error_estimate]") {
    // The Cartesian double pendulum at omega = 1e6: refining the SHAKE micro steps lowers the
    // micro part (80 -> 1015 a period) and then raises it (-> 7789): the constraints' round-off
    // over h^2 outweighs the truncation error. The run stops saying so and names strobo, not
    // "the method does not converge" under a macro remedy alone.
    mdl::CompiledModel model =
        mdl::compile(without_annotation("double_pendulum.mdl"), "double_pendulum.mdl");
    model.set_parameter("omega", 1e6);
    mdl::SimulationSettings s;
    s.method = "hmm-shake";
    s.stop = 1.0;
    const mdl::NumericalFailure f = failure_of(model, s);
    const std::string what = f.what();
    INFO(what);
    CHECK(f.kind() == "error estimate above the tolerance");
    CHECK(what.find("its micro part did not decrease") != std::string::npos);
    CHECK(what.find("round-off") != std::string::npos);
    CHECK(what.find("use strobo") != std::string::npos);
}

TEST_CASE("hmm-stiff on an elastic pendulum: the drift off the slow manifold is re-projected",
          "[error_estimate]") {
    // A mass hung from an anchor on a fast spring (omega = 3e4) under gravity, released at rest
    // 37 degrees from the vertical. The underlying equations of the limit do not hold the
    // spring's length (Sanz-Serna, Ariel & Tsai, Sect. 2), and here the drift off it grew as
    // e^(11 t): with the paper's method (no re-projection) the length reached 1.0175 at t = 1
    // and 2e5 at t = 2, with exit 0. By default the drift is checked every 4 macro steps and
    // the state re-projected. Reference: the rigid pendulum (the limit omega -> infinity; the
    // spring stretches by g/omega^2 = 1e-8), by RK4 in its angle.
    const mdl::CompiledModel model = mdl::compile(R"(
model ElasticPendulum
  parameter Real m = 1;
  parameter Real g = 9.81;
  parameter Real w = 3e4;
  anchor O(x = 0, y = 0);
  body b(m = m, x(start = 0.6), y(start = -0.8));
  spring s(O, b, k = m*w^2, length = 1) fast;
  potential U = m*g*b.y;
end ElasticPendulum;
)",
                                                  "elastic_pendulum.mdl");
    constexpr double t1 = 2.0;
    const auto angle = mdl::test::classical_rk4(
        [](double, const std::array<double, 2>& y) {
            return std::array<double, 2>{y[1], -9.81 * std::sin(y[0])};
        },
        std::array<double, 2>{std::atan2(0.6, 0.8), 0.0}, 1e-4, 20000);
    const double x = std::sin(angle[0]), y = -std::cos(angle[0]);
    const auto error_of = [&](const mdl::SimulationResult& r) {
        const std::size_t last = (r.rows() - 1) * r.layout.positions;
        return std::max(std::abs(r.positions[last] - x), std::abs(r.positions[last + 1] - y));
    };
    mdl::SimulationSettings s;
    s.method = "hmm-stiff";
    s.stop = t1;
    for (const std::string macro : {"rk4", "dopri5"}) {
        s.macro = macro;
        const mdl::SimulationResult r = mdl::simulate(model, s);
        REQUIRE(r.statistics.error_estimate);
        const mdl::ErrorEstimate& e = *r.statistics.error_estimate;
        const double error = error_of(r);
        INFO(macro << ": " << r.statistics.summary << "\nerror against the rigid pendulum "
                   << error);
        CHECK(e.met());
        CHECK(error < 1e-5);     // measured 1.6e-6 (rk4), 3.7e-6 (dopri5)
        CHECK(error <= e.total); // the estimate covers it (3.8e-4, 4.4e-4)
        CHECK(r.statistics.summary.find("largest drift") != std::string::npos);
    }
    SECTION("the paper's method, no re-projection: the estimate sees the drift") {
        s.macro = "rk4";
        s.reproject_every = 0.0;
        const mdl::SimulationResult r = mdl::simulate(model, s);
        REQUIRE(r.statistics.error_estimate);
        INFO(r.statistics.summary);
        CHECK(error_of(r) > 1.0);                        // the length grew to 2e5
        CHECK(r.statistics.error_estimate->total > 1.0); // and the estimate says so
    }
}

TEST_CASE("hmm-stiff on an elastic double pendulum: a run that collapses off the slow manifold "
          "is repeated with a smaller step",
          "[error_estimate]") {
    // Two masses (1 and 0.5) hung from an anchor by two fast springs (omega = 2e4 both) under
    // gravity, released at rest with the first arm 37 degrees from the vertical and the second
    // horizontal. With rk4 and H = 1/32 the state left the slow manifold within one step near
    // t = 0.5 (the drift check found it 87 off): with the step fixed the run stops there; with
    // the defaults it is repeated with smaller steps. Reference: the stiff system itself by
    // RK4 with h = 1e-6 (omega h = 0.02), written here.
    const mdl::CompiledModel model = mdl::compile(R"(
model ElasticDouble
  parameter Real g = 9.81;
  parameter Real w = 2e4;
  anchor O(x = 0, y = 0);
  body a(m = 1, x(start = 0.6), y(start = -0.8));
  body b(m = 0.5, x(start = 1.6), y(start = -0.8));
  spring s1(O, a, k = 1*w^2, length = 1) fast;
  spring s2(a, b, k = 0.5*w^2, length = 1) fast;
  potential U = 1*g*a.y + 0.5*g*b.y;
end ElasticDouble;
)",
                                                  "elastic_double.mdl");
    using Y = std::array<double, 8>; // xa, ya, xb, yb, then their velocities
    constexpr double w = 2e4, g = 9.81;
    const auto rate = [&](double, const Y& s) {
        const double r1 = std::hypot(s[0], s[1]);
        const double dx = s[2] - s[0], dy = s[3] - s[1], r2 = std::hypot(dx, dy);
        const double f1 = w * w * (r1 - 1.0) / r1;       // spring 1's tension over r1 (k = w^2)
        const double f2 = 0.5 * w * w * (r2 - 1.0) / r2; // spring 2's (k = 0.5 w^2)
        return Y{s[4],
                 s[5],
                 s[6],
                 s[7],
                 -f1 * s[0] + f2 * dx,
                 -f1 * s[1] + f2 * dy - g,
                 -f2 * dx / 0.5,
                 -f2 * dy / 0.5 - g};
    };
    const Y reference =
        mdl::test::classical_rk4(rate, Y{0.6, -0.8, 1.6, -0.8, 0, 0, 0, 0}, 1e-6, 1000000);
    mdl::SimulationSettings s;
    s.method = "hmm-stiff";
    s.stop = 1.0;
    SECTION("the step fixed: stopped where it collapsed") {
        s.step = 1.0 / 32;
        const mdl::NumericalFailure f = failure_of(model, s);
        INFO(f.what());
        CHECK(f.kind() == "drifted off the slow manifold");
        CHECK(f.time() == Approx(0.5));
        CHECK(std::string(f.what()).find("use a smaller --step") != std::string::npos);
    }
    SECTION("the defaults: smaller steps, the stiff system's motion") {
        const mdl::SimulationResult r = mdl::simulate(model, s);
        REQUIRE(r.statistics.error_estimate);
        const mdl::ErrorEstimate& e = *r.statistics.error_estimate;
        const std::size_t last = (r.rows() - 1) * r.layout.positions;
        double error = 0.0;
        for (std::size_t j = 0; j < 4; ++j) {
            error = std::max(error, std::abs(r.positions[last + j] - reference[j]));
        }
        INFO(r.statistics.summary << "\nerror against the direct RK4 solution " << error);
        CHECK(r.statistics.summary.find("(drifted off the slow manifold at t = 0.5)") !=
              std::string::npos);
        CHECK(e.met());
        CHECK(error <= 3.0 * e.total); // measured 2.8e-4 against an estimate of 7.8e-4
        CHECK(error < e.tolerance);
    }
}

TEST_CASE("hmm-stiff: a run that collapses after its last drift check stops at its end",
          "[error_estimate]") {
    // models/pendulum_chain.mdl (three rods) relaxed into stiff springs of omega = 1000, with
    // eight rk4 steps of 1/8 to t = 1: the chain collapsed after the check at t = 0.5, its
    // positions reached 2e5, and the run reported an estimate of 0.25 "met" against a
    // tolerance scaled by those positions (220), with exit 0. The last state is checked too.
    mdl::SimulationSettings s;
    s.method = "hmm-stiff";
    s.relax_constraints = 1000.0;
    s.stop = 1.0;
    s.step = 0.125;
    const mdl::CompiledModel model = mdl::compile_file(
        std::string(MDL_SOURCE_DIR) + "/models/pendulum_chain.mdl", mdl::compile_options(s));
    const mdl::NumericalFailure f = failure_of(model, s);
    INFO(f.what());
    CHECK(f.kind() == "drifted off the slow manifold");
    CHECK(f.time() == 1.0);
}
