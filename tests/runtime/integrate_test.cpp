#include "runtime/integrate.hpp"
#include "runtime/integrators/cvode.hpp"
#include "runtime/integrators/rattle.hpp"
#include "runtime/integrators/verlet.hpp"
#include "runtime/methods.hpp"
#include "runtime/run.hpp"

#include "test_models.hpp"

#include <catch2/catch.hpp>
#include <numbers>

using namespace mdl::runtime;
using namespace mdl::runtime::test;

TEST_CASE("the fixed-step driver visits t0 + k h and ends exactly at t_end") {
    const Model model = harmonic_oscillator();
    VelocityVerlet verlet(model);
    State s = model.zero_state();
    s.q[0] = 1.0;
    std::vector<double> times;
    const auto stats =
        integrate_fixed(verlet, s, 1.0, 0.3, [&](const State& x) { times.push_back(x.t); });
    REQUIRE(times.size() == 5);
    CHECK(times[0] == 0.0);
    CHECK(times[1] == 0.3);
    CHECK(times[3] == Approx(0.9).epsilon(1e-15));
    CHECK(times[4] == 1.0); // the last step shortened to 0.1
    CHECK(stats.steps == 4);

    // 0.1 does not divide 1 in binary, but 10 steps of ~0.1 end at 1 without an 11th step
    times.clear();
    s = model.zero_state();
    integrate_fixed(verlet, s, 1.0, 0.1, [&](const State& x) { times.push_back(x.t); });
    CHECK(times.size() == 11);
    CHECK(std::abs(times.back() - 1.0) < 1e-15);
}

TEST_CASE("the driver integrates backwards when t_end < t0") {
    const Model model = harmonic_oscillator();
    VelocityVerlet verlet(model);
    State s = model.zero_state();
    s.q[0] = 1.0;
    integrate_fixed(verlet, s, -2.0, 0.001, [](const State&) {});
    double q = 0, v = 0;
    harmonic_solution(1.0, 1.0, 0.0, -2.0, q, v);
    CHECK(s.t == -2.0);
    CHECK(std::abs(s.q[0] - q) < 1e-6);
}

TEST_CASE("a NaN is reported with its time, variable and method, after the good states") {
    // q1'' = -q1, q2'' = sqrt(q1): q1 = cos t < 0 after pi/2, and the acceleration of q2
    // evaluated at the end of that step makes der(q2) NaN.
    const Model model = square_root_of_cosine();
    VelocityVerlet verlet(model);
    State s = model.zero_state();
    s.q[0] = 1.0;
    const double h = 0.01;
    double last_good = -1.0;
    try {
        integrate_fixed(verlet, s, 3.0, h, [&](const State& x) { last_good = x.t; });
        FAIL("no failure reported");
    } catch (const NumericalFailure& e) {
        INFO(e.what());
        const double expected = std::ceil(std::numbers::pi / 2 / h) * h; // first step past pi/2
        CHECK(e.kind() == FailureKind::non_finite);
        CHECK(e.method() == "verlet");
        CHECK(e.where() == "der(q2)");
        CHECK(e.time() == Approx(expected).epsilon(1e-12));
        CHECK(last_good == Approx(expected - h).epsilon(1e-12));
        CHECK(std::string(e.what()).rfind("verlet: non-finite value at t = 1.58 in der(q2)", 0) ==
              0);
    }
}

TEST_CASE("the fixed-point kick reports non-convergence for a step too large for the damping") {
    // m q'' = -k q - c v with h c / (2 m) = 5 > 1: the implicit half kick cannot converge.
    const Model model = damped_oscillator(1.0, 100.0, 1.0);
    VelocityVerlet verlet(model);
    State s = model.zero_state();
    s.q[0] = 1.0;
    try {
        verlet.step(s, 0.1);
        FAIL("no failure reported");
    } catch (const NumericalFailure& e) {
        INFO(e.what());
        CHECK(e.kind() == FailureKind::newton_not_converged);
        CHECK(e.method() == "verlet");
        CHECK(e.where() == "der(q)");
        CHECK(e.time() == 0.0);
    }
}

TEST_CASE("methods are found by name, with suggestions for typos") {
    CHECK(find_method("rattle") == Method::rattle);
    CHECK(find_method("generalized-alpha") == Method::galpha);
    CHECK_FALSE(find_method("rk5").has_value());
    CHECK(unknown_method_message("rk5").rfind("unknown method 'rk5'; did you mean 'rk4'?", 0) == 0);
    CHECK(methods().size() == (cvode_available() ? 12 : 9)); // cvode-adams, cvode-bdf, ida
}

TEST_CASE("each method states what it cannot integrate, before the first step") {
    const Model damped = damped_oscillator(1.0, 0.1, 1.0);
    const Model constrained = cartesian_pendulum(1.0, 1.0, 1.0);
    const Model filtered = oscillator_with_filter(1.0);
    CHECK_THROWS_AS(require_applicable(Method::stormer, damped), MethodNotApplicable);
    CHECK_NOTHROW(require_applicable(Method::verlet, damped));
    CHECK_NOTHROW(require_applicable(Method::dopri5, constrained)); // projects
    CHECK_THROWS_AS(require_applicable(Method::verlet, constrained), MethodNotApplicable);
    CHECK_NOTHROW(require_applicable(Method::galpha, constrained));
    CHECK_THROWS_AS(require_applicable(Method::rattle, damped), MethodNotApplicable);
    CHECK_THROWS_AS(require_applicable(Method::newmark, filtered), MethodNotApplicable);
    CHECK_NOTHROW(require_applicable(Method::rk4, filtered));
    CHECK(default_method(constrained) == Method::rattle);
    CHECK(default_method(filtered) == Method::dopri5);
    CHECK(default_method(harmonic_oscillator()) == Method::verlet);
}

TEST_CASE("run() integrates with any method chosen by name to the same solution") {
    const Model model = harmonic_oscillator();
    for (const MethodInfo& m : methods()) {
        if (m.method == Method::shake || m.method == Method::rattle) {
            continue; // they need constraints
        }
        RunSettings settings;
        settings.method = m.method;
        settings.stop_time = 2.0;
        settings.step = 1e-3;
        settings.adaptive.rtol = settings.adaptive.atol = 1e-10;
        State s = model.zero_state();
        s.q[0] = 1.0;
        std::size_t outputs = 0;
        const auto stats = run(model, s, settings, [&](const State&) { ++outputs; });
        INFO(m.name);
        CHECK(s.t == 2.0);
        CHECK(std::abs(s.q[0] - std::cos(2.0)) < 1e-6);
        CHECK(outputs == stats.outputs);
        CHECK(outputs == 2001); // every 1e-3, dense output for dopri5
        CHECK(stats.force_evaluations >=
              (m.method == Method::dopri5 ? 6 * stats.steps : stats.steps));
    }
    const Model pendulum = cartesian_pendulum(1.0, 1.0, 1.0);
    for (Method method : {Method::shake, Method::rattle, Method::newmark, Method::galpha}) {
        RunSettings settings;
        settings.method = method;
        settings.stop_time = 5.0;
        settings.step = 0.005;
        State s = cartesian_pendulum_start(pendulum, 1.0);
        run(pendulum, s, settings, [](const State&) {});
        const State reference = cartesian_pendulum_reference(pendulum, 1.0, 5.0);
        INFO(info(method).name);
        CHECK((s.q - reference.q).cwiseAbs().maxCoeff() < 1e-4);
    }
}
