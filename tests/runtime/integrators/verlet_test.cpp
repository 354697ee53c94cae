#include "runtime/integrators/rk4.hpp"
#include "runtime/integrators/verlet.hpp"

#include "../test_models.hpp"

#include <catch2/catch.hpp>

using namespace mdl::runtime;
using namespace mdl::runtime::test;

namespace {
const auto make_verlet = [](const Model& m) {
    return VelocityVerlet(m);
};
const std::vector<double> steps{0.1, 0.05, 0.025, 0.0125};
} // namespace

TEST_CASE("velocity Verlet converges with order 2 on the harmonic oscillator") {
    const double p = order_on_harmonic_oscillator(make_verlet, steps);
    INFO("observed order " << p);
    CHECK(std::abs(p - 2.0) < 0.1);
}

TEST_CASE("velocity Verlet keeps order 2 on the damped oscillator (implicit half kick)") {
    const double p = order_on_damped_oscillator(make_verlet, steps);
    INFO("observed order " << p);
    CHECK(std::abs(p - 2.0) < 0.1);
}

TEST_CASE("velocity Verlet's energy error stays bounded over 1e5 steps; RK4's drifts") {
    // The nonlinear pendulum from 1.5 rad, h = 0.1: a symplectic method's energy error
    // oscillates with a bounded amplitude (backward error analysis: it conserves a modified
    // energy), so the last tenth of the run shows the same largest error as the first.
    // The negative control shows that the check detects drift: RK4 is not symplectic and
    // its energy error grows steadily over the same run.
    const Model model = angle_pendulum();
    VelocityVerlet verlet(model);
    const auto verlet_windows = energy_error_by_window(verlet, model, 0.1, 100000, 10);
    INFO("verlet first " << verlet_windows.front() << " last " << verlet_windows.back());
    CHECK(verlet_windows.back() <= 1.05 * verlet_windows.front());
    CHECK(verlet_windows.back() < 1e-2); // O(h^2) amplitude, h^2 = 1e-2

    RungeKutta4 rk4(model);
    const auto rk4_windows = energy_error_by_window(rk4, model, 0.1, 100000, 10);
    INFO("rk4 first " << rk4_windows.front() << " last " << rk4_windows.back());
    CHECK(rk4_windows.back() > 5.0 * rk4_windows.front());
}

TEST_CASE("velocity Verlet integrates backwards in time (negative steps) and retraces its path") {
    // Symmetry: a step of -h undoes a step of h (up to round-off), the property HMM's
    // backward micro-integrations use (hmm-stiff-constrained).
    const Model model = angle_pendulum();
    VelocityVerlet verlet(model);
    State s = model.zero_state();
    s.q[0] = 1.0;
    s.v[0] = 0.3;
    const State start = s;
    for (int k = 0; k < 1000; ++k) {
        verlet.step(s, 0.01);
    }
    for (int k = 0; k < 1000; ++k) {
        verlet.step(s, -0.01);
    }
    CHECK(std::abs(s.t) < 1e-12);
    CHECK(std::abs(s.q[0] - start.q[0]) < 1e-12);
    CHECK(std::abs(s.v[0] - start.v[0]) < 1e-12);
}

TEST_CASE("velocity Verlet uses one force evaluation per step on velocity-free forces") {
    const Model model = harmonic_oscillator();
    VelocityVerlet verlet(model);
    State s = model.zero_state();
    s.q[0] = 1.0;
    advance(verlet, s, 1.0, 0.01);
    CHECK(verlet.force().evaluations() == 101); // the start plus one per step (FSAL)
}

TEST_CASE("velocity Verlet refuses first-order states and constraints") {
    const Model filtered = oscillator_with_filter(1.0);
    const Model pendulum = cartesian_pendulum(1, 1, 1);
    CHECK_THROWS_AS(VelocityVerlet(filtered), MethodNotApplicable);
    CHECK_THROWS_AS(VelocityVerlet(pendulum), MethodNotApplicable);
    try {
        VelocityVerlet verlet(filtered);
    } catch (const MethodNotApplicable& e) {
        CHECK(e.method() == "verlet");
        CHECK(std::string(e.what()).find("use rk4 or dopri5") != std::string::npos);
    }
}
