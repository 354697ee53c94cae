// Kinetic energy declarations (`kinetic T = ...`): the mass matrix M(q) = d2T/dv2 and
// Lagrange's velocity terms derived by the compiler, against the textbook double pendulum;
// the joint-angle double pendulum (models/double_pendulum_angles.mdl) against the Cartesian
// one with rod constraints (models/double_pendulum.mdl), integrated by different methods in
// different coordinates; the single pendulum from its kinetic energy against its analytic
// period; and the methods that assume a constant diagonal mass refusing M(q).
#include "mdl.h"
#include "mdl/compiled_model.hpp"
#include "runtime/integrators/cvode.hpp"
#include "runtime/methods.hpp"
#include "runtime/model_force.hpp"
#include "runtime/multiscale/applicability.hpp"
#include "runtime/numerical_failure.hpp"
#include "runtime/run.hpp"
#include "shipped_model.hpp"

#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>
#include <random>

using namespace mdl;
using Catch::Detail::Approx;

namespace {

struct DoublePendulum {
    double m1 = 0.01, m2 = 0.005, l1 = 0.2, l2 = 0.1, g = 9.8;
};

// The bobs' Cartesian positions and velocities (x1, y1, x2, y2) from the joint angles
// (q1, q2 from the upward vertical).
Eigen::Vector4d bob_positions(const DoublePendulum& p, const runtime::Vector& q) {
    const double x1 = p.l1 * std::sin(q[0]), y1 = p.l1 * std::cos(q[0]);
    return {x1, y1, x1 + p.l2 * std::sin(q[1]), y1 + p.l2 * std::cos(q[1])};
}

Eigen::Vector4d bob_velocities(const DoublePendulum& p, const runtime::Vector& q,
                               const runtime::Vector& v) {
    const double vx1 = p.l1 * std::cos(q[0]) * v[0], vy1 = -p.l1 * std::sin(q[0]) * v[0];
    return {vx1, vy1, vx1 + p.l2 * std::cos(q[1]) * v[1], vy1 - p.l2 * std::sin(q[1]) * v[1]};
}

runtime::State run_to(const runtime::Model& model, runtime::State state,
                      runtime::RunSettings settings) {
    runtime::run(model, state, settings, [](const runtime::State&) {});
    return state;
}

runtime::RunSettings settings_for(runtime::Method method, double stop, double step) {
    runtime::RunSettings s;
    s.method = method;
    s.stop_time = stop;
    s.step = step;
    s.adaptive.rtol = 1e-12;
    s.adaptive.atol = 1e-14;
    s.solver.constraint_tolerance = 1e-14;
    return s;
}

} // namespace

TEST_CASE("double pendulum in joint angles: M(q) and forces are the textbook ones") {
    // Goldstein, Poole & Safko, Classical Mechanics, sect. 1.6, for absolute angles from the
    // upward vertical and the potential (m1 y1 + m2 y2)(g + a):
    //   M = [(m1 + m2) l1^2, m2 l1 l2 c; m2 l1 l2 c, m2 l2^2], c = cos(q1 - q2),
    //   f1 = -m2 l1 l2 s q2'^2 + (m1 + m2)(g + a) l1 sin q1,
    //   f2 = +m2 l1 l2 s q1'^2 + m2 (g + a) l2 sin q2, s = sin(q1 - q2).
    CompiledModel model = compile_file(test::shipped_model_path("double_pendulum_angles.mdl"));
    CHECK_FALSE(model.mass_constant());
    CHECK_FALSE(model.mass_diagonal());
    REQUIRE(model.mass_matrix());
    const DoublePendulum p;
    const double vmax = 4, omega = 1e4;
    std::mt19937_64 rng(23);
    std::uniform_real_distribution<double> u(-2.0, 2.0);
    for (int trial = 0; trial < 10; ++trial) {
        const std::vector<double> q{u(rng), u(rng)}, v{u(rng), u(rng)};
        const std::vector<double> theta{u(rng)};
        const auto args = model.args(0.0, q.data(), v.data(), nullptr, theta.data());
        std::vector<double> M(4), f(2), mass(2);
        model.mass_matrix()(args, M.data());
        model.force()(args, f.data());
        model.mass()(args, mass.data());
        const double c = std::cos(q[0] - q[1]), s = std::sin(q[0] - q[1]);
        const double ga = p.g + vmax * omega * std::cos(theta[0]);
        CHECK(M[0] == Approx((p.m1 + p.m2) * p.l1 * p.l1).epsilon(1e-14));
        CHECK(M[1] == Approx(p.m2 * p.l1 * p.l2 * c).epsilon(1e-13));
        CHECK(M[2] == M[1]);
        CHECK(M[3] == Approx(p.m2 * p.l2 * p.l2).epsilon(1e-14));
        const double f1 =
            -p.m2 * p.l1 * p.l2 * s * v[1] * v[1] + (p.m1 + p.m2) * ga * p.l1 * std::sin(q[0]);
        const double f2 = p.m2 * p.l1 * p.l2 * s * v[0] * v[0] + p.m2 * ga * p.l2 * std::sin(q[1]);
        const double scale = std::abs(ga) * (p.m1 + p.m2) * p.l1 + p.m2 * p.l1 * p.l2 * 4;
        CHECK(std::abs(f[0] - f1) <= 1e-13 * scale);
        CHECK(std::abs(f[1] - f2) <= 1e-13 * scale);
        CHECK(std::isnan(mass[0])); // not a constant diagonal: no diagonal mass to read
    }
    const std::string text = model.symbolic_text();
    CHECK(text.find("mass matrix: depends on positions, coupled") != std::string::npos);
    CHECK(text.find("mass_matrix[q1, q2] = ") != std::string::npos);
}

TEST_CASE("the C API says whether the mass matrix is constant and diagonal") {
    char* error = nullptr;
    mdl_model* angles =
        mdl_compile_file(test::shipped_model_path("double_pendulum_angles.mdl").c_str(), &error);
    mdl_model* cartesian =
        mdl_compile_file(test::shipped_model_path("double_pendulum.mdl").c_str(), &error);
    REQUIRE(angles != nullptr);
    REQUIRE(cartesian != nullptr);
    CHECK(mdl_mass_constant(angles) == 0);
    CHECK(mdl_mass_diagonal(angles) == 0);
    CHECK(mdl_mass_constant(cartesian) == 1);
    CHECK(mdl_mass_diagonal(cartesian) == 1);
    // the Cartesian model's M = diag(m1, m1, m2, m2) from mass_matrix too
    const double q[4] = {0.1, 0.2, 0.3, 0.4}, v[4] = {0, 0, 0, 0}, theta[1] = {0};
    const mdl_kernel_args a = mdl_args(cartesian, 0.0, q, v, nullptr, theta);
    double M[16];
    mdl_kernels_of(cartesian)->mass_matrix(&a, M);
    CHECK(M[0] == 0.01);
    CHECK(M[5] == 0.01);
    CHECK(M[10] == 0.005);
    CHECK(M[15] == 0.005);
    CHECK(M[1] == 0.0);
    mdl_free(angles);
    mdl_free(cartesian);
}

TEST_CASE("a body beside a kinetic energy: block-diagonal M(q), energy conserved") {
    // A pendulum in its angle (M = m l^2 (1 + eps sin(phi)^2), an inertia that varies with
    // the angle) and a 1-D body on a spring, coupled by a spring between the body and the
    // bob's horizontal position l sin(phi). No damping: 1/2 v^T M(q) v + U is conserved,
    // with M evaluated by the runtime from the mass_matrix kernel and the body's mass.
    const char* source = R"(model KineticAndBody
  parameter Real m = 1.5, l = 0.7, g = 9.81, eps = 0.3, mb = 2, k = 40, c = 25;
  coordinate phi(start = 0.8, vstart = 1);
  body b(m = mb, x(start = 0.1), vx(start = -0.5));
  anchor O(x = 0);
  spring s(O, b, k = k);
  kinetic T = m*l^2/2*(1 + eps*sin(phi)^2)*der(phi)^2;
  potential U = -m*g*l*cos(phi) + c/2*(b.x - l*sin(phi))^2;
end KineticAndBody;
)";
    test::LoadedModel model(compile(source, "kinetic_and_body.mdl"));
    CHECK_FALSE(model.compiled.mass_constant());
    CHECK(model.compiled.mass_diagonal());
    runtime::State s = model.start();
    runtime::Matrix M;
    model.model.mass_matrix(s.q, M);
    CHECK(M(0, 0) == Approx(1.5 * 0.49 * (1 + 0.3 * std::pow(std::sin(0.8), 2))).epsilon(1e-14));
    CHECK(M(1, 1) == 2.0);
    CHECK(M(0, 1) == 0.0);
    CHECK(model.model.mass()[1] == 2.0);
    const runtime::Vector none;
    const double e0 = model.model.energy(0.0, s.q, s.v, none);
    const double by_hand = 1.5 * 0.49 / 2 * (1 + 0.3 * std::pow(std::sin(0.8), 2)) +
                           2.0 / 2 * 0.25 - 1.5 * 9.81 * 0.7 * std::cos(0.8) + 40.0 / 2 * 0.01 +
                           25.0 / 2 * std::pow(0.1 - 0.7 * std::sin(0.8), 2);
    CHECK(e0 == Approx(by_hand).epsilon(1e-14));
    const runtime::State end =
        run_to(model.model, s, settings_for(runtime::Method::dopri5, 5.0, 0.0));
    CHECK(std::abs(model.model.energy(end.t, end.q, end.v, none) - e0) < 1e-9 * std::abs(e0));
    CHECK(std::abs(end.q[1] - s.q[1]) > 1e-3); // the body moved
}

TEST_CASE("double pendulum in joint angles follows the Cartesian model with rod constraints",
          "[heavy]") {
    // Two independent computations of the same motion: the Cartesian descriptor form (4
    // positions, 2 rods as constraints, RATTLE) and the joint-angle form (2 angles, M(q)
    // from the kinetic energy, explicit Runge-Kutta). The vibration is slowed to omega = 1e3
    // so that both resolve it directly.
    const std::vector<ParameterValue> overrides{{"omega", 1e3}};
    test::LoadedModel cartesian(
        compile_file(test::shipped_model_path("double_pendulum.mdl")).with_parameters(overrides));
    test::LoadedModel angles(compile_file(test::shipped_model_path("double_pendulum_angles.mdl"))
                                 .with_parameters(overrides));
    const DoublePendulum p;
    const double stop = 0.2;

    // RATTLE is of order 2: its error at h = 2.5e-7 is (q(h) - q(2h))/3 (Richardson), and it
    // must be small for the comparison to mean anything.
    const runtime::State fine = run_to(cartesian.model, cartesian.start(),
                                       settings_for(runtime::Method::rattle, stop, 2.5e-7));
    const runtime::State coarse = run_to(cartesian.model, cartesian.start(),
                                         settings_for(runtime::Method::rattle, stop, 5e-7));
    const double rattle_error = (fine.q - coarse.q).cwiseAbs().maxCoeff() / 3.0;
    INFO("RATTLE error estimate " << rattle_error);
    REQUIRE(rattle_error < 1e-8);
    // RATTLE is symmetric, its error expands in even powers of h: the extrapolated
    // (4 q(h) - q(2h))/3 is accurate to O(h^4) (Hairer, Lubich & Wanner, Geometric Numerical
    // Integration, sect. II.4 on symmetric methods).
    const runtime::Vector q_ref = (4.0 * fine.q - coarse.q) / 3.0;
    const runtime::Vector v_ref4 = (4.0 * fine.v - coarse.v) / 3.0;
    const Eigen::Vector4d x_ref(q_ref[0], q_ref[1], q_ref[2], q_ref[3]);
    const Eigen::Vector4d v_ref(v_ref4[0], v_ref4[1], v_ref4[2], v_ref4[3]);
    // the pendulum really moved: rod 1 turned by more than 0.1 rad from 0.5
    CHECK(std::abs(std::atan2(x_ref[0], x_ref[1]) - 0.5) > 0.1);

    std::vector<runtime::Method> methods{runtime::Method::dopri5, runtime::Method::rk4};
    if (runtime::cvode_available()) {
        methods.push_back(runtime::Method::cvode_adams);
        methods.push_back(runtime::Method::cvode_bdf);
    }
    for (runtime::Method method : methods) {
        INFO(runtime::info(method).name);
        const runtime::State s =
            run_to(angles.model, angles.start(), settings_for(method, stop, 1e-5));
        const Eigen::Vector4d x = bob_positions(p, s.q);
        const Eigen::Vector4d v = bob_velocities(p, s.q, s.v);
        INFO("position difference " << (x - x_ref).cwiseAbs().maxCoeff() << ", velocity "
                                    << (v - v_ref).cwiseAbs().maxCoeff());
        // measured: dopri5 2e-12 m and 2e-10 m/s, rk4 (h = 1e-5) 3e-11 m and 6e-10 m/s,
        // cvode-adams (rtol 1e-12) below 1e-10 m, cvode-bdf (order <= 5 at the same rtol)
        // 4e-10 m and 3e-8 m/s; the rods are 0.2 and 0.1 m long, the bobs move at about 1 m/s
        const double bdf = method == runtime::Method::cvode_bdf ? 10.0 : 1.0;
        CHECK((x - x_ref).cwiseAbs().maxCoeff() < 1e-10 * bdf);
        CHECK((v - v_ref).cwiseAbs().maxCoeff() < 1e-8 * bdf);
    }
}

TEST_CASE("double pendulum in joint angles conserves 1/2 v^T M(q) v + U without vibration") {
    test::LoadedModel angles(compile_file(test::shipped_model_path("double_pendulum_angles.mdl"))
                                 .with_parameters(std::vector<ParameterValue>{{"vmax", 0.0}}));
    runtime::State s = angles.start();
    s.v << 3.0, -5.0; // a lively start: energy well above the rods-up equilibrium's
    const runtime::Vector theta = runtime::Vector::Zero(1);
    const double e0 = angles.model.energy(0.0, s.q, s.v, theta);
    // E by hand: T from the bobs' Cartesian velocities, U = (m1 y1 + m2 y2) g
    const DoublePendulum p;
    const Eigen::Vector4d x = bob_positions(p, s.q), v = bob_velocities(p, s.q, s.v);
    const double by_hand = p.m1 / 2 * (v[0] * v[0] + v[1] * v[1]) +
                           p.m2 / 2 * (v[2] * v[2] + v[3] * v[3]) +
                           (p.m1 * x[1] + p.m2 * x[3]) * p.g;
    CHECK(e0 == Approx(by_hand).epsilon(1e-14));
    const runtime::State end =
        run_to(angles.model, s, settings_for(runtime::Method::dopri5, 2.0, 0.0));
    CHECK(std::abs(end.q[1] - s.q[1]) > 1.0); // rod 2 swung round
    CHECK(std::abs(angles.model.energy(end.t, end.q, end.v, theta) - e0) < 1e-9 * std::abs(e0));
}

TEST_CASE("single pendulum from its kinetic energy: analytic period, every method applies") {
    // T = m l^2/2 phi'^2 gives the constant mass m l^2: the mass kernel carries it and the
    // constant-mass methods apply. Released at rest from phi0 = 1, the period is
    // 4 sqrt(l/g) K(sin(phi0/2)) = 2.139137600558689 s (l = 1, g = 9.81; models/pendulum.mdl),
    // K by the arithmetic-geometric mean.
    const char* source = R"(model KineticPendulum
  parameter Real m = 2, l = 1, g = 9.81;
  coordinate phi(start = 1);
  kinetic T = m*l^2/2*der(phi)^2;
  potential U = -m*g*l*cos(phi);
end KineticPendulum;
)";
    test::LoadedModel pendulum(compile(source, "kinetic_pendulum.mdl"));
    CHECK(pendulum.compiled.mass_constant());
    CHECK(pendulum.compiled.mass_diagonal());
    CHECK(pendulum.model.mass_constant_diagonal());
    CHECK(pendulum.model.mass()[0] == 2.0);
    // the coordinate form, models/pendulum.mdl (coordinate phi(m = m*l^2)), has the same kernels
    test::LoadedModel coordinate_form(
        compile_file(test::shipped_model_path("pendulum.mdl"))
            .with_parameters(std::vector<ParameterValue>{{"m", 2.0}}));
    for (double phi : {-2.5, -0.3, 0.9, 3.0}) {
        runtime::Vector q(1), v(1), f(1), g(1);
        q << phi;
        v << 0.7 * phi;
        const runtime::Vector none;
        pendulum.model.force(0.0, q, v, none, none, f);
        coordinate_form.model.force(0.0, q, v, none, none, g);
        CHECK(f[0] == Approx(g[0]).epsilon(1e-15));
        CHECK(f[0] == Approx(-2 * 9.81 * std::sin(phi)).epsilon(1e-14));
    }
    CHECK(coordinate_form.model.mass()[0] == pendulum.model.mass()[0]);
    double a = 1.0, b = std::cos(0.5); // AGM(1, sqrt(1 - k^2)), k = sin(phi0/2)
    for (int i = 0; i < 8; ++i) {
        const double mean = (a + b) / 2;
        b = std::sqrt(a * b);
        a = mean;
    }
    const double period = 4 * std::sqrt(1 / 9.81) * std::numbers::pi / (2 * a);
    CHECK(period == Approx(2.139137600558689).epsilon(1e-14));
    struct Case {
        runtime::Method method;
        double step, tolerance;
    };
    for (const Case& c :
         {Case{runtime::Method::verlet, 1e-4, 1e-6}, Case{runtime::Method::rk4, 1e-3, 1e-9},
          Case{runtime::Method::dopri5, 0.0, 1e-9}}) {
        INFO(runtime::info(c.method).name);
        runtime::State half =
            run_to(pendulum.model, pendulum.start(), settings_for(c.method, period / 2, c.step));
        CHECK(std::abs(half.q[0] + 1.0) < c.tolerance); // the far turning point
        runtime::State full =
            run_to(pendulum.model, pendulum.start(), settings_for(c.method, period, c.step));
        CHECK(std::abs(full.q[0] - 1.0) < c.tolerance);
        CHECK(std::abs(full.v[0]) < 10 * c.tolerance);
    }
}

TEST_CASE("methods that assume a constant diagonal mass refuse M(q) and name one that works") {
    test::ShippedModel angles("double_pendulum_angles.mdl");
    CHECK_FALSE(angles.model.mass_constant_diagonal());
    CHECK(runtime::default_method(angles.model) == runtime::Method::dopri5);
    for (const runtime::MethodInfo& m : runtime::methods()) {
        INFO(m.name);
        if (m.variable_mass) {
            CHECK_NOTHROW(runtime::require_applicable(m.method, angles.model));
            continue;
        }
        try {
            runtime::require_applicable(m.method, angles.model);
            FAIL("accepted");
        } catch (const runtime::MethodNotApplicable& e) {
            const std::string what = e.what();
            CHECK(what.find("depends on the positions and couples coordinates") !=
                  std::string::npos);
            CHECK(what.find("use rk4, dopri5 or cvode-bdf") != std::string::npos);
        }
    }
    // hmm and strobo (RK4 micro-steps) solve M(q) a = f in their micro-integrations
    // (tests/multiscale/kinetic_multiscale_test.cpp); the constrained HMM variants, strobo's
    // Verlet micro-steps and the stiff-spring HMM assume a constant diagonal mass, and say
    // which variant applies
    namespace ms = runtime::multiscale;
    ms::HmmOptions hmm;
    hmm.force_even_in_phase = angles.compiled.force_even_in_all_phases();
    CHECK(ms::hmm_applicability(angles.model, hmm).applies);
    ms::StroboscopicOptions strobo;
    CHECK(ms::strobo_applicability(angles.model, strobo).applies);
    hmm.macro = ms::HmmMacro::rattle;
    const ms::Applicability rattle = ms::hmm_applicability(angles.model, hmm);
    CHECK_FALSE(rattle.applies);
    CHECK(rattle.reason.find("use hmm") != std::string::npos);
    strobo.micro = ms::StroboscopicMicro::verlet;
    const ms::Applicability verlet = ms::strobo_applicability(angles.model, strobo);
    CHECK_FALSE(verlet.applies);
    CHECK(verlet.reason.find("--micro rk4") != std::string::npos);
    const ms::Applicability stiff = ms::stiff_hmm_applicability(angles.model);
    CHECK_FALSE(stiff.applies);
    CHECK(stiff.reason.find("dopri5") != std::string::npos);
    // with constraints besides M(q) (Andrews' squeezer), no multiscale method applies
    test::ShippedModel andrews("andrews.mdl");
    hmm.macro = ms::HmmMacro::shake;
    for (const ms::Applicability& verdict :
         {ms::hmm_applicability(andrews.model, hmm),
          ms::strobo_applicability(andrews.model, ms::StroboscopicOptions{})}) {
        CHECK_FALSE(verdict.applies);
        CHECK(verdict.reason.find("hmm and strobo apply to models without constraints") !=
              std::string::npos);
    }
}

TEST_CASE("a mass matrix that loses positive definiteness is a numerical failure") {
    // M = (1 - q^2) is positive at the start q = 0.5 and vanishes at |q| = 1, which the
    // motion reaches (v0 = 3 against no force); the failure names the velocity.
    const char* source = R"(model KineticDegenerate
  coordinate q(start = 0.5, vstart = 3);
  kinetic T = (1 - q^2)/2*der(q)^2;
end KineticDegenerate;
)";
    test::LoadedModel model(compile(source, "kinetic_degenerate.mdl"));
    try {
        run_to(model.model, model.start(), settings_for(runtime::Method::rk4, 1.0, 1e-3));
        FAIL("no failure");
    } catch (const runtime::NumericalFailure& e) {
        CHECK(e.kind() == runtime::FailureKind::singular_mass_matrix);
        CHECK(e.method() == "rk4");
        CHECK(e.where() == "der(q)");
        CHECK(e.detail().find("not positive definite") != std::string::npos);
        CHECK(e.time() > 0.0);
    }
}

TEST_CASE("triple pendulum in joint angles: accelerations equal SymPy's Lagrange method") {
    // The kinetic energy written from the bobs' Cartesian velocities, as a user would, plus a
    // rotational damper on q2 (a velocity-dependent applied force). The reference
    // accelerations come from sympy.physics.mechanics.LagrangesMethod, an independent
    // derivation, in 30-digit arithmetic (tests/api/reference/triple_pendulum_sympy.py).
    const char* source = R"(model TriplePendulum
  parameter Real m1 = 0.7, m2 = 0.4, m3 = 0.25, l1 = 0.5, l2 = 0.35, l3 = 0.3, g = 9.81, c = 0.3;
  coordinate q1(start = 0.3);
  coordinate q2(start = 0.2);
  coordinate q3(start = 0.1);
  kinetic T1 = m1/2*((l1*cos(q1)*der(q1))^2 + (l1*sin(q1)*der(q1))^2);
  kinetic T2 = m2/2*((l1*cos(q1)*der(q1) + l2*cos(q2)*der(q2))^2
                   + (l1*sin(q1)*der(q1) + l2*sin(q2)*der(q2))^2);
  kinetic T3 = m3/2*((l1*cos(q1)*der(q1) + l2*cos(q2)*der(q2) + l3*cos(q3)*der(q3))^2
                   + (l1*sin(q1)*der(q1) + l2*sin(q2)*der(q2) + l3*sin(q3)*der(q3))^2);
  potential U = -g*(m1*l1*cos(q1) + m2*(l1*cos(q1) + l2*cos(q2))
                    + m3*(l1*cos(q1) + l2*cos(q2) + l3*cos(q3)));
  force drag(q2) = -c*der(q2);
end TriplePendulum;
)";
    test::LoadedModel model(compile(source, "triple_pendulum.mdl"));
    CHECK_FALSE(model.model.conservative()); // the damper, not the velocity terms
    struct Reference {
        std::array<double, 3> q, v, a;
    };
    const Reference references[] = {
        {{-1.5235204601441477, 0.01006302092500233, 0.047290851092284036},
         {2.160003525895653, -2.3841788969582414, -1.6602926599320562},
         {21.735953988866804, 6.609503067636095, -17.273887678085085}},
        {{0.4041226095403463, 0.2262360876981897, 1.1334935299327613},
         {0.28686872910268857, 1.3832339544552221, 1.6086919378148492},
         {-6.843636838777357, 4.07480927511211, -25.896533577239545}},
        {{1.0041038326344718, 0.34608338597699984, -1.040263682528292},
         {0.6852256840790956, -2.33558073845922, 1.9005681171142284},
         {-24.16431649797375, 25.15451316626157, 11.407585387633512}},
    };
    runtime::ModelForce force(model.model);
    for (const Reference& r : references) {
        runtime::Vector q(3), v(3), a(3);
        q << r.q[0], r.q[1], r.q[2];
        v << r.v[0], r.v[1], r.v[2];
        force.acceleration(0.0, q, v, runtime::Vector(), a);
        for (int i = 0; i < 3; ++i) {
            CHECK(a[i] == Approx(r.a[static_cast<std::size_t>(i)]).epsilon(1e-12));
        }
    }
}
