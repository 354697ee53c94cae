// Stroboscopic averaging of constrained systems (Calvo, Chartier, Murua & Sanz-Serna, Springer
// LNCSE 82 (2012), Sect. IV(C); the reproduction settings of docs/stroboscopic.md and docs/hmm.md):
// the half-explicit Runge-Kutta method of order 3 (Brasey & Hairer 1993) on the GGL index-2 form as
// micro-integrator, tested on its own against a pendulum in minimal coordinates, then on the
// vibrated double pendulum in descriptor form (models/double_pendulum.mdl) against a direct
// integration of the oscillatory system and against HMM SHAKE-SHAKE (Figure 4.1 of
// hmm-mechanical-vibrations).
#include "shipped_model.hpp"

#include "reproduce/reproduce_hmm.hpp"
#include "runtime/model.hpp"
#include "runtime/multiscale/half_explicit_rk.hpp"
#include "runtime/multiscale/stroboscopic.hpp"
#include "runtime/numerical_failure.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

using namespace mdl;
using namespace mdl::runtime;
using namespace mdl::runtime::multiscale;
using mdl::test::LoadedModel;
using mdl::test::ShippedModel;

namespace {

constexpr double pi = std::numbers::pi;

// A rigid pendulum whose pivot vibrates slowly, in descriptor form: the angle q from the
// upward vertical obeys q'' = (g + a(t))/l sin q (models/kapitza.mdl), x = l sin q, y = l cos q.
constexpr const char* cartesian_pendulum = R"(
model CartesianPendulum "vibrated rigid pendulum in cartesian coordinates"
  parameter Real m = 0.01, l = 0.2, g = 9.8, vmax = 1, omega = 20, q0 = 0.5;
  vibration a(theta = omega*time) = vmax*omega*cos(theta);
  body b(m = m, x(start = l*sin(q0)), y(start = l*cos(q0)));
  potential U = m*b.y*(g + a);
  constraint rod: b.x^2 + b.y^2 = l^2;
end CartesianPendulum;
)";

// Minimal coordinates, by the classical RK4 with n steps per unit time: (q, p) at t = k/per.
struct AngleSolution {
    std::vector<double> q, p;
};
AngleSolution minimal_pendulum(double l, double g, double vmax, double omega, double q0,
                               double t_end, int per, int substeps) {
    const auto f = [&](double t, double q, double p, double& dq, double& dp) {
        dq = p;
        dp = (g + vmax * omega * std::cos(omega * t)) / l * std::sin(q);
    };
    AngleSolution r{{q0}, {0.0}};
    double q = q0, p = 0.0;
    const double h = 1.0 / (per * substeps);
    const int steps = static_cast<int>(std::lround(t_end * per * substeps));
    for (int i = 0; i < steps; ++i) {
        const double t = i * h;
        double k1q, k1p, k2q, k2p, k3q, k3p, k4q, k4p;
        f(t, q, p, k1q, k1p);
        f(t + h / 2, q + h / 2 * k1q, p + h / 2 * k1p, k2q, k2p);
        f(t + h / 2, q + h / 2 * k2q, p + h / 2 * k2p, k3q, k3p);
        f(t + h, q + h * k3q, p + h * k3p, k4q, k4p);
        q += h / 6 * (k1q + 2 * k2q + 2 * k3q + k4q);
        p += h / 6 * (k1p + 2 * k2p + 2 * k3p + k4p);
        if ((i + 1) % substeps == 0) {
            r.q.push_back(q);
            r.p.push_back(p);
        }
    }
    return r;
}

double log2_ratio(double a, double b) {
    return std::log2(a / b);
}

} // namespace

TEST_CASE("herk3: order 3 on a constrained pendulum, against minimal coordinates",
          "[strobo][herk3]") {
    LoadedModel c(compile(cartesian_pendulum, "cartesian_pendulum.mdl"));
    const double l = 0.2, g = 9.8, vmax = 1.0, omega = 20.0, m = 0.01;
    const int per = 10; // compare at t = k/10
    const AngleSolution ref = minimal_pendulum(l, g, vmax, omega, 0.5, 1.0, per, 4096);
    // the reference is converged far below the errors measured here
    const AngleSolution coarse = minimal_pendulum(l, g, vmax, omega, 0.5, 1.0, per, 1024);
    CHECK(std::abs(coarse.q.back() - ref.q.back()) < 1e-12);

    std::vector<double> eq, ep, el;
    for (const int steps : {4, 8, 16, 32, 64}) { // per 1/10 s: h = 1/40 .. 1/640
        HalfExplicitRK3<> herk(c.model);
        State s = c.start();
        double err_q = 0.0, err_p = 0.0, err_lambda = 0.0, residual = 0.0, tangency = 0.0;
        Vector gq(1);
        Matrix G(1, 2);
        const double h = 1.0 / (per * steps);
        for (int k = 1; k <= per; ++k) {
            for (int i = 0; i < steps; ++i) {
                herk.step(s, (k - 1) * (1.0 / per) + (i + 1) * h - s.t);
            }
            // the pendulum swings over (q leaves (-pi, pi]): compare cartesian positions and
            // velocities, x = l sin q, y = l cos q
            const double qr = ref.q[static_cast<std::size_t>(k)];
            const double pr = ref.p[static_cast<std::size_t>(k)];
            err_q = std::max(
                {err_q, std::abs(s.q[0] - l * std::sin(qr)), std::abs(s.q[1] - l * std::cos(qr))});
            err_p = std::max({err_p, std::abs(s.v[0] - l * std::cos(qr) * pr),
                              std::abs(s.v[1] + l * std::sin(qr) * pr)});
            // m r'' = -m (g + a) e_y + 2 r lambda, radially -m l^2 p^2 = -m (g + a) y + 2 l^2
            // lambda
            const double a = vmax * omega * std::cos(omega * s.t);
            const double lambda = m * ((g + a) * l * std::cos(qr) - l * l * pr * pr) / (2 * l * l);
            err_lambda = std::max(err_lambda, std::abs(s.lambda[0] - lambda) / std::abs(lambda));
            c.model.constraint(s.q, gq);
            c.model.constraint_jacobian(s.q, G);
            residual = std::max(residual, std::abs(gq[0]));
            tangency = std::max(tangency, std::abs((G * s.v)[0]));
        }
        CHECK(s.t == Approx(1.0).epsilon(1e-14));
        CHECK(residual <= 1e-12); // Newton tolerance, m^2
        CHECK(tangency <= 1e-14); // a linear solve: round-off
        eq.push_back(err_q);
        ep.push_back(err_p);
        el.push_back(err_lambda);
    }
    for (std::size_t i = 0; i + 1 < eq.size(); ++i) {
        INFO("h = 1/" << 40 * (1 << i) << ": errors in position [m] " << eq[i]
                      << ", velocity [m/s] " << ep[i] << ", lambda (relative) " << el[i]
                      << "; observed orders " << log2_ratio(eq[i], eq[i + 1]) << ", p "
                      << log2_ratio(ep[i], ep[i + 1]) << ", lambda "
                      << log2_ratio(el[i], el[i + 1]));
        if (i >= 1) { // asymptotic range
            CHECK(log2_ratio(eq[i], eq[i + 1]) > 2.8);
            CHECK(log2_ratio(eq[i], eq[i + 1]) < 3.3);
            CHECK(log2_ratio(ep[i], ep[i + 1]) > 2.8);
            CHECK(log2_ratio(ep[i], ep[i + 1]) < 3.3);
            CHECK(log2_ratio(el[i], el[i + 1]) > 1.8); // the multipliers: order 2 at least
        }
    }
    CHECK(eq.back() < 1e-4); // h = 1/640: 4.5e-5 m on a swinging-over pendulum
}

namespace {

struct StroboRun {
    std::vector<double> t, q1, q2;
    StroboscopicStats stats;
};

double angle1(const State& s) {
    return std::atan(s.q[0] / s.q[1]);
}
double angle2(const State& s) {
    return std::atan((s.q[2] - s.q[0]) / (s.q[3] - s.q[1]));
}

StroboRun strobo_pendulum(ShippedModel& p, double omega, double H, std::size_t per_period,
                          int order = 4, double t_end = 1.0, SolverOptions solver = {}) {
    p.model.set_parameter("omega", omega);
    StroboscopicOptions o;
    o.order = order;
    o.macro_step = H;
    o.t_end = t_end;
    o.micro_steps_per_period = per_period;
    o.solver = solver;
    StroboRun r;
    State s = p.start();
    r.stats = run_stroboscopic(p.model, s, o, [&](const State& x) {
        r.t.push_back(x.t);
        r.q1.push_back(angle1(x));
        r.q2.push_back(angle2(x));
    });
    return r;
}

double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
    double d = 0.0;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
        d = std::max(d, std::abs(a[i] - b[i]));
    }
    return d;
}

// Every other sample of a run with half the step (the common step points).
std::vector<double> every_other(const std::vector<double>& a) {
    std::vector<double> r;
    for (std::size_t i = 0; i < a.size(); i += 2) {
        r.push_back(a[i]);
    }
    return r;
}

} // namespace

TEST_CASE("strobo on the double pendulum: the oscillatory solution at stroboscopic times",
          "[strobo][dae][heavy]") {
    // omega = 1e4: strobo's outputs at t_n = n H, H = 5 periods, are the true solution there.
    // Reference: herk3 on the oscillatory system itself, 64 steps per period (1e5 steps;
    // 128 per period changes q1 by 1e-4). Strobo's own errors at N = 32 micro steps per period:
    // macro (RK4, H ~ 1/318) ~3e-4, micro ~4e-4 (both measured by halving), so 2e-3 bounds the
    // sum with a margin; H = 10 periods (~1/159) is 16x less accurate (order 4).
    ShippedModel p("double_pendulum.mdl");
    const double omega = 1e4, delta = 2 * pi / omega;
    p.model.set_parameter("omega", omega);
    std::vector<double> q1_direct, q2_direct;
    std::vector<Vector> lambda_direct;
    {
        HalfExplicitRK3<> herk(p.model);
        State x = p.start();
        q1_direct.push_back(angle1(x));
        q2_direct.push_back(angle2(x));
        lambda_direct.push_back(x.lambda);
        const int per = 64;
        for (int n = 1; n <= 318; ++n) { // t = 5 n delta <= 1
            for (int k = 1; k <= 5 * per; ++k) {
                herk.step(x, ((n - 1) * 5 + k * (1.0 / per)) * delta - x.t);
            }
            q1_direct.push_back(angle1(x));
            q2_direct.push_back(angle2(x));
            lambda_direct.push_back(x.lambda);
        }
    }
    StroboscopicOptions o;
    o.macro_step = 5 * delta;
    o.micro_steps_per_period = 32;
    State s = p.start();
    std::vector<State> out;
    const StroboscopicStats st =
        run_stroboscopic(p.model, s, o, [&](const State& x) { out.push_back(x); });
    REQUIRE(out.size() == q1_direct.size());
    CHECK(st.micro == StroboscopicMicro::half_explicit_rk3);
    CHECK(st.stroboscopic_outputs);
    CHECK(st.macro_steps == 318);
    CHECK(st.micro_steps == 318 * 4 * 4 * 32); // 4 F per step, 4 periods of 32 steps per F
    double e1 = 0.0, e2 = 0.0, el = 0.0;
    for (std::size_t n = 0; n < out.size(); ++n) {
        e1 = std::max(e1, std::abs(angle1(out[n]) - q1_direct[n]));
        e2 = std::max(e2, std::abs(angle2(out[n]) - q2_direct[n]));
        if (n > 0) { // herk3's lambda: the last stage's, at t_n
            el = std::max(el, (out[n].lambda - lambda_direct[n]).cwiseAbs().maxCoeff() /
                                  lambda_direct[n].cwiseAbs().maxCoeff());
        }
    }
    StroboscopicOptions coarse = o;
    coarse.macro_step = 10 * delta;
    std::vector<double> q1_coarse;
    State sc = p.start();
    run_stroboscopic(p.model, sc, coarse, [&](const State& x) { q1_coarse.push_back(angle1(x)); });
    double e_coarse = 0.0;
    for (std::size_t n = 0; n < q1_coarse.size(); ++n) {
        e_coarse = std::max(e_coarse, std::abs(q1_coarse[n] - q1_direct[2 * n]));
    }
    INFO("max |q1 - q1_direct| " << e1 << " (H = 5 delta), " << e_coarse << " (H = 10 delta); q2 "
                                 << e2 << "; multipliers (relative to the largest) " << el);
    CHECK(e1 < 2e-3);
    CHECK(e2 < 4e-3);
    CHECK(e_coarse > 6 * e1);
    // the output multipliers are the oscillatory system's at the stroboscopic phase: O(omega)
    // rod forces, here ~1e2 N/m, which herk3's last-stage multipliers reproduce
    CHECK(el < 1e-2);
    CHECK(lambda_direct.back().cwiseAbs().maxCoeff() > 10.0);
}

TEST_CASE("strobo on the double pendulum agrees with HMM SHAKE-SHAKE (Figure 4.1)",
          "[strobo][dae][heavy]") {
    // omega = 1e6, where HMM's averaged motion and the stroboscopic samples agree up to
    // O(1/omega) (x the motion's sensitivity: 1e6 vs 1e8 move q1 by ~5e-4). HMM SHAKE-SHAKE is
    // of order 2: H = 1/320 and 1/640 differ by d ~ 1.1e-2, so HMM(1/640) is off by ~d/3 and
    // the Richardson value (4 HMM(1/640) - HMM(1/320))/3 by much less. Strobo (H = 1/320, 32
    // micro steps per period) is accurate to ~7e-4 (macro and micro halving: 3e-4, 4e-4).
    ShippedModel p("double_pendulum.mdl");
    const double omega = 1e6;
    const bool even = p.compiled.force_even_in_phase(0);
    const PendulumRun h320 =
        run_double_pendulum(p.model, p.start(), HmmMacro::shake, 1.0 / 320, omega, even);
    const PendulumRun h640 =
        run_double_pendulum(p.model, p.start(), HmmMacro::shake, 1.0 / 640, omega, even);
    const StroboRun s = strobo_pendulum(p, omega, 1.0 / 320, 32);
    const StroboRun s_macro = strobo_pendulum(p, omega, 1.0 / 640, 32);
    const StroboRun s_micro = strobo_pendulum(p, omega, 1.0 / 320, 64);
    REQUIRE(s.t.size() == h320.t.size());
    const std::vector<double> h640_q1 = every_other(h640.q1), h640_q2 = every_other(h640.q2);
    std::vector<double> richardson;
    for (std::size_t n = 0; n < h320.q1.size(); ++n) {
        CHECK(s.t[n] == Approx(h320.t[n]).margin(1e-12));
        richardson.push_back((4 * h640_q1[n] - h320.q1[n]) / 3);
    }
    const double d_hmm = max_diff(h320.q1, h640_q1);
    const double e_strobo = max_diff(s.q1, every_other(s_macro.q1)) + max_diff(s.q1, s_micro.q1);
    const double vs_hmm = max_diff(s.q1, h640_q1);
    const double vs_richardson = max_diff(s.q1, richardson);
    INFO("HMM 1/320 vs 1/640: " << d_hmm << "; strobo error estimate " << e_strobo
                                << "; max |q1_strobo - q1_HMM(1/640)| " << vs_hmm
                                << ", vs Richardson " << vs_richardson << "; q2 "
                                << max_diff(s.q2, h640_q2));
    CHECK(e_strobo < 2e-3);
    CHECK(vs_hmm < 1.5 * (d_hmm / 3 + e_strobo));
    CHECK(vs_richardson < 0.2 * d_hmm);
    CHECK(vs_richardson < 2e-3);
    std::vector<double> richardson_q2;
    for (std::size_t n = 0; n < h320.q2.size(); ++n) {
        richardson_q2.push_back((4 * h640_q2[n] - h320.q2[n]) / 3);
    }
    INFO("q2: HMM 1/320 vs 1/640 " << max_diff(h320.q2, h640_q2) << ", strobo vs Richardson "
                                   << max_diff(s.q2, richardson_q2));
    CHECK(max_diff(s.q2, richardson_q2) < 0.2 * max_diff(h320.q2, h640_q2));
    // Figure 4.1: q1 from 0.5 swings to about -0.4 and back about 0, both rods stay up
    const auto [lo, hi] = std::minmax_element(s.q1.begin(), s.q1.end());
    CHECK(s.q1.front() == Approx(0.5).margin(1e-12));
    CHECK(*hi <= 0.5 + 1e-12);
    CHECK(*lo < -0.3);
    CHECK(*lo > -0.5);
    CHECK(std::abs(*lo - *std::min_element(h640.q1.begin(), h640.q1.end())) < 5e-3);
    for (double q : s.q2) {
        CHECK(std::abs(q) < 1.45);
    }
}

TEST_CASE("strobo on the double pendulum: cost and results independent of omega",
          "[strobo][dae][heavy]") {
    ShippedModel p("double_pendulum.mdl");
    const StroboRun w4 = strobo_pendulum(p, 1e4, 1.0 / 320, 16);
    const StroboRun w6 = strobo_pendulum(p, 1e6, 1.0 / 320, 16);
    const StroboRun w8 = strobo_pendulum(p, 1e8, 1.0 / 320, 16);
    INFO("max |q1(1e6) - q1(1e8)| "
         << max_diff(w6.q1, w8.q1) << ", |q1(1e4) - q1(1e8)| " << max_diff(w4.q1, w8.q1)
         << "; micro steps " << w8.stats.micro_steps << ", force evaluations "
         << w8.stats.force_evaluations << "; residuals |g| " << w8.stats.max_position_residual
         << ", |G v| " << w8.stats.max_velocity_residual << ", largest projection "
         << w8.stats.max_projection);
    for (const StroboRun* r : {&w4, &w6}) {
        CHECK(r->stats.micro_steps == w8.stats.micro_steps);
        CHECK(r->stats.force_evaluations == w8.stats.force_evaluations);
        CHECK(r->stats.field_evaluations == w8.stats.field_evaluations);
    }
    CHECK(w8.stats.micro_steps == 320 * 4 * 4 * 16);
    // 3 per micro step, 1 per output (the multipliers)
    CHECK(w8.stats.force_evaluations == 3 * w8.stats.micro_steps + 321);
    // 1e6 and 1e8: the limit up to O(1/omega) amplified by the motion's sensitivity (~1e-3);
    // 1e4 is the oscillatory solution at omega = 1e4 (the direct comparison above), which
    // differs from the limit by its O(1/omega) terms, amplified likewise. The stroboscopic
    // solution is the limit plus O(1/omega) (stroboscopic averaging, Chartier, Murua and
    // Sanz-Serna), so the distance to omega = 1e8 shrinks a hundredfold from 1e4 to 1e6: the
    // ratio must be 100 up to the nonlinear amplification of the two perturbations (a factor 2
    // either way; the O(1/omega^2) terms are 1e-4 of the first order's at 1e4).
    const double d4 = max_diff(w4.q1, w8.q1), d6 = max_diff(w6.q1, w8.q1);
    INFO("|q1(1e4) - q1(1e8)| / |q1(1e6) - q1(1e8)| = " << d4 / d6);
    CHECK(d6 < 2e-3);
    CHECK(max_diff(w6.q2, w8.q2) < 5e-3);
    CHECK(d4 / d6 > 50.0);
    CHECK(d4 / d6 < 200.0);
    for (const StroboRun* r : {&w4, &w6, &w8}) {
        CHECK(r->stats.max_position_residual <= 1e-12); // Newton tolerance, m^2
        CHECK(r->stats.max_velocity_residual <= 1e-14); // a linear solve
        CHECK(r->stats.max_projection < 1e-3);          // the macro drift per step
    }
}

TEST_CASE("strobo on the double pendulum without projection: the drift stays small",
          "[strobo][dae]") {
    // The averaged field is tangent to the constraint manifold up to the differencing error;
    // without the projection only the macro-integration's local errors move Y off it.
    ShippedModel p("double_pendulum.mdl");
    p.model.set_parameter("omega", 1e6);
    StroboscopicOptions o;
    o.macro_step = 1.0 / 320;
    o.micro_steps_per_period = 16;
    std::vector<double> projected, free;
    State a = p.start();
    run_stroboscopic(p.model, a, o, [&](const State& x) { projected.push_back(angle1(x)); });
    o.project = false;
    State b = p.start();
    const StroboscopicStats st =
        run_stroboscopic(p.model, b, o, [&](const State& x) { free.push_back(angle1(x)); });
    INFO("without projection: max |g| " << st.max_position_residual << ", max |G v| "
                                        << st.max_velocity_residual << "; q1 differs by "
                                        << max_diff(projected, free));
    CHECK(st.max_projection == 0.0);
    CHECK(st.max_position_residual > 1e-12); // it does drift
    CHECK(st.max_position_residual < 1e-6);  // measured 3e-8 m^2
    CHECK(st.max_velocity_residual < 1e-3);  // 3e-5 m^2/s
    // the drift feeds back through the field (F is evaluated at P(Y)): 2.6e-3 here, more than
    // strobo's own error at these settings, which is why projecting is the default
    CHECK(max_diff(projected, free) < 1e-2);
}

TEST_CASE("strobo micro-integrators for constrained models; failures name the macro time",
          "[strobo][dae]") {
    ShippedModel p("double_pendulum.mdl");
    CHECK(parse_stroboscopic_micro("herk3") == StroboscopicMicro::half_explicit_rk3);
    CHECK(parse_stroboscopic_micro("auto") == StroboscopicMicro::automatic);
    CHECK(to_string(StroboscopicMicro::half_explicit_rk3) == "herk3");
    CHECK(to_string(StroboscopicMicro::automatic) == "auto");
    CHECK(StroboscopicOptions{}.micro == StroboscopicMicro::automatic);
    CHECK(resolve_stroboscopic_micro(p.model, StroboscopicMicro::automatic) ==
          StroboscopicMicro::half_explicit_rk3);
    CHECK_THROWS_AS(resolve_stroboscopic_micro(p.model, StroboscopicMicro::rk4),
                    MethodNotApplicable);
    CHECK_THROWS_AS(resolve_stroboscopic_micro(p.model, StroboscopicMicro::verlet),
                    MethodNotApplicable);
    ShippedModel k("kapitza_eps.mdl");
    CHECK(resolve_stroboscopic_micro(k.model, StroboscopicMicro::automatic) ==
          StroboscopicMicro::rk4);
    CHECK(resolve_stroboscopic_micro(k.model, StroboscopicMicro::half_explicit_rk3) ==
          StroboscopicMicro::half_explicit_rk3);

    const auto nothing = [](const State&) {
    };
    StroboscopicOptions o;
    o.macro_step = 1.0 / 80;
    o.t_end = 0.05;
    o.micro = StroboscopicMicro::rk4;
    State s = p.start();
    CHECK_THROWS_AS(run_stroboscopic(p.model, s, o, nothing), MethodNotApplicable);

    // the stages' Newton iteration may not update: herk3 fails in the first field evaluation,
    // reported as strobo's at the macro time, naming the constraint and the micro method
    o.micro = StroboscopicMicro::half_explicit_rk3;
    o.solver.max_iterations = 0;
    s = p.start();
    try {
        run_stroboscopic(p.model, s, o, nothing);
        FAIL("no NumericalFailure");
    } catch (const NumericalFailure& e) {
        CHECK(e.kind() == FailureKind::newton_not_converged);
        CHECK(e.method() == "strobo");
        CHECK(e.time() == 0.0);
        CHECK(e.where().find("constraint 'rod") == 0);
        CHECK(e.detail().find("herk3") != std::string::npos);
    }
}

TEST_CASE("herk3 on an unconstrained model is the explicit RK3 of its tableau", "[strobo][herk3]") {
    // q'' = -q from (1, 0): third order, one force evaluation per stage
    LoadedModel c(compile("model Osc\n  coordinate q(start = 1);\nequation\n  der(der(q)) = -q;\n"
                          "end Osc;\n",
                          "osc.mdl"));
    std::vector<double> errors;
    for (const int steps : {20, 40, 80}) {
        HalfExplicitRK3<> herk(c.model);
        State s = c.start();
        for (int i = 1; i <= steps; ++i) {
            herk.step(s, i * (1.0 / steps) - s.t);
        }
        CHECK(herk.force().evaluations() == 3u * static_cast<unsigned>(steps));
        errors.push_back(std::abs(s.q[0] - std::cos(1.0)) + std::abs(s.v[0] + std::sin(1.0)));
    }
    INFO("errors " << errors[0] << ", " << errors[1] << ", " << errors[2]);
    CHECK(log2_ratio(errors[1], errors[2]) > 2.8);
    CHECK(log2_ratio(errors[1], errors[2]) < 3.2);
}
