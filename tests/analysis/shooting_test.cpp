// Periodic orbits by shooting (runtime/analysis/shooting.hpp) against closed forms: the
// linear forced damped oscillator's steady response, the van der Pol limit cycle's period
// (published) and its multiplier by Liouville's formula from an RK4 written here, and the
// reciprocal multipliers of an undamped (Hamiltonian) forced orbit.
#include "runtime/analysis/shooting.hpp"
#include "runtime/numerical_failure.hpp"
#include "shipped_model.hpp"

#include <Eigen/LU>
#include <catch2/catch.hpp>

#include <cmath>
#include <complex>

using mdl::runtime::Vector;
using mdl::runtime::analysis::Flow;
using mdl::runtime::analysis::PeriodicOrbit;

namespace {

constexpr double pi = 3.14159265358979323846;

mdl::test::LoadedModel load(const char* source) {
    return mdl::test::LoadedModel(mdl::compile(source, "<test>"));
}

} // namespace

TEST_CASE("the forced damped linear oscillator's periodic orbit is its closed-form response",
          "[analysis][shooting]") {
    auto loaded = load(R"(
model Forced
  parameter Real k = 4; parameter Real c = 0.3; parameter Real F = 0.7;
  parameter Real Omega = 1.7;
  vibration drive(theta = Omega*time) = cos(theta);
  coordinate x(start = 0, m = 1);
  potential U = k/2*x^2;
  force f(x) = -c*der(x) + F*drive;
end Forced;
)");
    const double k = 4, c = 0.3, F = 0.7, W = 1.7, T = 2 * pi / W;
    Flow flow(loaded.model);
    Vector q = Vector::Zero(1), v = Vector::Zero(1);
    const PeriodicOrbit orbit = mdl::runtime::analysis::shoot_forced(flow, 0.0, T, q, v);
    // x = X cos(W t - phi), X = F/sqrt((k - W^2)^2 + (c W)^2), tan phi = c W/(k - W^2)
    const double X = F / std::hypot(k - W * W, c * W), phi = std::atan2(c * W, k - W * W);
    CHECK(std::abs(orbit.q[0] - X * std::cos(phi)) < 1e-11);
    CHECK(std::abs(orbit.v[0] - X * W * std::sin(phi)) < 1e-11);
    // multipliers exp((-c/2 +- i wd) T): modulus exp(-c T/2)
    REQUIRE(orbit.floquet.multipliers.size() == 2);
    for (const auto& mu : orbit.floquet.multipliers) {
        CHECK(std::abs(std::abs(mu) - std::exp(-c * T / 2)) < 1e-11);
    }
    CHECK(orbit.floquet.stable);
    CHECK(orbit.iterations <= 2); // linear: one Newton step solves it
}

TEST_CASE("the van der Pol limit cycle: the published period, Liouville's multiplier",
          "[analysis][shooting]") {
    auto loaded = load(R"(
model VanDerPol
  parameter Real mu = 1;
  coordinate x(start = 2, m = 1);
  potential U = x^2/2;
  force f(x) = mu*(1 - x^2)*der(x);
end VanDerPol;
)");
    Flow flow(loaded.model);
    Vector q(1), v(1);
    q << 2.0;
    v << 0.0;
    const double guess = mdl::runtime::analysis::return_time(flow, q, v);
    CHECK(guess == Approx(6.66).epsilon(0.05));
    const PeriodicOrbit orbit = mdl::runtime::analysis::shoot_autonomous(flow, guess, q, v);
    // T(mu = 1) = 6.6632868593231301896... (e.g. Strogatz; computed to many digits by
    // Bulirsch-Stoer in the literature)
    CHECK(std::abs(orbit.period - 6.663286859323130) < 1e-9);
    CHECK(orbit.floquet.trivial >= 0);
    CHECK(std::abs(orbit.floquet.multipliers[static_cast<std::size_t>(orbit.floquet.trivial)] -
                   1.0) < 1e-8);
    // Liouville: det Phi = exp(int_0^T mu (1 - x^2) dt), by an RK4 in the test along the orbit
    const auto field = [](const Eigen::Vector3d& y) {
        return Eigen::Vector3d(y[1], (1 - y[0] * y[0]) * y[1] - y[0], 1 - y[0] * y[0]);
    };
    Eigen::Vector3d y(orbit.q[0], orbit.v[0], 0.0);
    const int steps = 20000;
    const double h = orbit.period / steps;
    for (int i = 0; i < steps; ++i) {
        const Eigen::Vector3d k1 = field(y), k2 = field(y + h / 2 * k1), k3 = field(y + h / 2 * k2),
                              k4 = field(y + h * k3);
        y += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
    }
    CHECK(std::abs(y[0] - orbit.q[0]) < 1e-9); // the test's own flow closes the orbit
    CHECK(std::abs(y[1] - orbit.v[0]) < 1e-9);
    const double product = std::exp(y[2]);
    CHECK(orbit.floquet.max_modulus == Approx(product).epsilon(1e-8));
    CHECK(orbit.floquet.stable);
}

TEST_CASE("an undamped forced Duffing orbit's multipliers are a reciprocal pair",
          "[analysis][shooting][floquet]") {
    auto loaded = load(R"(
model UndampedDuffing
  parameter Real F = 0.18; parameter Real Omega = 0.8;
  vibration drive(theta = Omega*time) = cos(theta);
  coordinate x(start = 0, m = 1);
  potential U = x^2/2 + 0.1/4*x^4;
  force f(x) = F*drive;
end UndampedDuffing;
)");
    Flow flow(loaded.model);
    const Vector zero = Vector::Zero(1);
    const PeriodicOrbit orbit =
        mdl::runtime::analysis::shoot_forced(flow, 0.0, 2 * pi / 0.8, zero, zero);
    const auto& mu = orbit.floquet.multipliers;
    REQUIRE(mu.size() == 2);
    CHECK(std::abs(mu[0] * mu[1] - 1.0) < 1e-11);
    CHECK(std::abs(orbit.phi.determinant() - 1.0) < 1e-11);
    CHECK(orbit.floquet.marginal);
}

TEST_CASE("Newton's failure names the iterations, the residual and the parameters",
          "[analysis][shooting]") {
    auto loaded = load(R"(
model Duffing
  parameter Real c = 0.05; parameter Real F = 0.18; parameter Real Omega = 1.2;
  vibration drive(theta = Omega*time) = cos(theta);
  coordinate x(start = 0, m = 1);
  potential U = x^2/2 + 0.1/4*x^4;
  force f(x) = -c*der(x) + F*drive;
end Duffing;
)");
    Flow flow(loaded.model);
    Vector q(1), v(1);
    q << 3.0;
    v << 1.0;
    mdl::runtime::analysis::ShootingOptions options;
    options.max_iterations = 1;
    CHECK_THROWS_WITH(mdl::runtime::analysis::shoot_forced(flow, 0.0, 2 * pi / 1.2, q, v, options),
                      Catch::Contains("did not converge in 1 iterations") &&
                          Catch::Contains("residual") && Catch::Contains("Omega = 1.2"));
    // a flow that blows up within the period: the integrator's failure, with the parameters
    auto runaway = load(R"(
model Runaway
  parameter Real a = 1;
  vibration drive(theta = time) = cos(theta);
  coordinate x(start = 0, m = 1);
  potential U = -a*x^4;
  force f(x) = drive;
end Runaway;
)");
    Flow runaway_flow(runaway.model);
    CHECK_THROWS_WITH(mdl::runtime::analysis::shoot_forced(runaway_flow, 0.0, 2 * pi, q, v),
                      Catch::Contains("a = 1") && Catch::Contains("x"));
}
