#include "runtime/integrators/rattle.hpp"
#include "runtime/integrators/shake.hpp"

#include "../test_models.hpp"

#include <catch2/catch.hpp>

using namespace mdl::runtime;
using namespace mdl::runtime::test;

namespace {

double largest_velocity_residual(const Model& model, const State& s) {
    Matrix G(model.constraints(), model.positions());
    model.constraint_jacobian(s.q, G);
    return (G * s.v).cwiseAbs().maxCoeff();
}

double largest_residual(const Model& model, const State& s) {
    Vector g(model.constraints());
    model.constraint(s.q, g);
    return g.cwiseAbs().maxCoeff();
}

} // namespace

TEST_CASE("SHAKE converges with order 2 on the pendulum in Cartesian coordinates") {
    const std::vector<double> steps{0.04, 0.02, 0.01, 0.005};
    const auto errors = cartesian_pendulum_errors([](const Model& m) { return Shake(m); }, steps);
    const double p = observed_order(steps, errors);
    INFO("observed order " << p << ", error at h = 0.005: " << errors.back());
    CHECK(std::abs(p - 2.0) < 0.1);
}

TEST_CASE("SHAKE keeps the double pendulum on its constraints to the Newton tolerance") {
    const Model model = double_pendulum(1.0, 0.5, 1.0, 0.7, 9.81);
    for (double tolerance : {1e-6, 1e-10}) {
        SolverOptions options;
        options.constraint_tolerance = tolerance;
        Shake shake(model, options);
        State s = double_pendulum_state(model, 1.2, -0.5, 0.0, 1.0);
        double largest = 0.0;
        integrate_fixed(shake, s, 10.0, 0.005, [&](const State& x) {
            largest = std::max(largest, largest_residual(model, x));
        });
        INFO("tolerance " << tolerance << ": largest |g| " << largest);
        CHECK(largest <= tolerance);
    }
}

TEST_CASE("SHAKE and RATTLE compute the same positions (hmm-mechanical-vibrations 4.3)") {
    const Model model = double_pendulum(1.0, 0.5, 1.0, 0.7, 9.81);
    SolverOptions options;
    options.constraint_tolerance = 1e-14;
    Shake shake(model, options);
    Rattle rattle(model, options);
    State a = double_pendulum_state(model, 1.2, -0.5, 0.0, 1.0);
    State b = a;
    double largest = 0.0;
    for (int k = 0; k < 400; ++k) { // 2 s: before the chaotic motion amplifies round-off
        shake.step(a, 0.005);
        rattle.step(b, 0.005);
        largest = std::max(largest, (a.q - b.q).cwiseAbs().maxCoeff());
    }
    INFO("largest position difference " << largest);
    CHECK(largest < 1e-10);
}

TEST_CASE("SHAKE's velocities leave the tangent space at O(h^2), RATTLE's do not") {
    const Model model = double_pendulum(1.0, 0.5, 1.0, 0.7, 9.81);
    std::vector<double> violations;
    const std::vector<double> steps{0.01, 0.005, 0.0025};
    for (double h : steps) {
        Shake shake(model);
        State s = double_pendulum_state(model, 1.2, -0.5, 0.0, 1.0);
        double largest = 0.0;
        integrate_fixed(shake, s, 1.0, h, [&](const State& x) {
            largest = std::max(largest, largest_velocity_residual(model, x));
        });
        violations.push_back(largest);
    }
    const double p = observed_order(steps, violations);
    INFO("|G v| ~ h^" << p << ", at h = 0.01: " << violations.front());
    CHECK(std::abs(p - 2.0) < 0.2);
}

TEST_CASE("SHAKE's multipliers hold a hanging pendulum: lambda = -m g / (2 l)") {
    // At rest straight down, M q'' = f + G^T lambda = 0 with f = (0, -m g), G = (0, -2 l).
    const Model model = cartesian_pendulum(2.0, 0.5, 9.81);
    Shake shake(model);
    State s = cartesian_pendulum_start(model, 0.0);
    s.q[1] = -0.5;
    advance(shake, s, 1.0, 0.01);
    CHECK(s.lambda[0] == Approx(-2.0 * 9.81 / (2.0 * 0.5)).epsilon(1e-12));
    CHECK(std::abs(s.q[0]) < 1e-15);
    CHECK(std::abs(s.v[1]) < 1e-12);
}

TEST_CASE("SHAKE reports Newton non-convergence with the constraint, time and method") {
    // Pendulum of length 1 at the bottom moving sideways at speed 2 with h = 1: the free
    // position (2, -1.5) moved along the rod direction of the start never meets the circle.
    const Model model = cartesian_pendulum(1.0, 1.0, 1.0);
    Shake shake(model);
    State s = cartesian_pendulum_start(model, 0.0);
    s.v[0] = 2.0;
    try {
        shake.step(s, 1.0);
        FAIL("no failure reported");
    } catch (const NumericalFailure& e) {
        INFO(e.what());
        CHECK(e.kind() == FailureKind::newton_not_converged);
        CHECK(e.method() == "shake");
        CHECK(e.where() == "constraint 'rod'");
        CHECK(e.time() == 1.0);
    }
}

TEST_CASE("SHAKE refuses models without constraints") {
    const Model oscillator = harmonic_oscillator();
    CHECK_THROWS_AS(Shake(oscillator), MethodNotApplicable);
}
