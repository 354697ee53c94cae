#include "runtime/integrators/rattle.hpp"

#include "../test_models.hpp"

#include <catch2/catch.hpp>

using namespace mdl::runtime;
using namespace mdl::runtime::test;

TEST_CASE("RATTLE converges with order 2 on the pendulum in Cartesian coordinates") {
    const std::vector<double> steps{0.04, 0.02, 0.01, 0.005};
    const auto errors = cartesian_pendulum_errors([](const Model& m) { return Rattle(m); }, steps);
    const double p = observed_order(steps, errors);
    INFO("observed order " << p << ", error at h = 0.005: " << errors.back());
    CHECK(std::abs(p - 2.0) < 0.1);
}

TEST_CASE("RATTLE keeps positions and velocities of the double pendulum on the constraints "
          "to round-off") {
    // g(q) = 0 to the Newton tolerance, set at 4 ulps of l1^2 = 1; G v = 0 is solved
    // exactly (a linear system), so it holds to round-off whatever the tolerance.
    const Model model = double_pendulum(1.0, 0.5, 1.0, 0.7, 9.81);
    SolverOptions options;
    options.constraint_tolerance = 1e-15;
    Rattle rattle(model, options);
    State s = double_pendulum_state(model, 1.2, -0.5, 0.0, 1.0);
    Vector g(2);
    Matrix G(2, 4);
    double position = 0.0, velocity = 0.0;
    integrate_fixed(rattle, s, 10.0, 0.005, [&](const State& x) {
        model.constraint(x.q, g);
        model.constraint_jacobian(x.q, G);
        position = std::max(position, g.cwiseAbs().maxCoeff());
        velocity = std::max(velocity, (G * x.v).cwiseAbs().maxCoeff());
    });
    INFO("largest |g| " << position << ", largest |G v| " << velocity);
    CHECK(position <= 1e-15);
    CHECK(velocity <= 1e-13); // |G| |v| ~ 10: a few ulps of the products summed
}

TEST_CASE("RATTLE's energy error on the double pendulum stays bounded over 1e5 steps") {
    const Model model = double_pendulum(1.0, 0.5, 1.0, 0.7, 9.81);
    Rattle rattle(model);
    State s = double_pendulum_state(model, 0.4, 0.2, 0.0, 0.0);
    const Vector none;
    const double e0 = model.energy(0.0, s.q, s.v, none);
    std::vector<double> windows(10, 0.0);
    for (std::size_t k = 0; k < long_run_steps; ++k) {
        rattle.step(s, 0.01);
        double& w = windows[k / (long_run_steps / 10)];
        w = std::max(w, std::abs(model.energy(s.t, s.q, s.v, none) - e0));
    }
    INFO("first " << windows.front() << " last " << windows.back() << " of E0 = " << e0);
    CHECK(windows.back() <= 1.1 * windows.front());
    CHECK(windows.back() < 1e-3 * std::abs(e0));
}

TEST_CASE("RATTLE is symmetric: steps of -h retrace steps of h") {
    const Model model = double_pendulum(1.0, 0.5, 1.0, 0.7, 9.81);
    SolverOptions options;
    options.constraint_tolerance = 1e-15;
    Rattle rattle(model, options);
    State s = double_pendulum_state(model, 0.6, 0.3, 0.5, -0.2);
    const State start = s;
    for (int k = 0; k < 100; ++k) {
        rattle.step(s, 0.01);
    }
    for (int k = 0; k < 100; ++k) {
        rattle.step(s, -0.01);
    }
    CHECK((s.q - start.q).cwiseAbs().maxCoeff() < 1e-12);
    CHECK((s.v - start.v).cwiseAbs().maxCoeff() < 1e-11);
}

TEST_CASE("RATTLE's multipliers hold a hanging pendulum: lambda = -m g / (2 l)") {
    const Model model = cartesian_pendulum(2.0, 0.5, 9.81);
    Rattle rattle(model);
    State s = cartesian_pendulum_start(model, 0.0);
    s.q[1] = -0.5;
    advance(rattle, s, 1.0, 0.01);
    CHECK(s.lambda[0] == Approx(-2.0 * 9.81 / (2.0 * 0.5)).epsilon(1e-12));
    CHECK(rattle.position_multipliers()[0] == Approx(-9.81 * 2.0).epsilon(1e-12));
}

TEST_CASE("RATTLE reports a singular constraint Jacobian naming the dependent constraint") {
    const Model model = cartesian_pendulum(1.0, 1.0, 1.0, /*duplicate=*/true);
    Rattle rattle(model);
    State s = cartesian_pendulum_start(model, 0.5);
    try {
        rattle.step(s, 0.01);
        FAIL("no failure reported");
    } catch (const NumericalFailure& e) {
        INFO(e.what());
        CHECK(e.kind() == FailureKind::singular_constraint_jacobian);
        CHECK(e.method() == "rattle");
        CHECK(e.where() == "constraint 'rod_again'");
        CHECK(e.time() == 0.0);
        CHECK(std::string(e.what()).find("linearly dependent") != std::string::npos);
    }
}
