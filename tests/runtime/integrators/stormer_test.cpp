#include "runtime/integrators/stormer.hpp"
#include "runtime/integrators/verlet.hpp"

#include "../test_models.hpp"

#include <catch2/catch.hpp>

using namespace mdl::runtime;
using namespace mdl::runtime::test;

TEST_CASE("Stormer converges with order 2 on the harmonic oscillator") {
    const std::vector<double> steps{0.1, 0.05, 0.025, 0.0125};
    const double p = order_on_harmonic_oscillator([](const Model& m) { return Stormer(m); }, steps);
    INFO("observed order " << p);
    CHECK(std::abs(p - 2.0) < 0.1);
}

TEST_CASE("Stormer's recursion reproduces velocity Verlet's positions to round-off") {
    // With the Taylor start, x_{k+1} = 2 x_k - x_{k-1} + h^2 a_k is velocity Verlet written
    // as a two-step method: an independent check of both.
    const Model model = angle_pendulum();
    Stormer stormer(model);
    VelocityVerlet verlet(model);
    State a = model.zero_state(), b = model.zero_state();
    a.q[0] = b.q[0] = 1.2;
    double largest = 0.0;
    for (int k = 0; k < 10000; ++k) {
        stormer.step(a, 0.05);
        verlet.step(b, 0.05);
        largest = std::max({largest, std::abs(a.q[0] - b.q[0]), std::abs(a.v[0] - b.v[0])});
    }
    INFO("largest difference " << largest);
    CHECK(largest < 1e-9);
    CHECK(stormer.force().evaluations() == 10001);
}

TEST_CASE("Stormer's energy error stays bounded over 1e5 steps") {
    const Model model = angle_pendulum();
    Stormer stormer(model);
    const auto windows = energy_error_by_window(stormer, model, 0.1, 100000, 10);
    INFO("first " << windows.front() << " last " << windows.back());
    CHECK(windows.back() <= 1.05 * windows.front());
}

TEST_CASE("Stormer refuses a damped model, citing the GE3 instability") {
    const Model body = seated_human_body(seated_body_parameters());
    try {
        Stormer stormer(body);
        FAIL("a damped model was accepted");
    } catch (const MethodNotApplicable& e) {
        const std::string message = e.what();
        INFO(message);
        CHECK(e.method() == "stormer");
        CHECK(message.find("'SeatedHumanBody' depends on velocity") != std::string::npos);
        CHECK(message.find("unstable") != std::string::npos);
        CHECK(message.find("GE3") != std::string::npos);
        CHECK(message.find("Use verlet, newmark, galpha") != std::string::npos);
    }
    const Model damped = damped_oscillator(1, 0.1, 1);
    CHECK_THROWS_AS(Stormer(damped), MethodNotApplicable);
}

TEST_CASE("Stormer restarts from (q, v) when the step size changes") {
    const Model model = harmonic_oscillator();
    Stormer stormer(model);
    State s = model.zero_state();
    s.q[0] = 1.0;
    advance(stormer, s, 1.0, 0.01);
    advance(stormer, s, 2.0, 0.005); // halved step: a new Taylor start, still order 2
    double q = 0, v = 0;
    harmonic_solution(1.0, 1.0, 0.0, 2.0, q, v);
    CHECK(std::abs(s.q[0] - q) < 1e-4);
    CHECK(std::abs(s.v[0] - v) < 1e-4);
}
