// CompileOptions::relax_constraints (hmm-stiff-constrained Sect. 5): every constraint
// g(q) = 0 becomes the potential (omega^2/2) g^2 / (grad g^T M^-1 grad g), and the model has
// no constraints left. Checked against the force and potential derived by hand for the rods of
// models/pendulum_chain.mdl, with unequal masses so that the mass metric matters.
#include "mdl/compiled_model.hpp"

#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

using Catch::Detail::Approx;

namespace {

std::string model_path(const std::string& name) {
    return std::string(MDL_SOURCE_DIR) + "/models/" + name;
}

// A rod of length l between A and B (A the anchor at the origin when a < 0): g = |B - A|^2 -
// l^2, grad_B g = 2 (B - A) = -grad_A g, grad g^T M^-1 grad g = 4 s mu with s = |B - A|^2 and
// mu = 1/m_A + 1/m_B. U = omega^2/(8 mu) (s - l^2)^2 / s, dU/ds = omega^2/(8 mu) (s - l^2)
// (s + l^2)/s^2, the force on B is -2 dU/ds (B - A), on A the opposite.
struct Rod {
    int a, b; // body indices (a = -1: the anchor)
    double l;
};

void add_rod(const Rod& rod, const std::array<double, 3>& m, double omega,
             const std::vector<double>& q, std::vector<double>& f, double& U) {
    const double ax = rod.a < 0 ? 0.0 : q[2 * static_cast<std::size_t>(rod.a)];
    const double ay = rod.a < 0 ? 0.0 : q[2 * static_cast<std::size_t>(rod.a) + 1];
    const auto ib = 2 * static_cast<std::size_t>(rod.b);
    const double dx = q[ib] - ax, dy = q[ib + 1] - ay;
    const double s = dx * dx + dy * dy, l2 = rod.l * rod.l;
    const double mu = 1.0 / m[static_cast<std::size_t>(rod.b)] +
                      (rod.a < 0 ? 0.0 : 1.0 / m[static_cast<std::size_t>(rod.a)]);
    const double c = omega * omega / (8.0 * mu);
    U += c * (s - l2) * (s - l2) / s;
    const double dUds = c * (s - l2) * (s + l2) / (s * s);
    f[ib] -= 2.0 * dUds * dx;
    f[ib + 1] -= 2.0 * dUds * dy;
    if (rod.a >= 0) {
        const auto ia = 2 * static_cast<std::size_t>(rod.a);
        f[ia] += 2.0 * dUds * dx;
        f[ia + 1] += 2.0 * dUds * dy;
    }
}

} // namespace

TEST_CASE("relaxed constraints: the hand-derived stiff force of the pendulum chain") {
    const double omega = 700.0, g = 9.81;
    mdl::CompileOptions options;
    options.relax_constraints = omega;
    mdl::CompiledModel model = mdl::compile_file(model_path("pendulum_chain.mdl"), options);
    const std::array<double, 3> m = {2.0, 0.5, 1.5};
    model.set_parameter("m[1]", m[0]);
    model.set_parameter("m[2]", m[1]);
    model.set_parameter("m[3]", m[2]);
    model.set_parameter("l[2]", 0.8);

    CHECK(model.sizes().constraints == 0);
    CHECK(model.constraint_names().empty());
    CHECK(model.kernels().n_constraints == 0);
    REQUIRE(model.potential());
    REQUIRE(model.sizes().positions == 6); // p[1].x p[1].y ... p[3].y
    REQUIRE(model.position_names()[0] == "p[1].x");
    REQUIRE(model.position_names()[5] == "p[3].y");

    const std::vector<Rod> rods = {{-1, 0, 1.0}, {0, 1, 0.8}, {1, 2, 1.0}};
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-0.05, 0.05);
    for (int trial = 0; trial < 5; ++trial) {
        // near the rods' lengths (where the relaxation acts) and far from them
        const double spread = trial < 3 ? 1.0 : 10.0;
        std::vector<double> q = {0.6, -0.8, 1.3, -1.2, 2.2, -1.6};
        for (double& x : q) {
            x += spread * u(rng);
        }
        std::vector<double> v(6, 0.0), f(6), expected(6, 0.0);
        double U_expected = 0.0;
        for (std::size_t i = 0; i < 3; ++i) {
            expected[2 * i + 1] = -m[i] * g; // gravity
            U_expected += m[i] * g * q[2 * i + 1];
        }
        for (const Rod& rod : rods) {
            add_rod(rod, m, omega, q, expected, U_expected);
        }
        const auto args = model.args(0.0, q.data(), v.data());
        model.force()(args, f.data());
        double U = 0.0;
        model.potential()(args, &U);
        for (std::size_t i = 0; i < 6; ++i) {
            INFO("trial " << trial << ", force component " << i);
            CHECK(f[i] == Approx(expected[i]).epsilon(1e-11).margin(1e-9));
        }
        CHECK(U == Approx(U_expected).epsilon(1e-11).margin(1e-9));
    }
}

TEST_CASE("relaxed constraints: small oscillations across a rod have frequency omega") {
    // one body on a rod of length l from the origin, no gravity, mass m: radial stiffness
    // d^2U/dr^2 at r = l must be m omega^2 whatever m and l
    const char* const source = R"(
model Rod "a body on a rod"
  parameter Real m = 3;
  parameter Real l = 2;
  anchor O(x = 0, y = 0);
  body b(m = m, x(start = l), y(start = 0));
  constraint rod: b.x^2 + b.y^2 = l^2;
end Rod;
)";
    const double omega = 1000.0;
    mdl::CompileOptions options;
    options.relax_constraints = omega;
    mdl::CompiledModel model = mdl::compile(source, "rod.mdl", options);
    CHECK(model.sizes().constraints == 0);
    model.force_dq(); // the Jacobian kernel exists
    REQUIRE(model.force_dq());
    std::vector<double> q = {1.2, 1.6}, v = {0.0, 0.0}, K(4); // |q| = 2 = l
    model.force_dq()(model.args(0.0, q.data(), v.data()), K.data());
    // radial direction n = q/|q|: n^T (-df/dq) n = m omega^2
    const double nx = 0.6, ny = 0.8;
    const double radial = -(nx * (K[0] * nx + K[1] * ny) + ny * (K[2] * nx + K[3] * ny));
    CHECK(radial == Approx(3.0 * omega * omega).epsilon(1e-12));
    // no stiffness along the rod
    const double tangential = -(-ny * (K[0] * -ny + K[1] * nx) + nx * (K[2] * -ny + K[3] * nx));
    CHECK(tangential == Approx(0.0).margin(1e-6));

    mdl::CompiledModel kept = mdl::compile(source, "rod.mdl");
    CHECK(kept.sizes().constraints == 1);
    options.relax_constraints = -1.0;
    CHECK_THROWS_AS(mdl::compile(source, "rod.mdl", options), std::invalid_argument);
}
