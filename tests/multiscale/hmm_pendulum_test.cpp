// Figure 4.1 of hmm-mechanical-vibrations (the reproduction settings of docs/hmm.md): the vibrated
// double pendulum in descriptor form by SHAKE-SHAKE and RATTLE-SHAKE with simple filtering.
#include "shipped_model.hpp"

#include "reproduce/reproduce_hmm.hpp"
#include "runtime/integrate.hpp"
#include "runtime/integrators/shake.hpp"
#include "runtime/model.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <utility>

using namespace mdl;
using namespace mdl::runtime;
using namespace mdl::runtime::multiscale;
using mdl::test::ShippedModel;

namespace {

// The vibrated double pendulum of models/double_pendulum.mdl, which starts at rest (start()'s
// velocities are zero), with the runs of Figure 4.1.
struct Pendulum : ShippedModel {
    Pendulum() : ShippedModel("double_pendulum.mdl") {}
    bool even() const { return compiled.force_even_in_phase(0); }
    PendulumRun run(HmmMacro macro, double H, double omega) {
        return run_double_pendulum(model, start(), macro, H, omega, even());
    }
};

// max_n |a(t_n) - b(t_n)| over the step points of the coarser run a (b's steps divide a's)
double max_difference(const std::vector<double>& ta, const std::vector<double>& a,
                      const std::vector<double>& tb, const std::vector<double>& b) {
    const std::size_t ratio = (tb.size() - 1) / (ta.size() - 1);
    double d = 0.0;
    for (std::size_t n = 0; n < ta.size(); ++n) {
        REQUIRE(tb[n * ratio] == Approx(ta[n]).margin(1e-12));
        d = std::max(d, std::abs(a[n] - b[n * ratio]));
    }
    return d;
}

} // namespace

TEST_CASE("double pendulum: the force is even in the phase", "[hmm][pendulum]") {
    Pendulum p;
    CHECK(p.even());
}

namespace {
// Direct SHAKE integration of the oscillatory system, q1 at the step points of `at`.
std::vector<double> direct_q1(Pendulum& p, double omega, const std::vector<double>& at,
                              int per_period) {
    p.model.set_parameter("omega", omega);
    Shake<> shake(p.model);
    State s = p.start();
    const double period = 2.0 * std::numbers::pi / omega;
    const double H = at[1] - at[0];
    const auto steps_per_macro = static_cast<long>(std::ceil(H / (period / per_period)));
    const double h = H / static_cast<double>(steps_per_macro);
    std::vector<double> q1{std::atan(s.q[0] / s.q[1])};
    for (std::size_t n = 1; n < at.size(); ++n) {
        for (long k = 0; k < steps_per_macro; ++k) {
            shake.step(s, h);
        }
        q1.push_back(std::atan(s.q[0] / s.q[1]));
    }
    return q1;
}
} // namespace

TEST_CASE("Figure 4.1: SHAKE-SHAKE keeps both rods up, q1 oscillates about 0", "[hmm][pendulum]") {
    Pendulum p;
    for (double H : {1.0 / 80, 1.0 / 160}) {
        for (double omega : {1e4, 1e6, 1e8}) {
            const PendulumRun r = p.run(HmmMacro::shake, H, omega);
            INFO("H = " << H << ", omega = " << omega);
            // the paper's cost: 80 x 16 and 160 x 32 micro steps (half of one fast period
            // per force, T_macro/H micro steps per period)
            CHECK(r.stats.micro_steps == (H > 0.01 ? 1280u : 5120u));
            CHECK(r.stats.force_estimates == static_cast<std::size_t>(std::lround(1.0 / H)));
            CHECK(r.t.back() == Approx(1.0).margin(1e-12));
            CHECK(r.q1.front() == Approx(0.5).margin(1e-12));
            CHECK(r.q2.front() == Approx(0.0).margin(1e-12));
            // constraint residuals at the solver's tolerance (1e-12 m^2, SolverOptions)
            CHECK(r.max_residual <= 1e-12);
            // stays up: |q1|, |q2| < pi/2 (atan would wrap otherwise: check through the
            // range), and q1 swings to the other side of the vertical and back
            const auto [lo, hi] = std::minmax_element(r.q1.begin(), r.q1.end());
            CHECK(*hi <= 0.5 + 1e-12);
            CHECK(*lo < -0.3);
            CHECK(*lo > -0.5);
            double mean = 0.0;
            for (double q : r.q1) {
                mean += q;
            }
            mean /= static_cast<double>(r.q1.size());
            CHECK(std::abs(mean) < 0.1); // about 0, amplitude 0.5
            const auto q2_size = std::max_element(r.q2.begin(), r.q2.end(), [](double a, double b) {
                return std::abs(a) < std::abs(b);
            });
            CHECK(std::abs(*q2_size) < 1.45);
        }
    }
}

TEST_CASE("Figure 4.1: H = 1/80 and 1/160 agree (second-order convergence)", "[hmm][pendulum]") {
    Pendulum p;
    const PendulumRun a = p.run(HmmMacro::shake, 1.0 / 80, 1e4);
    const PendulumRun b = p.run(HmmMacro::shake, 1.0 / 160, 1e4);
    const PendulumRun c = p.run(HmmMacro::shake, 1.0 / 320, 1e4);
    const double d1 = max_difference(a.t, a.q1, b.t, b.q1);
    const double d2 = max_difference(b.t, b.q1, c.t, c.q1);
    INFO("max |q1(H) - q1(H/2)|: " << d1 << " (1/80 vs 1/160), " << d2 << " (1/160 vs 1/320)");
    CHECK(d1 < 0.2);
    // an order-2 method: halving H divides the difference by ~4
    CHECK(d1 / d2 > 3.0);
    CHECK(d1 / d2 < 5.0);
}

TEST_CASE("Figure 4.1: the results do not change with omega", "[hmm][pendulum]") {
    Pendulum p;
    for (double H : {1.0 / 80, 1.0 / 160}) {
        const PendulumRun w4 = p.run(HmmMacro::shake, H, 1e4);
        const PendulumRun w6 = p.run(HmmMacro::shake, H, 1e6);
        const PendulumRun w8 = p.run(HmmMacro::shake, H, 1e8);
        INFO("H = " << H);
        // the same computational effort
        CHECK(w4.stats.micro_steps == w8.stats.micro_steps);
        CHECK(w4.stats.force_evaluations == w8.stats.force_evaluations);
        // omega = 1e6 and 1e8: the limit; omega = 1e4 differs by the O(1/omega) terms of the
        // oscillatory problem, amplified by the double pendulum's sensitive dynamics
        CHECK(max_difference(w6.t, w6.q1, w8.t, w8.q1) < 1e-2);
        CHECK(max_difference(w6.t, w6.q2, w8.t, w8.q2) < 3e-2);
        CHECK(max_difference(w4.t, w4.q1, w8.t, w8.q1) < 0.1);
    }
}

TEST_CASE("Figure 4.1: HMM follows the slow motion of a direct integration",
          "[hmm][pendulum][heavy]") {
    // Independent of HMM: SHAKE on the oscillatory system itself at omega = 1e4 with 64 steps
    // per fast period (10^5 steps). Its fast oscillation in q1 has amplitude ~ vmax/(l1 omega)
    // = 2e-3; over the first 0.3 s (before the motion's sensitivity amplifies the O(1/omega)
    // terms) HMM with H = 1/160 stays within its own H^2 error of it.
    //
    // Over [0, 1] the error is e(H) = E0 + C H^2: an H-independent part E0 (the averaging's
    // O(1/omega) terms, which the pendulum's sensitivity amplifies) and HMM's own macro error.
    // Measured with H = 1/160 and 1/320: e = 0.110 and 0.067, so C H^2 = 0.057 at H = 1/160 and
    // E0 = 0.053 (the omega -> infinity limit, HMM at omega = 1e8, is 0.186 away from the direct
    // run). The bounds are these values + 10%, and two ratios that hold whatever the
    // calibration: halving H reduces the error (its H^2 part is real), and HMM at omega = 1e4
    // is closer to the direct run than the omega -> infinity limit (it resolves the O(1/omega)
    // terms). (It accepted 0.15 on an angle of amplitude 0.5.)
    Pendulum p;
    const auto errors = [&](const PendulumRun& r) {
        const std::vector<double> direct = direct_q1(p, 1e4, r.t, 64);
        double early = 0.0, all = 0.0;
        for (std::size_t n = 0; n < r.t.size(); ++n) {
            const double d = std::abs(r.q1[n] - direct[n]);
            all = std::max(all, d);
            if (r.t[n] <= 0.3 + 1e-12) {
                early = std::max(early, d);
            }
        }
        return std::pair{early, all};
    };
    const auto [early, all] = errors(p.run(HmmMacro::shake, 1.0 / 160, 1e4));
    const auto [early_fine, all_fine] = errors(p.run(HmmMacro::shake, 1.0 / 320, 1e4));
    const auto [early_limit, all_limit] = errors(p.run(HmmMacro::shake, 1.0 / 160, 1e8));
    INFO("max |q1_HMM - q1_direct|: " << early << " on [0, 0.3], " << all << " on [0, 1] (H = "
                                      << "1/160); " << all_fine << " (H = 1/320); " << all_limit
                                      << " (omega = 1e8)");
    CHECK(early < 1.1e-2);
    CHECK(all < 0.121);
    CHECK(all_fine < 0.074);
    CHECK(all_fine < 0.75 * all);
    CHECK(all < 0.75 * all_limit);
    (void)early_fine;
    (void)early_limit;
}

TEST_CASE("RATTLE-SHAKE: the angles of SHAKE-SHAKE, tangent velocities", "[hmm][pendulum]") {
    Pendulum p;
    for (double H : {1.0 / 80, 1.0 / 160}) {
        const PendulumRun shake = p.run(HmmMacro::shake, H, 1e6);
        const PendulumRun rattle = p.run(HmmMacro::rattle, H, 1e6);
        INFO("H = " << H);
        CHECK(max_difference(shake.t, shake.q1, rattle.t, rattle.q1) < 1e-3);
        CHECK(max_difference(shake.t, shake.q2, rattle.t, rattle.q2) < 1e-3);
        CHECK(rattle.max_residual <= 1e-12);
    }
    // G(X_n) V_n = 0 to round-off at every step point
    p.model.set_parameter("omega", 1e6);
    HmmOptions o;
    o.macro = HmmMacro::rattle;
    o.macro_step = 1.0 / 80;
    o.macro_time_scale = 0.4;
    o.force_even_in_phase = p.even();
    State s = p.start();
    Matrix G(p.model.constraints(), p.model.positions());
    double worst = 0.0;
    const HmmStats stats = run_hmm(p.model, s, o, [&](const State& x) {
        p.model.constraint_jacobian(x.q, G);
        worst = std::max(worst, (G * x.v).cwiseAbs().maxCoeff());
    });
    CHECK(worst < 1e-12);
    CHECK(stats.outputs == 81);
    CHECK(stats.force_estimates == 81); // RATTLE needs F_N for V_N
}
