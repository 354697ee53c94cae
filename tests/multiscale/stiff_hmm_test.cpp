// The stiff-spring HMM (runtime/multiscale/stiff_hmm.hpp) against closed forms.
//
// On the linear system x'' = -x, y'' = -w^2 y (Example 1 of hmm-stiff-constrained, one slow
// and one fast mode) every micro-solution is known: from (X, P) the slow coordinate is
// X cos t + P sin t (Verlet's error at h = 2 pi/(6 w) is 1e-8 of it), whose kernel average
// is c X with c = int K_eta(t) cos t dt, the sine part averaging to zero. So the HMM
// integrates exactly X'' = -c X from the projected (c x0, c p0): X(t) = c x0 cos(sqrt(c) t) +
// c p0 sin(sqrt(c) t)/sqrt(c), and each re-projection multiplies (X, P) by c. c is computed
// here by quadrature of the kernel; 1 - c ~ 4e-4 at w = 1000, far above the tolerances.
#include "shipped_model.hpp"

#include "runtime/model.hpp"
#include "runtime/multiscale/filters.hpp"
#include "runtime/multiscale/stiff_hmm.hpp"
#include "runtime/numerical_failure.hpp"

#include <catch2/catch.hpp>

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

const char* const fast_slow = R"(
model FastSlow "a slow and a fast harmonic mode"
  parameter Real w = 1000;
  coordinate x(start = 1, vstart = 0.5);
  coordinate y(start = 0.01, vstart = 1);
equation
  der(der(x)) = -x;
  der(der(y)) = -w^2*y;
end FastSlow;
)";

// c = int_{-eta}^{eta} K_eta(t) cos t dt, eta = 10 periods of w
double kernel_cosine(double w) {
    const Filter filter = Filter::exponential(20.0);
    const double eta = 10.0 * 2.0 * std::numbers::pi / w;
    const int panels = 20000;
    double sum = 0.0;
    for (int i = 1; i < panels; ++i) {
        const double xi = -1.0 + 2.0 * i / panels;
        sum += filter.kernel(xi) * std::cos(eta * xi);
    }
    return sum * 2.0 / panels;
}

struct Recorded {
    std::vector<State> states;
    void operator()(const State& s) { states.push_back(s); }
};

StiffHmmOptions options(double omega, StiffMacro macro, double step) {
    StiffHmmOptions o;
    o.macro = macro;
    o.t_end = 10.0;
    o.macro_step = step;
    o.omega = omega;
    return o;
}

} // namespace

TEST_CASE("stiff HMM, rk4: the averaged linear system in closed form", "[stiff]") {
    LoadedModel m(compile(fast_slow));
    const double w = 1000.0;
    const double c = kernel_cosine(w);
    REQUIRE(1.0 - c > 1e-4); // the averaging is visible
    const double x0 = c * 1.0, p0 = c * 0.5, rc = std::sqrt(c);
    State s = m.start();
    Recorded out;
    const StiffHmmStats stats =
        run_stiff_hmm(m.model, s, options(w, StiffMacro::rk4, 1.0 / 32), std::ref(out));
    REQUIRE(out.states.size() == 321);
    double error_x = 0.0, error_p = 0.0, max_y = 0.0;
    for (const State& x : out.states) {
        const double X = x0 * std::cos(rc * x.t) + p0 / rc * std::sin(rc * x.t);
        const double P = -x0 * rc * std::sin(rc * x.t) + p0 * std::cos(rc * x.t);
        error_x = std::max(error_x, std::abs(x.q[0] - X));
        error_p = std::max(error_p, std::abs(x.v[0] - P));
        max_y = std::max(max_y, std::abs(x.q[1]));
    }
    INFO("c = " << c << ", errors " << error_x << " " << error_p << ", max |Y| " << max_y);
    CHECK(error_x < 2e-7);
    CHECK(error_p < 2e-7);
    CHECK(max_y < 1e-5); // the fast mode (amplitude 0.01) is filtered out
    CHECK(out.states.back().t == Approx(10.0).margin(1e-12));
    // cost: 4 estimates per step plus the projection, 120 micro steps each
    CHECK(stats.macro_steps == 320);
    CHECK(stats.force_estimates == 4 * 320);
    CHECK(stats.projections == 1);
    CHECK(stats.micro_steps_per_window == 120);
    CHECK(stats.micro_steps == 120 * (4 * 320 + 1));
    CHECK(stats.micro_step == Approx(2.0 * std::numbers::pi / w / 6.0).epsilon(1e-12));
    CHECK(stats.outputs == 321);
}

TEST_CASE("stiff HMM, rk4: re-projection multiplies the macro state by c", "[stiff]") {
    LoadedModel m(compile(fast_slow));
    const double w = 1000.0;
    const double c = kernel_cosine(w), rc = std::sqrt(c);
    StiffHmmOptions o = options(w, StiffMacro::rk4, 1.0 / 32);
    o.reproject_every = 1.0;
    State s = m.start();
    Recorded out;
    const StiffHmmStats stats = run_stiff_hmm(m.model, s, o, std::ref(out));
    CHECK(stats.projections == 10); // t = 0, 1, ..., 9
    double X = c * 1.0, P = c * 0.5, t_seg = 0.0;
    double error = 0.0;
    for (const State& x : out.states) {
        const double tau = x.t - t_seg;
        double Xt = X * std::cos(rc * tau) + P / rc * std::sin(rc * tau);
        double Pt = -X * rc * std::sin(rc * tau) + P * std::cos(rc * tau);
        const double k = std::round(x.t);
        if (std::abs(x.t - k) < 1e-12 && k >= 1.0 && k <= 9.0) {
            Xt *= c; // the state handed out at a re-projection time is the re-projected one
            Pt *= c;
            X = Xt;
            P = Pt;
            t_seg = x.t;
        }
        error = std::max({error, std::abs(x.q[0] - Xt), std::abs(x.v[0] - Pt)});
    }
    INFO("c = " << c);
    CHECK(error < 2e-7);
}

TEST_CASE("stiff HMM, dopri5: dense outputs on the closed form", "[stiff]") {
    LoadedModel m(compile(fast_slow));
    const double w = 1000.0;
    const double c = kernel_cosine(w), rc = std::sqrt(c);
    StiffHmmOptions o = options(w, StiffMacro::dopri5, 0.25);
    o.rtol = 1e-9;
    o.atol = 1e-12;
    State s = m.start();
    Recorded out;
    const StiffHmmStats stats = run_stiff_hmm(m.model, s, o, std::ref(out));
    REQUIRE(out.states.size() == 41);
    double error = 0.0;
    for (std::size_t k = 0; k < out.states.size(); ++k) {
        const State& x = out.states[k];
        CHECK(x.t == Approx(0.25 * static_cast<double>(k)).margin(1e-12));
        const double X = c * std::cos(rc * x.t) + c * 0.5 / rc * std::sin(rc * x.t);
        error = std::max(error, std::abs(x.q[0] - X));
    }
    CHECK(error < 1e-7);
    CHECK(stats.rejected_steps < stats.macro_steps);
    // FSAL: 6 estimates per accepted or rejected step, plus the starting step's 2
    CHECK(stats.force_estimates == 6 * (stats.macro_steps + stats.rejected_steps) + 2);

    // every accepted step as output at the paper's tolerances: few steps, error ~ rtol
    StiffHmmOptions loose = options(w, StiffMacro::dopri5, 0.0);
    s = m.start();
    Recorded steps;
    const StiffHmmStats loose_stats = run_stiff_hmm(m.model, s, loose, std::ref(steps));
    CHECK(steps.states.size() == loose_stats.macro_steps + 1);
    CHECK(loose_stats.macro_steps < 60);
    for (std::size_t k = 1; k < steps.states.size(); ++k) {
        CHECK(steps.states[k].t > steps.states[k - 1].t);
    }
    CHECK(steps.states.back().t == 10.0);
}

TEST_CASE("stiff HMM: options and failures", "[stiff]") {
    CHECK(parse_stiff_macro("rk4") == StiffMacro::rk4);
    CHECK(parse_stiff_macro("dopri5") == StiffMacro::dopri5);
    CHECK(to_string(StiffMacro::rk4) == "rk4");
    CHECK(to_string(StiffMacro::dopri5) == "dopri5");
    CHECK_THROWS_AS(parse_stiff_macro("verlet"), std::invalid_argument);

    LoadedModel m(compile(fast_slow));
    const auto run = [&](const StiffHmmOptions& o) {
        State s = m.start();
        run_stiff_hmm(m.model, s, o, [](const State&) {});
    };
    StiffHmmOptions o = options(1000.0, StiffMacro::rk4, 1.0 / 32);
    o.omega = 0.0;
    CHECK_THROWS_AS(run(o), std::invalid_argument);
    o = options(1000.0, StiffMacro::rk4, 0.3); // 10/0.3 is not whole
    CHECK_THROWS_AS(run(o), std::invalid_argument);
    o = options(1000.0, StiffMacro::rk4, 1.0 / 32);
    o.reproject_every = 0.1; // not a multiple of H
    CHECK_THROWS_AS(run(o), std::invalid_argument);

    // 3 micro steps per period: omega h = 2.1, Verlet unstable
    o = options(1000.0, StiffMacro::rk4, 1.0 / 32);
    o.micro_steps_per_period = 3;
    try {
        run(o);
        FAIL("no failure");
    } catch (const NumericalFailure& e) {
        CHECK(e.kind() == FailureKind::unresolved_fast_scale);
        CHECK(e.method() == "hmm-stiff");
        CHECK(e.time() == 0.0);
    }

    ShippedModel chain("pendulum_chain.mdl");
    State s = chain.start();
    CHECK_THROWS_AS(run_stiff_hmm(chain.model, s, options(1000.0, StiffMacro::rk4, 1.0 / 32),
                                  [](const State&) {}),
                    MethodNotApplicable);
}
