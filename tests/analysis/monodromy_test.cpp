// The monodromy matrix from the variational equations (runtime/analysis/monodromy.hpp)
// against independent computations: the matrix exponential of a linear system's own matrix
// (Eigen's MatrixFunctions), a classical RK4 written here with difference quotients of its
// end state, and the symplectic structure of a conservative system's flow.
#include "runtime/analysis/floquet.hpp"
#include "runtime/analysis/forcing_period.hpp"
#include "runtime/analysis/monodromy.hpp"
#include "runtime/numerical_failure.hpp"
#include "shipped_model.hpp"

#include <catch2/catch.hpp>
#include <unsupported/Eigen/MatrixFunctions>

#include <cmath>
#include <complex>

using mdl::runtime::Matrix;
using mdl::runtime::Vector;
using mdl::runtime::analysis::Flow;
using mdl::runtime::analysis::FlowEnd;

namespace {

constexpr double pi = 3.14159265358979323846;

mdl::test::LoadedModel load(const char* source) {
    return mdl::test::LoadedModel(mdl::compile(source, "<test>"));
}

// Two masses on springs with dampers, the first one driven: a linear system.
const char* linear_chain = R"(
model LinearChain
  parameter Real m1 = 1; parameter Real m2 = 2;
  parameter Real k1 = 2; parameter Real k2 = 1.5;
  parameter Real c1 = 0.1; parameter Real c2 = 0.05;
  parameter Real F = 0.3; parameter Real Omega = 1.3;
  coordinate x1(start = 0.1, m = m1);
  coordinate x2(start = -0.2, m = m2);
  potential U = k1/2*x1^2 + k2/2*(x2 - x1)^2;
  force d1(x1) = -c1*der(x1) + c2*(der(x2) - der(x1)) + F*cos(Omega*time);
  force d2(x2) = -c2*(der(x2) - der(x1));
end LinearChain;
)";

// x'' + 0.05 x' + x + 0.1 x^3 = 0.18 cos(Omega t), the drive as a vibration (its period).
const char* duffing = R"(
model Duffing
  parameter Real c = 0.05; parameter Real beta = 0.1; parameter Real F = 0.18;
  parameter Real Omega = 1.2;
  vibration drive(theta = Omega*time) = cos(theta);
  coordinate x(start = 0.5, m = 1);
  potential U = x^2/2 + beta/4*x^4;
  force f(x) = -c*der(x) + F*drive;
end Duffing;
)";

// The test's own Duffing field and a classical RK4 with n steps.
Eigen::Vector2d duffing_field(double t, const Eigen::Vector2d& y, double omega) {
    return {y[1], -0.05 * y[1] - y[0] - 0.1 * y[0] * y[0] * y[0] + 0.18 * std::cos(omega * t)};
}

Eigen::Vector2d rk4(Eigen::Vector2d y, double t0, double T, int n, double omega) {
    const double h = T / n;
    for (int i = 0; i < n; ++i) {
        const double t = t0 + i * h;
        const Eigen::Vector2d k1 = duffing_field(t, y, omega);
        const Eigen::Vector2d k2 = duffing_field(t + h / 2, y + h / 2 * k1, omega);
        const Eigen::Vector2d k3 = duffing_field(t + h / 2, y + h / 2 * k2, omega);
        const Eigen::Vector2d k4 = duffing_field(t + h, y + h * k3, omega);
        y += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
    }
    return y;
}

} // namespace

TEST_CASE("the monodromy matrix of a linear system is the exponential of its matrix",
          "[analysis][monodromy]") {
    auto loaded = load(linear_chain);
    // y' = A y + b(t) with the test's own A
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(4, 4);
    A(0, 2) = A(1, 3) = 1;
    const double m1 = 1, m2 = 2, k1 = 2, k2 = 1.5, c1 = 0.1, c2 = 0.05;
    A(2, 0) = -(k1 + k2) / m1;
    A(2, 1) = k2 / m1;
    A(3, 0) = k2 / m2;
    A(3, 1) = -k2 / m2;
    A(2, 2) = -(c1 + c2) / m1;
    A(2, 3) = c2 / m1;
    A(3, 2) = c2 / m2;
    A(3, 3) = -c2 / m2;
    for (const double T : {0.7, 2 * pi / 1.3, 9.0}) {
        Flow flow(loaded.model);
        Vector q(2), v(2);
        q << 0.1, -0.2;
        v << 0.3, 0.05;
        const FlowEnd end = flow.monodromy(0.4, q, v, T);
        const Eigen::MatrixXd expected = (A * T).exp();
        const Eigen::MatrixXd phi = end.phi;
        CHECK((phi - expected).cwiseAbs().maxCoeff() < 1e-11 * expected.cwiseAbs().maxCoeff());
    }
}

TEST_CASE("the Duffing flow and its monodromy agree with an RK4 written in the test",
          "[analysis][monodromy]") {
    auto loaded = load(duffing);
    const double omega = 1.2, T = 2 * pi / omega;
    Flow flow(loaded.model);
    Vector q(1), v(1);
    q << 1.3;
    v << -0.4;
    const FlowEnd end = flow.monodromy(0.0, q, v, T);
    const Eigen::Vector2d y0(1.3, -0.4);
    const Eigen::Vector2d reference = rk4(y0, 0.0, T, 40000, omega);
    CHECK(std::abs(end.q[0] - reference[0]) < 1e-10 * std::abs(reference[0]));
    CHECK(std::abs(end.v[0] - reference[1]) < 1e-10 * std::max(1.0, std::abs(reference[1])));
    // central differences of the test's RK4 map: error O(delta^2) + round-off/delta
    const double delta = 1e-5;
    for (int j = 0; j < 2; ++j) {
        Eigen::Vector2d e = Eigen::Vector2d::Zero();
        e[j] = delta;
        const Eigen::Vector2d column =
            (rk4(y0 + e, 0.0, T, 4000, omega) - rk4(y0 - e, 0.0, T, 4000, omega)) / (2 * delta);
        for (int i = 0; i < 2; ++i) {
            CHECK(std::abs(end.phi(i, j) - column[i]) < 1e-7 * std::max(1.0, std::abs(column[i])));
        }
    }
    // (v, a) at the end: the test's field at the end state
    const Eigen::Vector2d rate = duffing_field(T, reference, omega);
    CHECK(std::abs(end.rate[0] - rate[0]) < 1e-9);
    CHECK(std::abs(end.rate[1] - rate[1]) < 1e-9);
}

TEST_CASE("a conservative system's monodromy is symplectic: multipliers in reciprocal pairs",
          "[analysis][monodromy][floquet]") {
    // Hénon–Heiles with unit masses: (q, p = v) canonical, so Phi^T J Phi = J
    auto loaded = load(R"(
model HenonHeiles
  coordinate x(start = 0.1, m = 1);
  coordinate y(start = 0.2, m = 1);
  potential U = (x^2 + y^2)/2 + x^2*y - y^3/3;
end HenonHeiles;
)");
    Flow flow(loaded.model);
    Vector q(2), v(2);
    q << 0.1, 0.2;
    v << 0.3, -0.15;
    const FlowEnd end = flow.monodromy(0.0, q, v, 17.0);
    Eigen::MatrixXd J = Eigen::MatrixXd::Zero(4, 4);
    J.topRightCorner(2, 2).setIdentity();
    J.bottomLeftCorner(2, 2) = -Eigen::MatrixXd::Identity(2, 2);
    const Eigen::MatrixXd phi = end.phi;
    CHECK((phi.transpose() * J * phi - J).cwiseAbs().maxCoeff() < 1e-9);
    CHECK(std::abs(phi.determinant() - 1.0) < 1e-10);
    const auto floquet = mdl::runtime::analysis::floquet_multipliers(end.phi, false);
    // each multiplier's reciprocal is also a multiplier
    for (const std::complex<double>& mu : floquet.multipliers) {
        double closest = INFINITY;
        for (const std::complex<double>& other : floquet.multipliers) {
            closest = std::min(closest, std::abs(mu * other - 1.0));
        }
        CHECK(closest < 1e-8);
    }
}

TEST_CASE("models the variational equations do not cover are refused with the reason",
          "[analysis][monodromy]") {
    auto constrained = load(R"(
model Pendulum
  body b(m = 1, x(start = 1), y(start = 0));
  constraint rod: b.x^2 + b.y^2 = 1;
  gravity G(y = -9.81);
end Pendulum;
)");
    CHECK_THROWS_WITH(Flow(constrained.model),
                      Catch::Contains("constraints") && Catch::Contains("not supported"));
    auto inertia = load(R"(
model Cart
  parameter Real l = 1;
  coordinate th(start = 0.1);
  kinetic T = (1 + sin(th)^2)*der(th)^2/2;
  potential U = -cos(th);
end Cart;
)");
    CHECK_THROWS_WITH(Flow(inertia.model), Catch::Contains("d(M(q) a)/dq"));
}

TEST_CASE("the forcing period comes from the vibrations or must be given",
          "[analysis][monodromy]") {
    using mdl::runtime::analysis::forcing_period;
    auto driven = load(duffing);
    CHECK(forcing_period(driven.model, "periodic") == Approx(2 * pi / 1.2).epsilon(1e-14));
    driven.model.set_parameter("Omega", 0.8);
    CHECK(forcing_period(driven.model, "periodic") == Approx(2 * pi / 0.8).epsilon(1e-14));
    auto explicit_time = load(linear_chain);
    CHECK_THROWS_WITH(forcing_period(explicit_time.model, "periodic"), Catch::Contains("--period"));
    CHECK(forcing_period(explicit_time.model, "periodic", 2.5) == 2.5);
}
