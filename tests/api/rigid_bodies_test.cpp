// Planar rigid bodies, body-fixed points and joints: the generalized forces of springs,
// dampers and forces at points against the virtual-work formulas computed here by hand; the
// slider-crank (models/slider_crank.mdl) against its closed-form kinematics and for energy
// conservation over a long RATTLE run; the four-bar (models/four_bar.mdl) against
// Freudenstein's equation.
#include "mdl/compiled_model.hpp"
#include "runtime/methods.hpp"
#include "runtime/run.hpp"
#include "shipped_model.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <string>

using namespace mdl;
using Catch::Detail::Approx;

namespace {

Eigen::Index index_of(const CompiledModel& model, const std::string& name) {
    const auto& names = model.position_names();
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (names[i] == name) {
            return static_cast<Eigen::Index>(i);
        }
    }
    FAIL("no position " << name);
    return -1;
}

runtime::RunSettings rattle(double stop, double step) {
    runtime::RunSettings s;
    s.method = runtime::Method::rattle;
    s.stop_time = stop;
    s.step = step;
    s.solver.constraint_tolerance = 1e-13;
    return s;
}

} // namespace

TEST_CASE("rigid body: gravity on the centre, springs, dampers and forces at points") {
    // One rigid body; a spring from the anchor O to the point P = c + R(phi) (px, py), a damper
    // from P to O and a force F at a second point Q. Virtual work gives the generalized forces
    // (x, y, phi): F_P (1, 0, -r_y), F_P (0, 1, r_x) with r = R(phi) (px, py), i.e. the torque
    // r x F_P, and the same for Q.
    const char* source = R"(
model OneBody
  parameter Real m = 2, J = 0.3, k = 50, len = 0.2, c = 3, px = 0.4, py = -0.1, g = 9.81;
  anchor O(x = 0.1, y = 0.5);
  rigid r(m = m, J = J, x(start = 0), y(start = 0), phi(start = 0));
  point P(r, x = px, y = py);
  point Q(r, x = -0.3, y = 0.2);
  spring s(O, P, k = k, length = len);
  damper d(P, O, c = c);
  force F(Q) = {cos(time) + r.vx, 2*r.phi};
  gravity G(y = -g);
end OneBody;
)";
    CompiledModel model = compile(source);
    REQUIRE(model.sizes().positions == 3);
    REQUIRE(model.mass_constant());
    REQUIRE(model.mass_diagonal());
    const double m = 2, J = 0.3, k = 50, len = 0.2, c = 3, g = 9.81;
    const auto mass = model.mass();
    std::vector<double> M(3);
    mdl_kernel_args margs = model.args(0.0, nullptr, nullptr);
    mass(margs, M.data());
    CHECK(M[0] == m);
    CHECK(M[1] == m);
    CHECK(M[2] == J);
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int trial = 0; trial < 10; ++trial) {
        const std::vector<double> q{u(rng), u(rng), 3 * u(rng)}, v{u(rng), u(rng), u(rng)};
        const double t = u(rng);
        std::vector<double> f(3);
        mdl_kernel_args a = model.args(t, q.data(), v.data());
        model.force()(a, f.data());

        const double cs = std::cos(q[2]), sn = std::sin(q[2]);
        auto arm = [&](double px, double py) {
            return Eigen::Vector2d(px * cs - py * sn, px * sn + py * cs);
        };
        const Eigen::Vector2d rp = arm(0.4, -0.1), rq = arm(-0.3, 0.2);
        const Eigen::Vector2d p = Eigen::Vector2d(q[0], q[1]) + rp;
        const Eigen::Vector2d vp = Eigen::Vector2d(v[0] - v[2] * rp.y(), v[1] + v[2] * rp.x());
        const Eigen::Vector2d d = p - Eigen::Vector2d(0.1, 0.5);
        Eigen::Vector2d fp = -k * (d.norm() - len) * d / d.norm() - c * vp; // on P
        Eigen::Vector2d fq(std::cos(t) + v[0], 2 * q[2]);                   // on Q
        const double torque = rp.x() * fp.y() - rp.y() * fp.x() + rq.x() * fq.y() - rq.y() * fq.x();
        CHECK(f[0] == Approx(fp.x() + fq.x()).margin(1e-12));
        CHECK(f[1] == Approx(fp.y() + fq.y() - m * g).margin(1e-12));
        CHECK(f[2] == Approx(torque).margin(1e-12));
    }
}

TEST_CASE("slider-crank: slider position against the closed-form kinematics") {
    test::ShippedModel sc("slider_crank.mdl");
    const double a = 0.1, b = 0.3;
    const Eigen::Index theta = index_of(sc.compiled, "crank.phi");
    const Eigen::Index xs = index_of(sc.compiled, "slider.x");
    const Eigen::Index ys = index_of(sc.compiled, "slider.y");
    runtime::State state = sc.start();
    // consistent initialization kept the crank angle (fixed = true) and its velocity
    CHECK(state.q[theta] == 0.3);
    CHECK(state.v[theta] == 20);
    auto slider = [&](double angle) {
        return a * std::cos(angle) + std::sqrt(b * b - a * a * std::sin(angle) * std::sin(angle));
    };
    CHECK(state.q[xs] == Approx(slider(0.3)).margin(1e-12));
    double worst = 0;
    double turned = 0;
    runtime::run(sc.model, state, rattle(1.0, 1e-4), [&](const runtime::State& s) {
        worst = std::max(worst, std::abs(s.q[xs] - slider(s.q[theta])));
        worst = std::max(worst, std::abs(s.q[ys]));
        turned = std::max(turned, std::abs(s.q[theta] - 0.3));
    });
    CHECK(turned > 2 * M_PI); // the crank went all the way round
    CHECK(worst < 1e-9);
}

TEST_CASE("slider-crank: energy conservation over a long RATTLE run", "[heavy]") {
    // Rigid bodies keep a constant diagonal M, so RATTLE (symplectic, second order) applies;
    // its energy error stays bounded and shrinks with h^2 (Hairer, Lubich & Wanner, Geometric
    // Numerical Integration, sec. VII.1).
    test::ShippedModel sc("slider_crank.mdl");
    REQUIRE(sc.model.conservative());
    auto drift = [&](double step) {
        runtime::State state = sc.start();
        const runtime::Vector theta;
        const double e0 = sc.model.energy(state.t, state.q, state.v, theta);
        double worst = 0;
        runtime::run(sc.model, state, rattle(20.0, step), [&](const runtime::State& s) {
            worst = std::max(worst, std::abs(sc.model.energy(s.t, s.q, s.v, theta) - e0));
        });
        return worst / std::abs(e0);
    };
    const double coarse = drift(4e-4), fine = drift(2e-4);
    CHECK(coarse < 1e-4); // 2.4e-5 measured over 53 turns of the crank
    // second order: a factor 4 for half the step, and no drift that would break it
    CHECK(coarse / fine > 3.5);
    CHECK(coarse / fine < 4.5);
}

TEST_CASE("four-bar: crank and rocker angles satisfy Freudenstein's equation") {
    test::ShippedModel fb("four_bar.mdl");
    const double a = 0.1, b = 0.35, c = 0.3, d = 0.3;
    const double k1 = d / a, k2 = d / c, k3 = (a * a - b * b + c * c + d * d) / (2 * a * c);
    const Eigen::Index t2 = index_of(fb.compiled, "crank.phi");
    const Eigen::Index t4 = index_of(fb.compiled, "rocker.phi");
    auto freudenstein = [&](const runtime::Vector& q) {
        return k1 * std::cos(q[t4]) - k2 * std::cos(q[t2]) + k3 - std::cos(q[t2] - q[t4]);
    };
    runtime::State state = fb.start();
    CHECK(state.q[t2] == 1.0);
    CHECK(std::abs(freudenstein(state.q)) < 1e-12);
    double worst = 0, turned = 0;
    runtime::run(fb.model, state, rattle(2.0, 1e-4), [&](const runtime::State& s) {
        worst = std::max(worst, std::abs(freudenstein(s.q)));
        turned = std::max(turned, std::abs(s.q[t2] - 1.0));
    });
    CHECK(turned > 2 * M_PI); // a crank-rocker: the crank turns fully
    CHECK(worst < 1e-9);
}

TEST_CASE("rigid bodies in arrays, loops and components equal the hand-written model") {
    // A chain of two bars hanging from the origin, written with arrays and a loop, as a
    // component, and by hand: the same kernels at random states.
    const char* arrays = R"(
model Chain
  parameter Integer n = 2;
  parameter Real L = 0.5, m = 1;
  anchor O(x = 0, y = 0);
  rigid bar[n](each m = m, each J = m*L^2/12, x(start = {L/2, 3*L/2}), each y(start = 0),
               each phi(start = 0));
  for i in 1:n loop
    point top[i](bar[i], x = -L/2);
    point bottom[i](bar[i], x = L/2);
  end for;
  revolute hang(O, top[1]);
  for i in 2:n loop
    revolute j[i](bottom[i-1], top[i]);
  end for;
  gravity G(y = -9.81);
end Chain;
)";
    const char* component = R"(
model Link
  parameter Real L = 0.5, m = 1, x0 = 0;
  rigid bar(m = m, J = m*L^2/12, x(start = x0), y(start = 0), phi(start = 0));
  point top(bar, x = -L/2);
  point bottom(bar, x = L/2);
end Link;
model Chain
  anchor O(x = 0, y = 0);
  Link a(x0 = 0.25), b(x0 = 0.75);
  revolute hang(O, a.top);
  revolute j(a.bottom, b.top);
  gravity G(y = -9.81);
end Chain;
)";
    const char* by_hand = R"(
model Chain
  parameter Real L = 0.5, m = 1;
  rigid b1(m = m, J = m*L^2/12, x(start = L/2), y(start = 0), phi(start = 0));
  rigid b2(m = m, J = m*L^2/12, x(start = 3*L/2), y(start = 0), phi(start = 0));
  constraint h1: b1.x - L/2*cos(b1.phi) = 0;
  constraint h2: b1.y - L/2*sin(b1.phi) = 0;
  constraint j1: b2.x - L/2*cos(b2.phi) = b1.x + L/2*cos(b1.phi);
  constraint j2: b2.y - L/2*sin(b2.phi) = b1.y + L/2*sin(b1.phi);
  potential U = 9.81*m*(b1.y + b2.y);
end Chain;
)";
    CompiledModel reference = compile(by_hand);
    for (const char* source : {arrays, component}) {
        CompiledModel model = compile(source);
        REQUIRE(model.sizes().positions == 6);
        REQUIRE(model.sizes().constraints == 4);
        std::mt19937_64 rng(11);
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        for (int trial = 0; trial < 5; ++trial) {
            std::vector<double> q(6), v(6);
            for (std::size_t i = 0; i < 6; ++i) {
                q[i] = u(rng);
                v[i] = u(rng);
            }
            std::vector<double> f(6), fr(6), g(4), gr(4), G(24), Gr(24);
            mdl_kernel_args a = model.args(0.0, q.data(), v.data());
            mdl_kernel_args ar = reference.args(0.0, q.data(), v.data());
            model.force()(a, f.data());
            reference.force()(ar, fr.data());
            model.constraint()(a, g.data());
            reference.constraint()(ar, gr.data());
            model.constraint_jacobian()(a, G.data());
            reference.constraint_jacobian()(ar, Gr.data());
            for (std::size_t i = 0; i < 6; ++i) {
                CHECK(f[i] == Approx(fr[i]).margin(1e-13));
            }
            for (std::size_t i = 0; i < 4; ++i) {
                CHECK(g[i] == Approx(gr[i]).margin(1e-13));
            }
            for (std::size_t i = 0; i < 24; ++i) {
                CHECK(G[i] == Approx(Gr[i]).margin(1e-13));
            }
        }
    }
}

TEST_CASE("weld: two welded bars swing as the single bar they make") {
    // Two uniform bars (L, m) welded end to end and hinged at the origin are one uniform bar
    // (2L, 2m, J = 2m (2L)^2/12) hinged at its end: the same angle at all times.
    const char* welded = R"(
model Welded
  parameter Real L = 0.4, m = 1, p = 0.5;
  anchor O(x = 0, y = 0);
  rigid a(m = m, J = m*L^2/12, x(start = L/2*cos(p)), y(start = L/2*sin(p)), phi(start = p));
  rigid b(m = m, J = m*L^2/12, x(start = 3*L/2*cos(p)), y(start = 3*L/2*sin(p)),
          phi(start = p));
  point a0(a, x = -L/2);
  point a1(a, x = L/2);
  point b0(b, x = -L/2);
  revolute hinge(O, a0);
  weld w(a1, b0);
  gravity G(y = -9.81);
end Welded;
)";
    const char* single = R"(
model Single
  parameter Real L = 0.4, m = 1, p = 0.5;
  anchor O(x = 0, y = 0);
  rigid bar(m = 2*m, J = 2*m*(2*L)^2/12, x(start = L*cos(p)), y(start = L*sin(p)),
            phi(start = p));
  point end0(bar, x = -L);
  revolute hinge(O, end0);
  gravity G(y = -9.81);
end Single;
)";
    test::LoadedModel two(compile(welded)), one(compile(single));
    REQUIRE(two.compiled.sizes().constraints == 5);
    runtime::State s2 = two.start(), s1 = one.start();
    std::vector<double> angle_two, angle_one;
    runtime::run(two.model, s2, rattle(1.0, 1e-4),
                 [&](const runtime::State& s) { angle_two.push_back(s.q[2]); });
    runtime::run(one.model, s1, rattle(1.0, 1e-4),
                 [&](const runtime::State& s) { angle_one.push_back(s.q[2]); });
    REQUIRE(angle_two.size() == angle_one.size());
    double worst = 0, swing = 0;
    for (std::size_t i = 0; i < angle_one.size(); ++i) {
        worst = std::max(worst, std::abs(angle_two[i] - angle_one[i]));
        swing = std::max(swing, std::abs(angle_one[i] - 0.5));
    }
    CHECK(swing > 1.0); // it falls through the bottom
    CHECK(worst < 1e-6);
    CHECK(std::abs(s2.q[5] - s2.q[2]) < 1e-10); // welded: b turns with a
}

TEST_CASE("prismatic: a bead on a turning rod is the constraint written by hand") {
    // The axis is fixed in the rod's frame: (bead - P) . R(phi) (-ay, ax) = 0, and the bead
    // (a point mass) does not turn, so the joint fixes no rotation.
    const char* joint = R"(
model Bead
  anchor O(x = 0, y = 0);
  rigid rod(m = 1, J = 0.1, x(start = 0.5), y(start = 0), phi(start = 0));
  body bead(m = 0.2, x(start = 0.7), y(start = 0));
  point pivot(rod, x = -0.5);
  point P(rod, x = 0.1, y = 0.05);
  revolute hinge(O, pivot);
  prismatic slide(P, bead, x = 3, y = 1);
end Bead;
)";
    const char* by_hand = R"(
model Bead
  rigid rod(m = 1, J = 0.1, x(start = 0.5), y(start = 0), phi(start = 0));
  body bead(m = 0.2, x(start = 0.7), y(start = 0));
  constraint h1: rod.x - 0.5*cos(rod.phi) = 0;
  constraint h2: rod.y - 0.5*sin(rod.phi) = 0;
  constraint s: (bead.x - (rod.x + 0.1*cos(rod.phi) - 0.05*sin(rod.phi)))*(-cos(rod.phi) - 3*sin(rod.phi))
              + (bead.y - (rod.y + 0.1*sin(rod.phi) + 0.05*cos(rod.phi)))*(3*cos(rod.phi) - sin(rod.phi)) = 0;
end Bead;
)";
    CompiledModel model = compile(joint), reference = compile(by_hand);
    REQUIRE(model.constraint_names() ==
            std::vector<std::string>{"hinge.x", "hinge.y", "slide.normal"});
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(-2.0, 2.0);
    for (int trial = 0; trial < 5; ++trial) {
        std::vector<double> q(5), v(5);
        for (std::size_t i = 0; i < 5; ++i) {
            q[i] = u(rng);
            v[i] = u(rng);
        }
        std::vector<double> g(3), gr(3), G(15), Gr(15), c(3), cr(3);
        const mdl_kernel_args a = model.args(0.0, q.data(), v.data());
        const mdl_kernel_args ar = reference.args(0.0, q.data(), v.data());
        model.constraint()(a, g.data());
        reference.constraint()(ar, gr.data());
        model.constraint_jacobian()(a, G.data());
        reference.constraint_jacobian()(ar, Gr.data());
        model.curvature()(a, c.data());
        reference.curvature()(ar, cr.data());
        for (std::size_t i = 0; i < 3; ++i) {
            CHECK(g[i] == Approx(gr[i]).margin(1e-13));
            CHECK(c[i] == Approx(cr[i]).margin(1e-12));
        }
        for (std::size_t i = 0; i < 15; ++i) {
            CHECK(G[i] == Approx(Gr[i]).margin(1e-13));
        }
    }
}

TEST_CASE("slider-crank: every constrained method keeps the closed-form kinematics") {
    // Rigid bodies keep a constant diagonal M, so the constrained methods of the constant-mass
    // family all apply; each keeps the slider on x_s(theta) to its constraint tolerance.
    test::ShippedModel sc("slider_crank.mdl");
    const double a = 0.1, b = 0.3;
    const Eigen::Index theta = index_of(sc.compiled, "crank.phi");
    const Eigen::Index xs = index_of(sc.compiled, "slider.x");
    for (runtime::Method method : {runtime::Method::rattle, runtime::Method::shake,
                                   runtime::Method::galpha, runtime::Method::newmark}) {
        runtime::RunSettings settings = rattle(0.5, 1e-4);
        settings.method = method;
        runtime::State state = sc.start();
        double worst = 0;
        runtime::run(sc.model, state, settings, [&](const runtime::State& s) {
            const double sn = a * std::sin(s.q[theta]);
            worst = std::max(
                worst, std::abs(s.q[xs] - a * std::cos(s.q[theta]) - std::sqrt(b * b - sn * sn)));
        });
        INFO(runtime::info(method).name);
        CHECK(state.t == Approx(0.5));
        CHECK(worst < 1e-9);
    }
}
