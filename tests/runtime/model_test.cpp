#include "runtime/model.hpp"
#include "runtime/model_force.hpp"

#include "test_models.hpp"

#include <catch2/catch.hpp>
#include <cstring>

using namespace mdl::runtime;
using namespace mdl::runtime::test;

TEST_CASE("a model evaluates mass, acceleration, constraints and energy through its kernels") {
    const Model model = double_pendulum(2.0, 0.5, 1.0, 0.7, 9.81);
    CHECK(model.positions() == 4);
    CHECK(model.constraints() == 2);
    CHECK(model.mass() == Vector((Vector(4) << 2.0, 2.0, 0.5, 0.5).finished()));
    CHECK(model.conservative());
    CHECK(model.position_name(2) == "b2.x");
    CHECK(model.velocity_name(2) == "der(b2.x)");
    CHECK(model.constraint_name(1) == "rod2");

    const State s = double_pendulum_state(model, 0.3, -0.2, 0.5, 0.1);
    const Vector none;
    Vector a(4);
    model.acceleration(0.0, s.q, s.v, s.x, none, a);
    CHECK(a[1] == Approx(-9.81)); // gravity, without constraint forces
    Vector g(2);
    model.constraint(s.q, g);
    CHECK(g.cwiseAbs().maxCoeff() < 1e-15);
    // energy: kinetic 1/2 sum m v^2, potential g (m1 y1 + m2 y2), by hand
    const double kinetic =
        0.5 * 2.0 * s.v.head(2).squaredNorm() + 0.5 * 0.5 * s.v.tail(2).squaredNorm();
    const double potential = 9.81 * (2.0 * s.q[1] + 0.5 * s.q[3]);
    CHECK(model.energy(0.0, s.q, s.v, none) == Approx(kinetic + potential).epsilon(1e-15));
}

TEST_CASE("the curvature kernel is d/dt (G v) at constant v: a finite-difference check") {
    const Model model = double_pendulum(1.0, 1.0, 1.0, 0.7, 9.81);
    const State s = double_pendulum_state(model, 0.3, -0.2, 0.5, 0.1);
    Matrix G_plus(2, 4), G_minus(2, 4);
    const double d = 1e-6;
    model.constraint_jacobian(s.q + d * s.v, G_plus);
    model.constraint_jacobian(s.q - d * s.v, G_minus);
    const Vector expected = (G_plus - G_minus) * s.v / (2 * d);
    Vector c(2);
    model.curvature(s.q, s.v, c);
    CHECK((c - expected).cwiseAbs().maxCoeff() < 1e-8);
}

TEST_CASE("without Jacobian kernels the force Jacobians come from central differences") {
    // the seated body's kernels against the finite differences of its force
    SeatedBody p = seated_body_parameters();
    const Model with = seated_human_body(p);
    mdl_kernels kernels = with.kernels();
    kernels.force_dq = nullptr;
    kernels.force_dv = nullptr;
    const Model without(kernels, with.parameters());
    ModelForce exact(with), differenced(without);
    State s = with.zero_state();
    s.q << 0.01, -0.02, 0.03, 0.005;
    s.v << 0.1, 0.2, -0.1, 0.3;
    Matrix aq(4, 4), av(4, 4), dq(4, 4), dv(4, 4);
    exact.acceleration_jacobians(0.1, s.q, s.v, s.x, aq, av);
    differenced.acceleration_jacobians(0.1, s.q, s.v, s.x, dq, dv);
    CHECK((aq - dq).cwiseAbs().maxCoeff() < 1e-6 * aq.cwiseAbs().maxCoeff());
    CHECK((av - dv).cwiseAbs().maxCoeff() < 1e-6 * av.cwiseAbs().maxCoeff());
}

TEST_CASE("a model checks its kernel table and parameters") {
    mdl_kernels kernels = harmonic_oscillator().kernels();
    CHECK_THROWS_WITH(Model(kernels, {1.0}),
                      Catch::Contains("1 parameter values given, 2 expected"));
    CHECK_THROWS_WITH(Model(kernels, {-1.0, 1.0}, {"", {"q"}, {}, {}, {"m", "k"}}),
                      Catch::Contains("the mass of 'q' is -1"));
    kernels.force = nullptr;
    CHECK_THROWS_WITH(Model(kernels, {1.0, 1.0}), Catch::Contains("force kernels are missing"));
}

TEST_CASE("parameters are set by name, re-evaluating the mass; typos get a suggestion") {
    Model model = harmonic_oscillator(1.0, 4.0);
    model.set_parameter("m", 4.0);
    CHECK(model.mass()[0] == 4.0);
    CHECK_THROWS_WITH(model.set_parameter("kk", 1.0), "unknown parameter 'kk'; did you mean 'k'?");
}

TEST_CASE("model forces evaluate vibrations at the model's phase or from a given origin") {
    // A model with one vibration theta = omega t + c whose force is cos(theta).
    mdl_kernels kernels;
    std::memset(&kernels, 0, sizeof kernels);
    kernels.n_positions = 1;
    kernels.n_vibrations = 1;
    kernels.n_parameters = 2; // omega, c
    kernels.mass = [](const mdl_kernel_args*, double* out) {
        out[0] = 1.0;
    };
    kernels.force = [](const mdl_kernel_args* a, double* out) {
        out[0] = std::cos(a->theta[0]);
    };
    kernels.phase = [](const mdl_kernel_args* a, double* out) {
        out[0] = a->p[0] * a->t + a->p[1];
    };
    kernels.phase_rate = [](const mdl_kernel_args* a, double* out) {
        out[0] = a->p[0];
    };
    const Model model(kernels, {100.0, 0.5});
    ModelForce force(model);
    const Vector q = Vector::Zero(1), none;
    Vector a(1);
    force.acceleration(0.02, q, q, none, a);
    CHECK(a[0] == Approx(std::cos(100.0 * 0.02 + 0.5)));
    // asynchronous HMM: phase 0 at t = 7, whatever the model's phase there
    force.set_phase_origin(7.0, Vector::Zero(1));
    force.acceleration(7.01, q, q, none, a);
    CHECK(a[0] == Approx(std::cos(100.0 * 0.01)));
    force.use_model_phases();
    force.acceleration(7.01, q, q, none, a);
    CHECK(a[0] == Approx(std::cos(100.0 * 7.01 + 0.5)));
    CHECK(force.evaluations() == 3);
}
