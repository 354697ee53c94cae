// A second generator of random vibrated models (issue 31), for what users combine and
// random_vibrated_model.hpp lacks: kinetic energies with a coupled M(q) (a double pendulum in
// joint angles), planar rigid bodies on revolute and prismatic joints, point masses on rods
// (constraints) with damping, nonlinear velocity dependence (tanh(der(x)/v0) friction), two
// commensurate vibrations (omega and 2 omega) and large slow motions (start speeds of order
// 1 rad/s and more). Every model is a valid .mdl text whose fast forcing is O(omega) with zero
// mean (Calvo & Sanz-Serna, SIAM J. Sci. Comput. 32 (2010), eqs. (3.1)-(3.3)).
//
// Deterministic for a seed (SplitMix of random_vibrated_model.hpp). A separate generator so
// that the seeds of the first one keep their models.
#pragma once

#include "random_vibrated_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace mdl::test {

enum class ExtendedFamily { mass_matrix, rigid_revolute, rigid_prismatic, rod_damped, friction };

inline const char* to_string(ExtendedFamily f) {
    switch (f) {
    case ExtendedFamily::mass_matrix:
        return "M(q) double pendulum";
    case ExtendedFamily::rigid_revolute:
        return "rigid rod on a revolute joint";
    case ExtendedFamily::rigid_prismatic:
        return "cart on a prismatic joint with a pendulum";
    case ExtendedFamily::rod_damped:
        return "point mass on a damped rod";
    case ExtendedFamily::friction:
        return "tanh friction";
    }
    return "?";
}

struct RandomExtendedModel {
    std::string text;
    ExtendedFamily family = ExtendedFamily::mass_matrix;
    bool constrained = false;
    bool velocity_dependent = false; // dampers, friction, M(q)'s velocity terms
    bool two_vibrations = false;     // omega and 2 omega
    bool even = true;                // every wave a cosine at phase 0
    // An upper bound of the averaged motion's squared frequency Omega^2 (gravity, springs and
    // the Kapitza stiffness (v/l)^2 of the vibrations' velocity amplitudes v): the macro
    // error of a step H scales with (Omega H)^2.
    double stiffness = 1.0;
};

// omega: the base rate of the vibrations.
inline RandomExtendedModel random_extended_model(std::uint64_t seed, double omega) {
    SplitMix r(seed * 7919 + 17);
    RandomExtendedModel out;
    out.family = static_cast<ExtendedFamily>(r.pick(5));
    out.two_vibrations = r.chance(0.3);
    const bool odd = r.chance(0.2);
    out.even = !odd;
    std::string t = "model Extended" + std::to_string(seed) + "\n";
    t += "  parameter Real omega = " + number(omega) + ";\n";
    const double vmax = r.uniform(1.0, 3.0);
    t += "  parameter Real vmax = " + number(vmax) + ";\n";
    t += std::string("  vibration a(theta = omega*time) = vmax*omega*") +
         (odd ? "sin(theta)" : "cos(theta)") + ";\n";
    std::string fast = "a";
    double amplitude = vmax; // the vibrations' velocity amplitudes, summed
    if (out.two_vibrations) {
        const double b = r.uniform(0.5, 2.0);
        t += "  vibration b(theta = 2*omega*time) = " + number(b) + "*omega*cos(theta);\n";
        amplitude += b / 2.0; // its velocity amplitude b/2
        fast = "(a + b)";
    }
    // large slow motions: start angles up to 1.2 rad, speeds up to 2 rad/s
    const double q0 = r.uniform(-1.2, 1.2), w0 = r.uniform(-2.0, 2.0);
    const double g = r.uniform(0.5, 3.0);
    switch (out.family) {
    case ExtendedFamily::mass_matrix: {
        const double m1 = r.uniform(0.5, 2.0), m2 = r.uniform(0.5, 2.0);
        const double l1 = r.uniform(0.5, 1.5), l2 = r.uniform(0.5, 1.5);
        const double l = std::min(l1, l2);
        out.stiffness = g / l + (amplitude / l) * (amplitude / l);
        out.velocity_dependent = true;
        t += "  parameter Real m1 = " + number(m1) + ", m2 = " + number(m2) +
             ", l1 = " + number(l1) + ", l2 = " + number(l2) + ", g = " + number(g) + ";\n";
        t += "  coordinate q1(start = " + number(q0) + ", vstart = " + number(w0) + ");\n";
        t += "  coordinate q2(start = " + number(r.uniform(-0.5, 0.5)) + ");\n";
        t += "  kinetic T = m1/2*l1^2*der(q1)^2 + m2/2*(l1^2*der(q1)^2 + l2^2*der(q2)^2 "
             "+ 2*l1*l2*cos(q1 - q2)*der(q1)*der(q2));\n";
        // hanging (stable) pendulum, the pivot vibrated vertically: the potential in the
        // pivot's frame
        t +=
            "  potential U = -(m1*l1*cos(q1) + m2*(l1*cos(q1) + l2*cos(q2)))*(g + " + fast + ");\n";
        if (r.chance(0.4)) {
            t += "  force damp1(q1) = -" + number(r.uniform(0.02, 0.2)) + "*der(q1);\n";
        }
        break;
    }
    case ExtendedFamily::rigid_revolute: {
        const double L = r.uniform(0.5, 1.5), m = r.uniform(0.5, 2.0);
        out.stiffness = 2.0 * g / L + (2.0 * amplitude / L) * (2.0 * amplitude / L);
        const double phi = 1.5707963267948966 - q0; // the rod's axis, q0 from the upward vertical
        t += "  parameter Real L = " + number(L) + ", m = " + number(m) + ";\n";
        t += "  anchor O(x = 0, y = 0);\n";
        t += "  rigid rod(m = m, J = m*L^2/12, x(start = " + number(L / 2 * std::cos(phi)) +
             "), y(start = " + number(L / 2 * std::sin(phi)) + "), phi(start = " + number(phi) +
             "));\n";
        t += "  point tip(rod, x = -L/2);\n";
        t += "  revolute pivot(O, tip);\n";
        t += "  gravity G(y = -" + number(g) + ");\n";
        // the vibrated pivot's inertial force on the centre of mass
        t += "  force shake(rod) = {0, -m*" + fast + ", 0};\n";
        break;
    }
    case ExtendedFamily::rigid_prismatic: {
        const double L = r.uniform(0.5, 1.5), m = r.uniform(0.5, 2.0), M = r.uniform(0.5, 2.0);
        out.stiffness = g / L + (amplitude / L) * (amplitude / L) + 2.0 / M;
        t += "  parameter Real L = " + number(L) + ", m = " + number(m) + ", M = " + number(M) +
             ";\n";
        t += "  anchor O(x = 0, y = 0);\n";
        t += "  rigid cart(m = M, J = M/12, x(start = 0), vx(start = " + number(w0 / 4) +
             "), y(start = 0), phi(start = 0));\n";
        t += "  prismatic rail(O, cart, x = 1, y = 0);\n";
        t += "  body bob(m = m, x(start = " + number(L * std::sin(q0)) +
             "), y(start = " + number(-L * std::cos(q0)) + "));\n";
        t += "  constraint rod: (bob.x - cart.x)^2 + (bob.y - cart.y)^2 = L^2;\n";
        t += "  gravity G(y = -" + number(g) + ");\n";
        t += "  spring k(O, cart, k = " + number(r.uniform(0.5, 2.0)) + ", length = 0);\n";
        t += "  force shake(bob) = {0, -m*" + fast + "};\n";
        break;
    }
    case ExtendedFamily::rod_damped: {
        const double l = r.uniform(0.5, 1.5);
        out.stiffness = g / l + (0.5 * amplitude / l) * (0.5 * amplitude / l);
        out.velocity_dependent = true;
        t += "  parameter Real l = " + number(l) + ", g = " + number(g) + ";\n";
        t += "  body p(m = 1, x(start = " + number(l * std::sin(q0)) +
             "), y(start = " + number(l * std::cos(q0)) + "));\n";
        t += "  constraint rod: p.x^2 + p.y^2 = l^2;\n";
        t += "  potential U = p.y*(g + 0.5*" + fast + ");\n";
        t += "  force friction(p) = {-" + number(r.uniform(0.05, 0.3)) + "*p.vx, -" +
             number(r.uniform(0.05, 0.3)) + "*p.vy};\n";
        break;
    }
    case ExtendedFamily::friction: {
        out.velocity_dependent = true;
        const double m = r.uniform(0.5, 2.0), k = r.uniform(0.5, 2.0), A = r.uniform(0.3, 1.0);
        const double mu = r.uniform(0.1, 0.5), v0 = r.uniform(0.2, 1.0);
        out.stiffness = k / m + 0.5 * (A * amplitude / m) * (A * amplitude / m);
        t += "  coordinate x(start = " + number(q0) + ", vstart = " + number(w0) +
             ", m = " + number(m) + ");\n";
        t += "  potential U = " + number(k) + "/2*x^2;\n";
        t += "  force f(x) = " + number(A) + "*" + fast + "*sin(x) - " + number(mu) +
             "*tanh(der(x)/" + number(v0) + ");\n";
        break;
    }
    }
    t += "end Extended" + std::to_string(seed) + ";\n";
    out.constrained = out.family == ExtendedFamily::rigid_revolute ||
                      out.family == ExtendedFamily::rigid_prismatic ||
                      out.family == ExtendedFamily::rod_damped;
    out.text = t;
    return out;
}

} // namespace mdl::test
