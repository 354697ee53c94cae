// Rheonomic constraints g(t, q) = 0 (issue 33): a pendulum hanging from an anchor that moves
// vertically, y_P = -A cos(omega t), against the angle equation of the Kapitza pendulum
//     q'' = (g + A omega^2 cos(omega t))/l sin(q)        (q from the upward vertical)
// integrated here by a separately written RK4; and a slider-crank whose crank is driven at a
// constant speed by `revolute pivot(O, crank_pivot, angle = theta0 + w*time)`, against its
// closed-form kinematics, with the drive's multiplier against the closed-form inverse
// dynamics (power balance: torque = dE/dtheta at constant crank speed).
#include "classical_rk4.hpp"
#include "mdl/compiled_model.hpp"
#include "runtime/multiscale/stroboscopic.hpp"
#include "runtime/run.hpp"
#include "shipped_model.hpp"

#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

using namespace mdl;

namespace {

constexpr double l = 0.2, g = 9.8, vmax = 4, q0 = 0.5;
double omega = 1000;

const char* pendulum_source = R"(
model MovingAnchorPendulum "pendulum whose pivot moves vertically"
  parameter Real l = 0.2, g = 9.8, vmax = 4, omega = 1000, q0 = 0.5;
  anchor P(x = 0, y = -vmax/omega*cos(omega*time));
  body b(m = 1, x(start = l*sin(q0)), y(start = -vmax/omega + l*cos(q0)));
  constraint rod: (b.x - P.x)^2 + (b.y - P.y)^2 = l^2;
  gravity G(y = -g);
end MovingAnchorPendulum;
)";

// The Kapitza angle equation by the classical RK4 (tests/support/classical_rk4.hpp), step h,
// from (q0, 0) at t = 0 to t_end.
double kapitza_angle(double t_end, double h) {
    const auto rate = [](double t, const std::array<double, 2>& y) {
        return std::array<double, 2>{y[1],
                                     (g + vmax * omega * std::cos(omega * t)) / l * std::sin(y[0])};
    };
    return test::classical_rk4(rate, std::array<double, 2>{q0, 0.0}, h, std::lround(t_end / h))[0];
}

double pendulum_angle(const runtime::State& s) {
    const double py = -vmax / omega * std::cos(omega * s.t);
    return std::atan2(s.q[0], s.q[1] - py);
}

} // namespace

TEST_CASE("moving anchor: the pendulum follows the Kapitza angle equation") {
    test::LoadedModel pendulum(compile(pendulum_source));
    REQUIRE(pendulum.model.rheonomic());
    const double t_end = 0.25; // 40 periods
    const double reference = kapitza_angle(t_end, 2 * M_PI / omega / 4000);
    struct Case {
        runtime::Method method;
        double step;
        double tolerance;
    };
    for (const Case& c :
         {Case{runtime::Method::rattle, 2e-6, 5e-6}, Case{runtime::Method::shake, 2e-6, 5e-6},
          Case{runtime::Method::galpha, 2e-6, 5e-6}, Case{runtime::Method::ida, 0.05, 5e-6},
          Case{runtime::Method::dopri5, 0.05, 5e-6}}) {
        runtime::RunSettings s;
        s.method = c.method;
        s.stop_time = t_end;
        s.step = c.step;
        s.adaptive.rtol = 1e-9;
        s.adaptive.atol = 1e-11;
        s.solver.constraint_tolerance = 1e-12;
        runtime::State state = pendulum.start();
        double residual = 0;
        runtime::Vector gv(1), rate(1);
        runtime::Matrix G(1, 2);
        runtime::run(pendulum.model, state, s, [&](const runtime::State& st) {
            runtime::Vector gval(1);
            pendulum.model.constraint(st.t, st.q, gval);
            residual = std::max(residual, std::abs(gval[0]));
        });
        INFO(runtime::info(c.method).name << ": angle error " << pendulum_angle(state) - reference
                                          << ", angle " << pendulum_angle(state) << ", reference "
                                          << reference);
        CHECK(state.t == Catch::Detail::Approx(t_end));
        CHECK(std::abs(pendulum_angle(state) - reference) < c.tolerance);
        CHECK(residual < 1e-9);
        if (c.method == runtime::Method::rattle) {
            // the velocity constraint G v + g_t = 0 at t_{n+1}, to round-off
            pendulum.model.constraint_jacobian(state.t, state.q, G);
            pendulum.model.constraint_rate(state.t, state.q, rate);
            gv = G * state.v + rate;
            CHECK(std::abs(gv[0]) < 1e-9);
        }
    }
}

TEST_CASE("moving anchor: strobo through the period map gives the motion at stroboscopic "
          "times") {
    // The anchor's motion written with a vibration (its period is the fast scale), omega = 1e4:
    // strobo's outputs at t_n = n H, H = 20 periods, against the angle equation there.
    std::string source = pendulum_source;
    source.replace(source.find("anchor P"), std::string("anchor P").size(),
                   "vibration c(theta = omega*time) = cos(theta);\n  anchor P");
    source.replace(source.find("-vmax/omega*cos(omega*time)"),
                   std::string("-vmax/omega*cos(omega*time)").size(), "-vmax/omega*c");
    source.replace(source.find("omega = 1000"), std::string("omega = 1000").size(),
                   "omega = 1e4"); // the start values use it
    test::LoadedModel pendulum(compile(source));
    omega = 1e4;
    const double period = 2 * M_PI / omega;
    runtime::multiscale::StroboscopicOptions o;
    o.macro_step = 20 * period;
    o.t_end = 160 * period;
    runtime::State state = pendulum.start();
    double worst = 0;
    int rows = 0;
    runtime::multiscale::run_stroboscopic(pendulum.model, state, o, [&](const runtime::State& s) {
        const double reference = kapitza_angle(s.t, period / 400);
        worst = std::max(worst, std::abs(pendulum_angle(s) - reference));
        ++rows;
    });
    omega = 1000;
    INFO("largest angle error " << worst);
    CHECK(rows >= 8);
    CHECK(worst < 3e-4);
}

TEST_CASE("driven slider-crank: kinematics and the driving torque in closed form") {
    const char* source = R"(
model DrivenSliderCrank
  parameter Real a = 0.1, b = 0.3, m1 = 1, m2 = 2, m3 = 0.5, theta0 = 0.3, w = 20;
  anchor O(x = 0, y = 0);
  rigid crank(m = m1, J = m1*a^2/12, x(start = a/2*cos(theta0)), y(start = a/2*sin(theta0)),
              phi(start = theta0));
  rigid rod(m = m2, J = m2*b^2/12, x(start = a + b/2), y(start = 0), phi(start = 0));
  rigid slider(m = m3, J = 1e-3, x(start = a + b), y(start = 0), phi(start = 0));
  point crank_pivot(crank, x = -a/2);
  point crank_pin(crank, x = a/2);
  point rod_big(rod, x = -b/2);
  point rod_small(rod, x = b/2);
  revolute pivot(O, crank_pivot, angle = theta0 + w*time) "the motor";
  revolute pin(crank_pin, rod_big);
  revolute wrist(rod_small, slider);
  prismatic guide(O, slider, x = 1, y = 0);
  gravity G(y = -9.81);
end DrivenSliderCrank;
)";
    test::LoadedModel sc(compile(source));
    const double a = 0.1, b = 0.3, m1 = 1, m2 = 2, m3 = 0.5, theta0 = 0.3, w = 20, gr = 9.81;
    const double J1 = m1 * a * a / 12, J2 = m2 * b * b / 12;
    const auto& names = sc.compiled.constraint_names();
    const auto drive = static_cast<Eigen::Index>(
        std::find(names.begin(), names.end(), "pivot.phi") - names.begin());
    REQUIRE(drive < static_cast<Eigen::Index>(names.size()));
    const auto& positions = sc.compiled.position_names();
    const auto xs = static_cast<Eigen::Index>(
        std::find(positions.begin(), positions.end(), "slider.x") - positions.begin());
    // E(theta) at crank speed w: kinetic energy from the velocities d/dtheta (...) w, plus the
    // potential energy; the drive's power torque * w is dE/dt = w dE/dtheta.
    auto energy = [&](double th) {
        const double s = std::sin(th), c = std::cos(th), r = std::sqrt(b * b - a * a * s * s);
        const double dxs = -a * s - a * a * s * c / r; // slider
        const double dpin_x = -a * s, dpin_y = a * c;
        const double dpsi = -a * c / r; // rod angle psi = asin(-a sin(theta)/b)
        const double kinetic =
            0.5 * w * w *
            (m1 * (0.25 * dpin_x * dpin_x + 0.25 * dpin_y * dpin_y) + J1 +
             m2 * (0.25 * (dpin_x + dxs) * (dpin_x + dxs) + 0.25 * dpin_y * dpin_y) +
             J2 * dpsi * dpsi + m3 * dxs * dxs);
        const double potential = gr * (m1 * 0.5 * a * s + m2 * 0.5 * a * s);
        return kinetic + potential;
    };
    for (runtime::Method method :
         {runtime::Method::ida, runtime::Method::dopri5, runtime::Method::rattle}) {
        runtime::RunSettings s;
        s.method = method;
        s.stop_time = 0.4; // more than a turn
        s.step = method == runtime::Method::rattle ? 1e-4 : 0.01;
        s.adaptive.rtol = 1e-9;
        s.adaptive.atol = 1e-11;
        s.solver.constraint_tolerance = 1e-12;
        runtime::State state = sc.start();
        double worst_x = 0, worst_torque = 0, largest_torque = 0;
        runtime::run(sc.model, state, s, [&](const runtime::State& st) {
            const double th = theta0 + w * st.t;
            const double sn = a * std::sin(th);
            worst_x = std::max(worst_x,
                               std::abs(st.q[xs] - a * std::cos(th) - std::sqrt(b * b - sn * sn)));
            const double d = 1e-5;
            const double torque = (energy(th + d) - energy(th - d)) / (2 * d);
            largest_torque = std::max(largest_torque, std::abs(torque));
            if (st.t == 0.0) {
                return; // rk-type methods and RATTLE report multipliers from the first step on
            }
            worst_torque = std::max(worst_torque, std::abs(st.lambda[drive] - torque));
        });
        INFO(runtime::info(method).name << ": torque error " << worst_torque << " of "
                                        << largest_torque);
        CHECK(worst_x < 1e-8);
        CHECK(largest_torque > 1);
        // IDA's multipliers are those of its BDF states. RATTLE reports the multipliers of
        // consistent accelerations at (q_{n+1}, v_{n+1}) (its stage multipliers were first
        // order, 2e-3 here at h = 1e-5, and carried the Newton residual times 2/h^2); dopri5's
        // rows every 0.01 come from dense output, with the multipliers at the row's own
        // interpolated state (they were the step end's: 0.19 of the torque). The mechanism is
        // fully driven, so both are exact up to the reference's central difference (1.3e-10).
        if (method == runtime::Method::ida) {
            CHECK(worst_torque < 5e-4 * largest_torque);
        } else {
            CHECK(worst_torque < 1e-7 * largest_torque);
        }
    }
}
