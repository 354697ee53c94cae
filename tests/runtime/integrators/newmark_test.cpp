#include "runtime/integrators/newmark.hpp"

#include "../test_models.hpp"

#include <Eigen/Dense>
#include <catch2/catch.hpp>

using namespace mdl::runtime;
using namespace mdl::runtime::test;

namespace {
const auto make_newmark = [](const Model& m) {
    return Newmark(m);
};
const std::vector<double> steps{0.1, 0.05, 0.025, 0.0125};
} // namespace

TEST_CASE("Newmark converges with order 2 on the harmonic and the damped oscillator") {
    const double p = order_on_harmonic_oscillator(make_newmark, steps);
    INFO("harmonic: observed order " << p);
    CHECK(std::abs(p - 2.0) < 0.1);
    const double d = order_on_damped_oscillator(make_newmark, steps);
    INFO("damped: observed order " << d);
    CHECK(std::abs(d - 2.0) < 0.1);
}

TEST_CASE("a Newmark step solves M a1 = F(x0 + h v0 + h^2/4 (a0 + a1)) (Sect. 21.1)") {
    // On the linear chain F(x) = -K x the implicit equation is linear:
    // (M + h^2/4 K) a1 = -K (x0 + h v0 + h^2/4 a0), solved here with Eigen directly.
    const double m1 = 1.0, m2 = 2.0, k1 = 3.0, k2 = 50.0, h = 0.3;
    const Model model = two_frequency_chain(m1, m2, k1, k2);
    Eigen::Matrix2d M, K;
    M << m1, 0, 0, m2;
    K << k1 + k2, -k2, -k2, k2;
    const Eigen::Vector2d x0(0.3, -0.2), v0(0.5, 1.0);
    const Eigen::Vector2d a0 = M.inverse() * (-K * x0);
    const Eigen::Vector2d a1 = (M + h * h / 4 * K).lu().solve(-K * (x0 + h * v0 + h * h / 4 * a0));
    const Eigen::Vector2d x1 = x0 + h * v0 + h * h / 4 * (a0 + a1);
    const Eigen::Vector2d v1 = v0 + h / 2 * (a0 + a1);

    Newmark newmark(model);
    State s = model.zero_state();
    s.q = x0;
    s.v = v0;
    newmark.step(s, h);
    CHECK((s.q - x1).cwiseAbs().maxCoeff() < 1e-14);
    CHECK((s.v - v1).cwiseAbs().maxCoeff() < 1e-14);
    CHECK((newmark.acceleration() - a1).cwiseAbs().maxCoeff() < 1e-13);
    CHECK(newmark.newton_iterations() == 1); // a linear equation: one Newton update
}

TEST_CASE("Newmark conserves the energy of a linear undamped system, even at omega h = 100") {
    // The trapezoidal rule conserves the quadratic energy of x'' = -M^-1 K x exactly and is
    // unconditionally stable, so the stiff mode (omega ~ 1400, h = 0.1) stays bounded. In
    // floating point each step solves (I + h^2/4 M^-1 K) a = b with condition number
    // kappa = 1 + h^2/4 |M^-1 K| = 5001, so the energy may wander by ~ steps kappa eps.
    const Model model = two_frequency_chain(1.0, 1.0, 1.0, 1e6);
    Newmark newmark(model);
    State s = model.zero_state();
    s.q << 1.0, 1.001;
    const Vector none;
    const double e0 = model.energy(0.0, s.q, s.v, none);
    const int steps = 10000;
    double drift = 0.0;
    for (int k = 0; k < steps; ++k) {
        newmark.step(s, 0.1);
        drift = std::max(drift, std::abs(model.energy(s.t, s.q, s.v, none) - e0));
    }
    const double bound = steps * 5001.0 * std::numeric_limits<double>::epsilon() * e0;
    INFO("largest |E - E0| = " << drift << " of E0 = " << e0 << ", bound " << bound);
    CHECK(drift < bound);
    CHECK(std::abs(s.q[0]) < 2.0); // bounded
}

TEST_CASE("constrained Newmark: order 2 on the Cartesian pendulum, constraints to tolerance") {
    const std::vector<double> h{0.04, 0.02, 0.01, 0.005};
    const auto errors = cartesian_pendulum_errors(make_newmark, h);
    const double p = observed_order(h, errors);
    INFO("observed order " << p << ", error at h = 0.005: " << errors.back());
    CHECK(std::abs(p - 2.0) < 0.1);

    const Model model = double_pendulum(1.0, 0.5, 1.0, 0.7, 9.81);
    ImplicitOptions options;
    options.solver.constraint_tolerance = 1e-12;
    Newmark newmark(model, options);
    State s = double_pendulum_state(model, 1.2, -0.5, 0.0, 1.0);
    Vector g(2);
    Matrix G(2, 4);
    double position = 0.0, velocity = 0.0;
    integrate_fixed(newmark, s, 5.0, 0.005, [&](const State& x) {
        model.constraint(x.q, g);
        model.constraint_jacobian(x.q, G);
        position = std::max(position, g.cwiseAbs().maxCoeff());
        velocity = std::max(velocity, (G * x.v).cwiseAbs().maxCoeff());
    });
    INFO("largest |g| " << position << ", largest |G v| " << velocity);
    CHECK(position <= 1e-12);
    CHECK(velocity <= 1e-13); // projected velocities
}

TEST_CASE("constrained Newmark's multipliers hold a hanging pendulum: lambda = -m g / (2 l)") {
    const Model model = cartesian_pendulum(2.0, 0.5, 9.81);
    Newmark newmark(model);
    State s = cartesian_pendulum_start(model, 0.0);
    s.q[1] = -0.5;
    advance(newmark, s, 1.0, 0.01);
    CHECK(s.lambda[0] == Approx(-2.0 * 9.81 / (2.0 * 0.5)).epsilon(1e-10));
}

TEST_CASE("Newmark reports Newton non-convergence with the coordinate, time and method") {
    // q'' = exp(q) from rest at 0 with h = 2: a1 = exp(1 + a1) has no solution.
    const Model model = exponential_force();
    Newmark newmark(model);
    State s = model.zero_state();
    try {
        newmark.step(s, 2.0);
        FAIL("no failure reported");
    } catch (const NumericalFailure& e) {
        INFO(e.what());
        CHECK(
            (e.kind() == FailureKind::newton_not_converged || e.kind() == FailureKind::non_finite));
        CHECK(e.method() == "newmark");
        CHECK(e.where() == "q");
        CHECK(e.time() == 2.0);
    }
}
