// The equations of motion derived from every shipped model, evaluated by the reference
// evaluator, against formulas derived by hand from the model text (and the papers).
#include "check/checker.hpp"
#include "check/front_end.hpp"
#include "parse/parser.hpp"
#include "symbolic/equations_of_motion.hpp"
#include "symbolic/evaluate.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>

using namespace mdl;
using Catch::Detail::Approx;

namespace {

check::CheckedModel checked(const std::string& text, const std::string& name = "test.mdl") {
    source::SourceFile file(name, text);
    source::Diagnostics diagnostics(file);
    std::optional<check::CheckedModel> model = check::check_file(file, diagnostics);
    if (!model) {
        throw std::runtime_error(diagnostics.render());
    }
    return std::move(*model);
}

check::CheckedModel shipped(const std::string& name) {
    auto file = source::SourceFile::read(std::string(MDL_SOURCE_DIR) + "/models/" + name);
    return checked(file.text(), name);
}

// The system of a model and a point (t, q, v, x, theta) at which to evaluate its kernels.
struct At {
    check::CheckedModel model;
    symbolic::System system;
    std::vector<double> p, q, v, x, theta;
    double t = 0;

    explicit At(check::CheckedModel m)
        : model(std::move(m)), system(symbolic::equations_of_motion(model)),
          p(model.default_parameters()) {}

    std::vector<double> eval(symbolic::Kernel k) {
        symbolic::Evaluator e(system.pool());
        symbolic::VariableValues at;
        at.t = t;
        at.q = q;
        at.v = v;
        at.x = x;
        at.theta = theta;
        at.p = p;
        return e.evaluate(system.dense_outputs(k), at);
    }
    double param(const std::string& name) const {
        for (std::size_t i = 0; i < model.parameters.size(); ++i) {
            if (model.parameters[i].name == name) {
                return p[i];
            }
        }
        throw std::out_of_range(name);
    }
};

using symbolic::Kernel;

} // namespace

TEST_CASE("Kapitza pendulum: f = (g + vmax omega cos theta)/l sin q, phase omega t + theta0") {
    At s(shipped("kapitza.mdl"));
    double l = 0.2, g = 9.8, vmax = 4, omega = 1e4;
    s.q = {0.3};
    s.v = {0.7};
    s.theta = {1.1};
    s.t = 2.5e-4;
    double a = vmax * omega * std::cos(1.1);
    CHECK(s.eval(Kernel::force)[0] == Approx((g + a) / l * std::sin(0.3)).epsilon(1e-14));
    CHECK(s.eval(Kernel::force_dq)[0] == Approx((g + a) / l * std::cos(0.3)).epsilon(1e-14));
    CHECK(s.eval(Kernel::force_dv)[0] == 0);
    CHECK(s.eval(Kernel::mass)[0] == 1);
    CHECK(s.eval(Kernel::phase)[0] == Approx(omega * 2.5e-4));
    CHECK(s.eval(Kernel::phase_rate)[0] == omega);
    CHECK_FALSE(s.system.velocity_dependent);
    CHECK_FALSE(s.system.time_dependent); // time enters only through the phase
}

TEST_CASE("stroboscopic form: a = (vmax/eps) cos(t/eps + theta0), period 2 pi eps") {
    At s(shipped("kapitza_eps.mdl"));
    double eps = 1.0 / 400;
    s.q = {0.25};
    s.theta = {2.3};
    s.t = 0.1;
    double a = 4 / eps * std::cos(2.3);
    CHECK(s.eval(Kernel::force)[0] == Approx((9.8 + a) / 0.2 * std::sin(0.25)).epsilon(1e-14));
    CHECK(s.eval(Kernel::phase)[0] == Approx(0.1 / eps + 2));
    CHECK(s.eval(Kernel::phase_rate)[0] == Approx(1 / eps));
}

TEST_CASE("double pendulum: gravity and vibration from the potential, rods as constraints") {
    At s(shipped("double_pendulum.mdl"));
    double m1 = 0.01, m2 = 0.005, l1 = 0.2, l2 = 0.1, g = 9.8, a = 4 * 1e4 * std::cos(0.4);
    s.q = {0.11, 0.16, 0.13, 0.25};
    s.v = {0.3, -0.2, 0.5, 0.1};
    s.theta = {0.4};
    auto f = s.eval(Kernel::force);
    CHECK(f[0] == 0);
    CHECK(f[1] == Approx(-m1 * (g + a)).epsilon(1e-14));
    CHECK(f[2] == 0);
    CHECK(f[3] == Approx(-m2 * (g + a)).epsilon(1e-14));
    CHECK(s.eval(Kernel::mass) == std::vector<double>{m1, m1, m2, m2});
    auto [x1, y1, x2, y2] = std::array<double, 4>{0.11, 0.16, 0.13, 0.25};
    auto [u1, w1, u2, w2] = std::array<double, 4>{0.3, -0.2, 0.5, 0.1};
    auto c = s.eval(Kernel::constraint);
    CHECK(c[0] == Approx(x1 * x1 + y1 * y1 - l1 * l1).epsilon(1e-14));
    CHECK(c[1] == Approx((x2 - x1) * (x2 - x1) + (y2 - y1) * (y2 - y1) - l2 * l2).epsilon(1e-14));
    auto G = s.eval(Kernel::constraint_jacobian);
    std::vector<double> expected_G = {
        2 * x1, 2 * y1, 0, 0, -2 * (x2 - x1), -2 * (y2 - y1), 2 * (x2 - x1), 2 * (y2 - y1)};
    for (std::size_t i = 0; i < 8; ++i) {
        CHECK(G[i] == Approx(expected_G[i]).epsilon(1e-14));
    }
    auto curvature = s.eval(Kernel::curvature);
    CHECK(curvature[0] == Approx(2 * (u1 * u1 + w1 * w1)).epsilon(1e-14));
    CHECK(curvature[1] ==
          Approx(2 * ((u2 - u1) * (u2 - u1) + (w2 - w1) * (w2 - w1))).epsilon(1e-14));
    auto U = s.eval(Kernel::potential);
    CHECK(U[0] == Approx((m1 * y1 + m2 * y2) * (g + a)).epsilon(1e-14));
}

TEST_CASE("stiff springs: the force of the paper's equations, case (i)") {
    At s(shipped("stiff_springs.mdl"));
    double w1 = 1, w2 = 1000;
    s.q = {1.01, 0.02, 2.003, -0.01};
    auto [x1, y1, x2, y2] = std::array<double, 4>{1.01, 0.02, 2.003, -0.01};
    double r1 = std::hypot(x1, y1), r12 = std::hypot(x2 - x1, y2 - y1);
    // x1'' = -w1^2 (r1 - 1) x1/r1 - w2^2 (r12 - 1) (x1 - x2)/r12, and alike.
    std::vector<double> expected = {
        -w1 * w1 * (r1 - 1) * x1 / r1 - w2 * w2 * (r12 - 1) * (x1 - x2) / r12,
        -w1 * w1 * (r1 - 1) * y1 / r1 - w2 * w2 * (r12 - 1) * (y1 - y2) / r12,
        -w2 * w2 * (r12 - 1) * (x2 - x1) / r12,
        -w2 * w2 * (r12 - 1) * (y2 - y1) / r12,
    };
    auto f = s.eval(Kernel::force);
    for (std::size_t i = 0; i < 4; ++i) {
        CHECK(f[i] == Approx(expected[i]).epsilon(1e-12));
    }
    double U = 0.5 * w1 * w1 * (r1 - 1) * (r1 - 1) + 0.5 * w2 * w2 * (r12 - 1) * (r12 - 1);
    CHECK(s.eval(Kernel::potential)[0] == Approx(U).epsilon(1e-12));
}

TEST_CASE("seated human body: M x'' + C x' + K x = f with the GE3 paper's matrices") {
    At s(shipped("seated_human.mdl"));
    double k1 = 1.5e5, k2 = 2e4, k3 = 9e4, B1 = 300, B2 = 350, B3 = 2000;
    double K[4][4] = {
        {k1, -k1, 0, 0}, {-k1, k1 + k2 + k3, -k2, -k3}, {0, -k2, k2, 0}, {0, -k3, 0, k3}};
    double C[4][4] = {
        {B1, -B1, 0, 0}, {-B1, B1 + B2 + B3, -B2, -B3}, {0, -B2, B2, 0}, {0, -B3, 0, B3}};
    // The slides print K and C with zeros at (2,3) and (2,4); their own Newton's-law equations
    // (slide "Introduction II") give -k2, -k3 and -B2, -B3 there, as above (and symmetric
    // matrices, as a conservative spring network must have). We follow Newton's law.
    s.q = {0.001, -0.002, 0.003, 0.0005};
    s.v = {0.1, 0.2, -0.3, 0.05};
    s.t = 0.013;
    auto f = s.eval(Kernel::force);
    auto dq = s.eval(Kernel::force_dq);
    auto dv = s.eval(Kernel::force_dv);
    for (std::size_t i = 0; i < 4; ++i) {
        double expected = i == 3 ? 100 * std::cos(2 * M_PI * 5 * 0.013) : 0.0;
        for (std::size_t j = 0; j < 4; ++j) {
            expected -= K[i][j] * s.q[j] + C[i][j] * s.v[j];
            CHECK(dq[4 * i + j] == Approx(-K[i][j]));
            CHECK(dv[4 * i + j] == Approx(-C[i][j]));
        }
        CHECK(f[i] == Approx(expected).epsilon(1e-12));
    }
    CHECK(s.system.velocity_dependent);
    CHECK(s.system.time_dependent);
}

TEST_CASE("spring chain under gravity: Hooke forces along the springs plus m g") {
    At s(shipped("spring_chain.mdl"));
    double k = 100, len = 1, m = 1, g = 9.81;
    s.q = {1.1, 0.1, -0.2, 2.0, 0.3, -0.1, 3.2, 0.2, 0.0, 3.9, 0.8, -0.5};
    auto point = [&](int i) -> std::array<double, 3> {
        if (i < 0) {
            return {0, 0, 0};
        }
        auto j = static_cast<std::size_t>(3 * i);
        return {s.q[j], s.q[j + 1], s.q[j + 2]};
    };
    std::vector<double> expected(12, 0.0);
    for (int i = 0; i < 4; ++i) {
        expected[static_cast<std::size_t>(3 * i + 2)] -= m * g;
    }
    for (int spring = 0; spring < 4; ++spring) { // from point spring-1 to point spring
        auto a = point(spring - 1), b = point(spring);
        double r = std::sqrt((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) +
                             (b[2] - a[2]) * (b[2] - a[2]));
        for (std::size_t axis = 0; axis < 3; ++axis) {
            double pull = k * (r - len) * (b[axis] - a[axis]) / r; // on a, towards b
            expected[3 * static_cast<std::size_t>(spring) + axis] -= pull;
            if (spring > 0) {
                expected[3 * static_cast<std::size_t>(spring - 1) + axis] += pull;
            }
        }
    }
    auto f = s.eval(Kernel::force);
    for (std::size_t i = 0; i < 12; ++i) {
        CHECK(f[i] == Approx(expected[i]).epsilon(1e-12).margin(1e-12));
    }
}

TEST_CASE("pendulum in a generalized coordinate: mass m l^2, f = -m g l sin phi") {
    At s(shipped("pendulum.mdl"));
    s.q = {0.9};
    CHECK(s.eval(Kernel::mass)[0] == 1);
    CHECK(s.eval(Kernel::force)[0] == Approx(-9.81 * std::sin(0.9)).epsilon(1e-14));
}

TEST_CASE("damped oscillator: f = -k x - c v; harmonic oscillator: mass from the equation") {
    At d(shipped("damped_oscillator.mdl"));
    d.q = {0.7};
    d.v = {-1.3};
    CHECK(d.eval(Kernel::force)[0] == Approx(-4 * 0.7 - 0.4 * -1.3).epsilon(1e-14));
    At h(shipped("harmonic_oscillator.mdl"));
    h.q = {0.7};
    CHECK(h.eval(Kernel::mass)[0] == 2);
    CHECK(h.eval(Kernel::force)[0] == Approx(-8 * 0.7));
}

TEST_CASE("Lorenz: first-order rates") {
    At s(shipped("lorenz.mdl"));
    s.x = {1.5, -2.0, 20.0};
    auto r = s.eval(Kernel::rates);
    CHECK(r[0] == Approx(10 * (-2.0 - 1.5)));
    CHECK(r[1] == Approx(1.5 * (28 - 20.0) + 2.0));
    CHECK(r[2] == Approx(1.5 * -2.0 - 8.0 / 3 * 20.0));
}

TEST_CASE("a damper on a vibrating anchor uses the anchor's velocity, by the chain rule") {
    At s(checked(R"(model Shaker
  parameter Real A = 0.01, omega = 50, c = 3;
  vibration u(phi = omega*time) = A*sin(phi);
  anchor P(x = u + 0.5*time);
  body b(m = 2, x(start = 0));
  damper d(b, P, c = c);
  gravity G(x = -1);
end Shaker;)"));
    s.q = {0.2};
    s.v = {0.4};
    s.theta = {0.3};
    // anchor velocity: d/dt (A sin(phi) + t/2) = A omega cos(phi) + 1/2
    double vp = 0.01 * 50 * std::cos(0.3) + 0.5;
    CHECK(s.eval(Kernel::force)[0] == Approx(-3 * (0.4 - vp) - 2 * 1).epsilon(1e-14));
    CHECK(s.eval(Kernel::potential)[0] == Approx(2 * 1 * 0.2));
}

TEST_CASE("a spring to an anchor counts the body's missing components as 0") {
    At s(checked(R"(model Offset
  anchor P(x = 0, y = 2);
  body b(m = 1, x(start = 1));
  spring s(P, b, k = 5, length = 1);
end Offset;)"));
    s.q = {1.5};
    double r = std::hypot(1.5, 2.0);
    CHECK(s.eval(Kernel::force)[0] == Approx(-5 * (r - 1) * 1.5 / r).epsilon(1e-14));
}

TEST_CASE("if-expressions with elseif, and, or, not: the force and its Jacobians by branch") {
    At s(checked(R"(model Piecewise
  parameter Real k1 = 3, k2 = 0.5, c = 0.25;
  coordinate q(start = 0);
equation
  der(der(q)) = if q > 0 and not der(q) < 0 then -k1*q - c*der(q)
                elseif q > 0 or der(q) > c then -k2*q
                else -k1*q^3;
end Piecewise;)"));
    const double k1 = 3, k2 = 0.5, c = 0.25;
    // (q, v) in each branch, on and near the switching surfaces q = 0, v = 0, v = c.
    const double points[][2] = {{0.5, 0.0},  {0.5, 1.0},   {1e-9, 2.0},  {0.5, -1e-9},
                                {0.5, -1.0}, {-0.5, 0.3},  {-0.5, 0.25}, {-0.5, 0.2},
                                {0.0, 0.0},  {-1.5, -2.0}, {-1e-9, 0.0}, {0.0, 0.5}};
    for (const auto& [q, v] : points) {
        s.q = {q};
        s.v = {v};
        double f = 0, dq = 0, dv = 0;
        if (q > 0 && !(v < 0)) {
            f = -k1 * q - c * v, dq = -k1, dv = -c;
        } else if (q > 0 || v > c) {
            f = -k2 * q, dq = -k2;
        } else {
            f = -k1 * q * q * q, dq = -3 * k1 * q * q;
        }
        INFO("q = " << q << ", v = " << v);
        CHECK(s.eval(Kernel::force)[0] == Approx(f).epsilon(1e-15).margin(1e-300));
        CHECK(s.eval(Kernel::force_dq)[0] == Approx(dq).epsilon(1e-15));
        CHECK(s.eval(Kernel::force_dv)[0] == dv);
    }
    CHECK(s.system.velocity_dependent);
}

TEST_CASE("a potential with an if-expression: a one-sided wall and its force") {
    At s(checked(R"(model Wall
  parameter Real kw = 1000, xw = 1;
  body b(m = 2, x(start = 0));
  potential wall = if b.x > xw then kw/2*(b.x - xw)^2 else 0;
end Wall;)"));
    for (double x : {-1.0, 0.5, 1.0, 1.0 + 1e-12, 1.25, 3.0}) {
        s.q = {x};
        const double inside = x > 1 ? x - 1 : 0.0;
        INFO("x = " << x);
        CHECK(s.eval(Kernel::potential)[0] == Approx(500 * inside * inside).epsilon(1e-15));
        CHECK(s.eval(Kernel::force)[0] == Approx(-1000 * inside).epsilon(1e-15));
        CHECK(s.eval(Kernel::force_dq)[0] == (x > 1 ? -1000.0 : 0.0));
    }
    CHECK_FALSE(s.system.velocity_dependent);
}

TEST_CASE("kinetic energy: M = d2T/dv2 and Lagrange's velocity terms, by the reference evaluator") {
    // A bead on a wire shaped y = a x^2 (y up), written in x alone:
    // T = m/2 (1 + 4 a^2 x^2) x'^2, U = m g a x^2. Then M = m (1 + 4 a^2 x^2) and
    // dT/dx - (d/dx dT/dx') x' = 4 m a^2 x x'^2 - 8 m a^2 x x'^2 = -4 m a^2 x x'^2,
    // so f = -4 m a^2 x x'^2 - 2 m g a x.
    At s(checked(R"(model Bead
  parameter Real m = 0.3, a = 2, g = 9.81;
  coordinate x(start = 0.4);
  kinetic T = m/2*(1 + 4*a^2*x^2)*der(x)^2;
  potential U = m*g*a*x^2;
end Bead;
)"));
    const double m = 0.3, a = 2, g = 9.81, x = 0.37, v = -1.3;
    s.q = {x};
    s.v = {v};
    CHECK(s.model.positions[0].kinetic);
    CHECK(s.model.positions[0].mass == nullptr);
    CHECK(s.system.mass_depends_on_positions);
    CHECK_FALSE(s.system.mass_coupled);
    CHECK(std::isnan(s.eval(Kernel::mass)[0]));
    CHECK(s.eval(Kernel::mass_matrix)[0] == Approx(m * (1 + 4 * a * a * x * x)).epsilon(1e-14));
    CHECK(s.eval(Kernel::force)[0] ==
          Approx(-4 * m * a * a * x * v * v - 2 * m * g * a * x).epsilon(1e-14));
    // df/dv = -8 m a^2 x v: the velocity terms are differentiated like any force
    CHECK(s.eval(Kernel::force_dv)[0] == Approx(-8 * m * a * a * x * v).epsilon(1e-14));
    CHECK(s.system.velocity_dependent);
}

TEST_CASE("kinetic energy with a constant diagonal M: the mass kernel carries it") {
    At s(checked(R"(model KineticPendulum
  parameter Real m = 2, l = 0.5, g = 9.81;
  coordinate phi(start = 1);
  kinetic T = m*l^2/2*der(phi)^2;
  potential U = -m*g*l*cos(phi);
end KineticPendulum;
)"));
    s.q = {0.7};
    s.v = {3.0};
    CHECK(s.system.mass_constant_diagonal());
    CHECK(s.eval(Kernel::mass)[0] == Approx(0.5));
    CHECK(s.eval(Kernel::force)[0] == Approx(-2 * 9.81 * 0.5 * std::sin(0.7)).epsilon(1e-14));
    CHECK_FALSE(s.system.velocity_dependent); // no velocity terms for a constant M
}
