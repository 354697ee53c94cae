// mdl::modes (mdl/modes.hpp) against independent references: the closed-form frequencies and
// shapes of uniform spring chains, the double pendulum's small oscillations (Cartesian with rod
// constraints, and in joint angles with M(q)), a pendulum written with a constraint
// (sqrt(g/l), which only the constraint force's geometric stiffness gives), a damped
// oscillator's damping ratio, a free body pair's rigid-body mode, and the four-bar linkage
// about its rest position against a one-degree-of-freedom reduction computed here from the
// loop-closure geometry (circle intersection) by finite differences.
#include "mdl/compiled_model.hpp"
#include "mdl/modes.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

using namespace mdl;
using Catch::Detail::Approx;

namespace {

constexpr double pi = std::numbers::pi;

std::string model_path(const std::string& file) {
    return std::string(MDL_SOURCE_DIR) + "/models/" + file;
}

std::size_t index_of(const ModesResult& r, const std::string& name) {
    for (std::size_t i = 0; i < r.coordinates.size(); ++i) {
        if (r.coordinates[i] == name) {
            return i;
        }
    }
    FAIL("no coordinate " << name);
    return 0;
}

// n masses m in a line joined by springs k of rest length 1, the first tied to an anchor at 0,
// the last to an anchor at n + 1 when fixed_fixed; the masses start at rest at 1, 2, ... n.
std::string spring_chain(int n, bool fixed_fixed) {
    std::string s = "model Chain\n  parameter Integer n = " + std::to_string(n) +
                    ";\n  parameter Real m = 2, k = 50;\n"
                    "  anchor O(x = 0);\n  anchor E(x = n + 1);\n"
                    "  body p[n](each m = m, x(start = {i for i in 1:n}));\n"
                    "  spring s1(O, p[1], k = k, length = 1);\n"
                    "  for i in 2:n loop\n    spring s[i](p[i-1], p[i], k = k, length = 1);\n"
                    "  end for;\n";
    if (fixed_fixed) {
        s += "  spring se(p[n], E, k = k, length = 1);\n";
    }
    return s + "end Chain;\n";
}

} // namespace

TEST_CASE("modes of a fixed-fixed spring chain: omega_j = 2 sqrt(k/m) sin(j pi / (2 (n+1)))",
          "[modes]") {
    const int n = 6;
    const double k = 50, m = 2;
    const ModesResult r = modes(compile(spring_chain(n, true), "chain.mdl"));
    REQUIRE(r.modes() == static_cast<std::size_t>(n));
    REQUIRE(r.degrees_of_freedom == static_cast<std::size_t>(n));
    for (int j = 1; j <= n; ++j) {
        const auto J = static_cast<std::size_t>(j - 1);
        const double omega = 2 * std::sqrt(k / m) * std::sin(j * pi / (2 * (n + 1)));
        CHECK(r.omega[J] == Approx(omega).epsilon(1e-12));
        CHECK(r.frequency_hz[J] == Approx(omega / (2 * pi)).epsilon(1e-12));
        CHECK(r.damping_ratio[J] == 0);
        CHECK(r.kind[J] == "oscillatory");
        // shape: mass-normalized sin(i j pi / (n + 1)), largest component positive
        double norm2 = 0, sign = 0, largest = 0;
        for (int i = 1; i <= n; ++i) {
            const double s = std::sin(i * j * pi / (n + 1));
            norm2 += m * s * s;
            if (std::abs(s) > largest + 1e-12) {
                largest = std::abs(s);
                sign = s > 0 ? 1 : -1;
            }
        }
        for (int i = 1; i <= n; ++i) {
            const double expected = sign * std::sin(i * j * pi / (n + 1)) / std::sqrt(norm2);
            CHECK(r.shape(J)[static_cast<std::size_t>(i - 1)] == Approx(expected).margin(1e-9));
        }
    }
    // the start is the equilibrium: the springs are at their rest lengths
    for (int i = 0; i < n; ++i) {
        CHECK(r.equilibrium[static_cast<std::size_t>(i)] == Approx(i + 1.0).epsilon(1e-14));
    }
}

TEST_CASE("modes of a fixed-free spring chain: omega_j = 2 sqrt(k/m) sin((2j-1) pi/(2(2n+1)))",
          "[modes]") {
    const int n = 5;
    const double k = 50, m = 2;
    const ModesResult r = modes(compile(spring_chain(n, false), "chain.mdl"));
    REQUIRE(r.modes() == static_cast<std::size_t>(n));
    for (int j = 1; j <= n; ++j) {
        const double omega = 2 * std::sqrt(k / m) * std::sin((2 * j - 1) * pi / (2 * (2 * n + 1)));
        CHECK(r.omega[static_cast<std::size_t>(j - 1)] == Approx(omega).epsilon(1e-12));
    }
}

TEST_CASE("modes of a pendulum written with a rod constraint: sqrt(g/l)", "[modes]") {
    // starts off the circle and off the bottom: the equilibrium is found by Newton
    const char* source = R"(model RodPendulum
  parameter Real m = 0.7, l = 1.3, g = 9.81;
  body b(m = m, x(start = 0.5), y(start = -1.0));
  constraint rod: b.x^2 + b.y^2 = l^2;
  gravity G(y = -g);
end RodPendulum;
)";
    const ModesResult r = modes(compile(source, "rod_pendulum.mdl"));
    REQUIRE(r.degrees_of_freedom == 1);
    REQUIRE(r.modes() == 1);
    CHECK(r.omega[0] == Approx(std::sqrt(9.81 / 1.3)).epsilon(1e-10));
    CHECK(r.kind[0] == "oscillatory");
    CHECK(r.equilibrium[index_of(r, "b.x")] == Approx(0).margin(1e-12));
    CHECK(r.equilibrium[index_of(r, "b.y")] == Approx(-1.3).epsilon(1e-12));
    // the rod's multiplier: G^T lambda = (0, 2 y lambda) balances m g, lambda = -m g / (2 l)
    CHECK(r.multipliers[0] == Approx(-0.7 * 9.81 / (2 * 1.3)).epsilon(1e-10));
    // the shape moves the bob sideways only, |phi|_M = 1: phi_x = 1/sqrt(m)
    CHECK(r.shape(0)[index_of(r, "b.x")] == Approx(1 / std::sqrt(0.7)).epsilon(1e-10));
    CHECK(r.shape(0)[index_of(r, "b.y")] == Approx(0).margin(1e-12));
}

namespace {

// The two small-oscillation frequencies of the double pendulum (masses m1, m2 on rods l1, l2
// hanging under gravity g): the roots of
//   m1 l1 l2 w^4 - (m1 + m2) g (l1 + l2) w^2 + (m1 + m2) g^2 = 0.
std::pair<double, double> double_pendulum_omegas(double m1, double m2, double l1, double l2,
                                                 double g) {
    const double a = m1 * l1 * l2, b = -(m1 + m2) * g * (l1 + l2), c = (m1 + m2) * g * g;
    const double root = std::sqrt(b * b - 4 * a * c);
    return {std::sqrt((-b - root) / (2 * a)), std::sqrt((-b + root) / (2 * a))};
}

} // namespace

TEST_CASE("modes of the double pendulum with rod constraints against the closed form", "[modes]") {
    const char* source = R"(model DoubleRod
  parameter Real m1 = 1.5, m2 = 0.5, l1 = 1.0, l2 = 0.6, g = 9.81;
  body b1(m = m1, x(start = 0.1), y(start = -1.0));
  body b2(m = m2, x(start = 0.2), y(start = -1.6));
  constraint rod1: b1.x^2 + b1.y^2 = l1^2;
  constraint rod2: (b2.x - b1.x)^2 + (b2.y - b1.y)^2 = l2^2;
  gravity G(y = -g);
end DoubleRod;
)";
    const ModesResult r = modes(compile(source, "double_rod.mdl"));
    const auto [w1, w2] = double_pendulum_omegas(1.5, 0.5, 1.0, 0.6, 9.81);
    REQUIRE(r.degrees_of_freedom == 2);
    REQUIRE(r.modes() == 2);
    CHECK(r.omega[0] == Approx(w1).epsilon(1e-10));
    CHECK(r.omega[1] == Approx(w2).epsilon(1e-10));
    // the slow mode swings both bobs the same way, the fast one in opposition
    const double x1 = r.shape(0)[index_of(r, "b1.x")], x2 = r.shape(0)[index_of(r, "b2.x")];
    const double y1 = r.shape(1)[index_of(r, "b1.x")], y2 = r.shape(1)[index_of(r, "b2.x")];
    CHECK(x1 * x2 > 0);
    CHECK(y1 * y2 < 0);
    // closed-form amplitude ratio of the angles: phi2/phi1 = (g - l1 w^2)... in x: x2/x1 =
    // 1 + (l2 / l1) (phi2 / phi1), phi2 / phi1 = ((m1 + m2)(g - l1 w^2)) / (m2 l2 w^2)
    for (const auto& [w, ratio] : {std::pair{w1, x2 / x1}, std::pair{w2, y2 / y1}}) {
        const double phi = (1.5 + 0.5) * (9.81 - 1.0 * w * w) / (0.5 * 0.6 * w * w);
        CHECK(ratio == Approx(1 + 0.6 / 1.0 * phi).epsilon(1e-8));
    }
}

TEST_CASE("modes of the double pendulum in joint angles (M(q), vibration averaged out)",
          "[modes]") {
    // models/double_pendulum_angles.mdl: angles from the upward vertical, potential
    // (m1 y1 + m2 y2)(g + a(t)); averaging the vibration leaves gravity. Hanging down:
    CompiledModel model = compile_file(model_path("double_pendulum_angles.mdl"));
    ModesOptions options;
    options.at = {{"q1", 3.0}, {"q2", 3.3}};
    const ModesResult down = modes(model, options);
    const auto [w1, w2] = double_pendulum_omegas(0.01, 0.005, 0.2, 0.1, 9.8);
    REQUIRE(down.modes() == 2);
    CHECK(down.equilibrium[0] == Approx(pi).epsilon(1e-12));
    CHECK(down.equilibrium[1] == Approx(pi).epsilon(1e-12));
    CHECK(down.omega[0] == Approx(w1).epsilon(1e-10));
    CHECK(down.omega[1] == Approx(w2).epsilon(1e-10));
    REQUIRE(down.notes.size() == 1);
    CHECK(down.notes[0].find("vibration a averaged") != std::string::npos);
    // upright: both modes unstable with the same |omega^2| (the potential's Hessian changes
    // sign); the averaged model has no Kapitza stabilization
    options.at = {{"q1", 0.1}, {"q2", -0.1}};
    const ModesResult up = modes(model, options);
    REQUIRE(up.modes() == 2);
    CHECK(up.equilibrium[0] == Approx(0).margin(1e-12));
    CHECK(up.kind[0] == "unstable");
    CHECK(up.kind[1] == "unstable");
    CHECK(up.damping_ratio[0] == -1);
    CHECK(up.omega[0] == Approx(w1).epsilon(1e-10));
    CHECK(up.omega[1] == Approx(w2).epsilon(1e-10));
}

TEST_CASE("modes of the damped oscillator: omega_0 = sqrt(k/m), zeta = c / (2 sqrt(k m))",
          "[modes]") {
    CompiledModel model = compile_file(model_path("damped_oscillator.mdl"));
    ModesResult r = modes(model);
    REQUIRE(r.modes() == 1);
    CHECK(r.omega[0] == Approx(2.0).epsilon(1e-12));
    CHECK(r.damping_ratio[0] == Approx(0.1).epsilon(1e-12));
    CHECK(r.kind[0] == "oscillatory");
    CHECK(r.equilibrium[0] == Approx(0).margin(1e-14)); // released from x0 = 1
    CHECK(r.shape(0)[0] == Approx(1.0).epsilon(1e-12)); // m = 1
    // overdamped (zeta = 2.5): two real roots s = -w0 (zeta -+ sqrt(zeta^2 - 1))
    model.set_parameter("c", 10);
    r = modes(model);
    REQUIRE(r.modes() == 2);
    const double zeta = 2.5, root = std::sqrt(zeta * zeta - 1);
    CHECK(r.omega[0] == Approx(2 * (zeta - root)).epsilon(1e-10));
    CHECK(r.omega[1] == Approx(2 * (zeta + root)).epsilon(1e-10));
    CHECK(r.kind[0] == "overdamped");
    CHECK(r.damping_ratio[1] == 1);
}

TEST_CASE("gyroscopic modes: a mass on a spring seen from a rotating frame, omega_0 -+ W",
          "[modes]") {
    // m (r'' + 2 W x r' + W x (W x r)) = -k r in a frame turning at W: z = x + i y obeys
    // z'' + 2 i W z' + (omega_0^2 - W^2) z = 0, s = i (-W +- omega_0): the companion form's
    // eigenvalues with an antisymmetric C
    const char* source = R"(model Rotating
  parameter Real m = 2, k = 18, W = 0.5;
  anchor O(x = 0, y = 0);
  body b(m = m, x(start = 0.1), y(start = -0.2));
  spring s(O, b, k = k);
  force frame(b) = {2*m*W*b.vy + m*W^2*b.x, -2*m*W*b.vx + m*W^2*b.y};
end Rotating;
)";
    const ModesResult r = modes(compile(source, "rotating.mdl"));
    REQUIRE(r.modes() == 2);
    CHECK(r.omega[0] == Approx(3 - 0.5).epsilon(1e-12));
    CHECK(r.omega[1] == Approx(3 + 0.5).epsilon(1e-12));
    for (std::size_t k = 0; k < 2; ++k) {
        CHECK(r.damping_ratio[k] == Approx(0).margin(1e-12));
        CHECK(r.kind[k] == "oscillatory");
    }
    // C = -df/dv is the antisymmetric gyroscopic matrix [0 -2mW; 2mW 0]
    CHECK(r.damping[1] == Approx(-2 * 2 * 0.5).epsilon(1e-15));
    CHECK(r.damping[2] == Approx(2 * 2 * 0.5).epsilon(1e-15));
}

TEST_CASE("a free pair of masses has a rigid-body mode at omega = 0", "[modes]") {
    const char* source = R"(model FreePair
  parameter Real m1 = 1, m2 = 3, k = 12, c = 0;
  body a(m = m1, x(start = 0));
  body b(m = m2, x(start = 1.5));
  spring s(a, b, k = k, length = 1);
  damper d(a, b, c = c);
end FreePair;
)";
    CompiledModel model = compile(source, "free_pair.mdl");
    ModesResult r = modes(model);
    REQUIRE(r.modes() == 2);
    CHECK(r.kind[0] == "rigid body");
    CHECK(r.omega[0] == 0);
    // the rigid mode moves both masses alike, (m1 + m2) phi^2 = 1
    CHECK(r.shape(0)[0] == Approx(0.5).epsilon(1e-10));
    CHECK(r.shape(0)[1] == Approx(0.5).epsilon(1e-10));
    CHECK(r.omega[1] == Approx(std::sqrt(12 * (1 + 1.0 / 3))).epsilon(1e-12));
    // equilibrium: the spring at its rest length, the centre of mass where it started
    CHECK(r.equilibrium[1] - r.equilibrium[0] == Approx(1.0).epsilon(1e-12));
    // with a damper between them: still one rigid mode; the relative motion damped with
    // zeta = c / (2 sqrt(k mu)), mu = m1 m2 / (m1 + m2)
    model.set_parameter("c", 1.5);
    r = modes(model);
    REQUIRE(r.modes() == 2);
    CHECK(r.kind[0] == "rigid body");
    const double mu = 3.0 / 4;
    CHECK(r.omega[1] == Approx(std::sqrt(12 / mu)).epsilon(1e-10));
    CHECK(r.damping_ratio[1] == Approx(1.5 / (2 * std::sqrt(12 * mu))).epsilon(1e-10));
}

namespace {

// The four-bar of models/four_bar.mdl reduced by hand to its crank angle t: the loop closure
// by circle intersection (the branch with the coupler above the line A-O4, as the model
// starts), the centroids, the potential V(t) = 9.81 sum m_i y_i and the generalized inertia
// J(t) = sum m_i |d c_i/dt|^2 + J_i (d phi_i/dt)^2, derivatives by central differences.
struct FourBar {
    double a = 0.1, b = 0.35, c = 0.3, d = 0.3, mu = 1, g = 9.81;
    struct Pose {
        double ax, ay, bx, by, phi3, phi4;
    };
    Pose pose(double t) const {
        const double ax = a * std::cos(t), ay = a * std::sin(t);
        const double ex = d - ax, ey = -ay, e = std::hypot(ex, ey); // A to O4
        const double along = (b * b - c * c + e * e) / (2 * e);
        const double h = std::sqrt(b * b - along * along);
        const double bx = ax + along * ex / e - h * ey / e, by = ay + along * ey / e + h * ex / e;
        return {ax, ay, bx, by, std::atan2(by - ay, bx - ax), std::atan2(by, bx - d)};
    }
    double potential(double t) const {
        const Pose p = pose(t);
        return g * mu * (a * p.ay / 2 + b * (p.ay + p.by) / 2 + c * p.by / 2);
    }
    double inertia(double t) const {
        const double h = 1e-6;
        const Pose p = pose(t + h), q = pose(t - h);
        const auto rate = [&](double x, double y) {
            return (x - y) / (2 * h);
        };
        const double vcx1 = rate(p.ax, q.ax) / 2, vcy1 = rate(p.ay, q.ay) / 2;
        const double vcx2 = rate(p.ax + p.bx, q.ax + q.bx) / 2;
        const double vcy2 = rate(p.ay + p.by, q.ay + q.by) / 2;
        const double vcx3 = rate(p.bx, q.bx) / 2, vcy3 = rate(p.by, q.by) / 2;
        const double w3 = rate(p.phi3, q.phi3), w4 = rate(p.phi4, q.phi4);
        return mu * a * (vcx1 * vcx1 + vcy1 * vcy1) + mu * a * a * a / 12 +
               mu * b * (vcx2 * vcx2 + vcy2 * vcy2) + mu * b * b * b / 12 * w3 * w3 +
               mu * c * (vcx3 * vcx3 + vcy3 * vcy3) + mu * c * c * c / 12 * w4 * w4;
    }
    double dV(double t) const {
        const double h = 1e-5;
        return (potential(t + h) - potential(t - h)) / (2 * h);
    }
    double d2V(double t) const {
        const double h = 1e-4;
        return (potential(t + h) - 2 * potential(t) + potential(t - h)) / (h * h);
    }
};

} // namespace

TEST_CASE("modes of the four-bar linkage about its rest position against a hand reduction",
          "[modes]") {
    const FourBar bar;
    // the rest position: V'(t) = 0 at a minimum, by bisection on V' over the crank angles
    // where V' goes from negative to positive
    double lo = 0, hi = 0;
    for (int i = 0; i < 720; ++i) {
        const double t0 = -pi + 2 * pi * i / 720, t1 = t0 + 2 * pi / 720;
        if (bar.dV(t0) < 0 && bar.dV(t1) >= 0) {
            lo = t0;
            hi = t1;
        }
    }
    REQUIRE(hi > lo);
    for (int i = 0; i < 60; ++i) {
        const double mid = 0.5 * (lo + hi);
        (bar.dV(mid) < 0 ? lo : hi) = mid;
    }
    const double rest = 0.5 * (lo + hi);
    const double omega = std::sqrt(bar.d2V(rest) / bar.inertia(rest));

    CompiledModel model = compile_file(model_path("four_bar.mdl"));
    // from the model's start (the crank at 1 rad) the search goes downhill to the rest position
    const ModesResult from_start = modes(model);
    REQUIRE(from_start.modes() == 1);
    CHECK(from_start.equilibrium[index_of(from_start, "crank.phi")] == Approx(rest).margin(1e-7));
    CHECK(from_start.omega[0] == Approx(omega).epsilon(1e-6));
    // Newton from a point near it
    ModesOptions options;
    options.at = {{"crank.phi", rest + 0.2}};
    const ModesResult r = modes(model, options);
    REQUIRE(r.degrees_of_freedom == 1);
    REQUIRE(r.modes() == 1);
    CHECK(r.equilibrium[index_of(r, "crank.phi")] == Approx(rest).margin(1e-7));
    CHECK(r.omega[0] == Approx(omega).epsilon(1e-6));
    CHECK(r.kind[0] == "oscillatory");
    // the shape's crank and rocker rotations in the ratio of the loop's velocity ratio
    const double h = 1e-6;
    const double ratio = (bar.pose(rest + h).phi4 - bar.pose(rest - h).phi4) / (2 * h);
    CHECK(r.shape(0)[index_of(r, "rocker.phi")] / r.shape(0)[index_of(r, "crank.phi")] ==
          Approx(ratio).epsilon(1e-6));
}

TEST_CASE("modes from a start where Newton's matrix is singular: the triple pendulum at rest",
          "[modes]") {
    // models/pendulum_chain.mdl (rods) and models/n_link_pendulum.mdl (joint angles, M(q))
    // start with the links horizontal: the search goes downhill to the hanging chain. Equal
    // masses m and lengths l: omega^2 = (g / l) x, x the roots of x^3 - 9 x^2 + 18 x - 6
    // (the triple pendulum's characteristic polynomial), found here by bisection.
    const auto p = [](double x) {
        return ((x - 9) * x + 18) * x - 6;
    };
    std::vector<double> roots;
    for (const auto& [lo0, hi0] : {std::pair{0.0, 1.0}, std::pair{1.0, 3.0}, std::pair{3.0, 9.0}}) {
        double lo = lo0, hi = hi0;
        for (int i = 0; i < 80; ++i) {
            const double mid = 0.5 * (lo + hi);
            ((p(lo) < 0) == (p(mid) < 0) ? lo : hi) = mid;
        }
        roots.push_back(0.5 * (lo + hi));
    }
    for (const char* file : {"pendulum_chain.mdl", "n_link_pendulum.mdl"}) {
        INFO(file);
        const ModesResult r = modes(compile_file(model_path(file)));
        REQUIRE(r.modes() == 3);
        CHECK(r.search.find("pseudo-transient continuation") != std::string::npos);
        for (std::size_t k = 0; k < 3; ++k) {
            CHECK(r.omega[k] == Approx(std::sqrt(9.81 * roots[k])).epsilon(1e-9));
            CHECK(r.kind[k] == "oscillatory");
        }
    }
}

TEST_CASE("modes: no equilibrium names the residual, time-dependent forcing is refused",
          "[modes]") {
    const char* falling = R"(model Falling
  body b(m = 1, x(start = 0), y(start = 0));
  gravity G(y = -9.81);
end Falling;
)";
    try {
        modes(compile(falling, "falling.mdl"));
        FAIL("no exception");
    } catch (const NumericalFailure& e) {
        const std::string what = e.what();
        CHECK(what.find("the force balance of 'b.y'") != std::string::npos);
        CHECK(what.find("-9.81") != std::string::npos);
        CHECK(what.find("singular") != std::string::npos);
    }
    const char* driven = R"(model Driven
  parameter Real F = 1;
  body b(m = 1, x(start = 0));
  anchor O(x = 0);
  spring s(O, b, k = 4);
  force push(b) = {F*cos(3*time)};
end Driven;
)";
    CompiledModel model = compile(driven, "driven.mdl");
    CHECK_THROWS_WITH(modes(model), Catch::Contains("force on 'b.x'") &&
                                        Catch::Contains("depends on time explicitly"));
    model.set_parameter("F", 0); // forcing switched off: the modes of the spring
    const ModesResult r = modes(model);
    REQUIRE(r.modes() == 1);
    CHECK(r.omega[0] == Approx(2.0).epsilon(1e-12));
    ModesOptions options;
    options.at = {{"b.q", 1}};
    CHECK_THROWS_WITH(modes(model, options), Catch::Contains("no position 'b.q'"));
}
