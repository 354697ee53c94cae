// The hand-built systems the symbolic and codegen tests share, with their hand-derived
// formulas. Each builder returns the system after derive_kernels.
#pragma once

#include "symbolic/derivative.hpp"
#include "symbolic/derive_kernels.hpp"
#include "symbolic/system.hpp"

#include <cmath>
#include <memory>
#include <vector>

namespace mdl::test {

using symbolic::Expr;
using symbolic::Kernel;
using symbolic::System;

// (a) Kapitza pendulum: q'' = (g + a)/l sin q with the support vibration
// a = vmax*omega*cos(theta), theta = omega*t + theta0.
// Parameters: l, g, vmax, omega, theta0.
inline std::unique_ptr<System> kapitza() {
    auto s = std::make_unique<System>(symbolic::SystemSizes{1, 0, 0, 1, 5});
    s->names.parameters = {"l", "g", "vmax", "omega", "theta0"};
    s->names.positions = {"phi"};
    s->names.phases = {"theta"};
    const Expr l = s->parameter(0), g = s->parameter(1), vmax = s->parameter(2),
               omega = s->parameter(3), theta0 = s->parameter(4);
    const Expr q = s->position(0);
    const Expr a = vmax * omega * cos(s->phase(0));
    s->outputs(Kernel::mass) = {s->constant(1.0)};
    s->outputs(Kernel::force) = {(g + a) / l * sin(q)};
    s->outputs(Kernel::phase) = {omega * s->time() + theta0};
    symbolic::derive_kernels(*s);
    return s;
}

struct KapitzaPoint {
    double t, q, v, theta;
    double l, g, vmax, omega, theta0;

    double a() const { return vmax * omega * std::cos(theta); }
    double force() const { return (g + a()) / l * std::sin(q); }
    double force_dq() const { return (g + a()) / l * std::cos(q); }
    double phase() const { return omega * t + theta0; }
};

// (b) Planar double pendulum in descriptor form: positions x1, y1, x2, y2, masses m1, m2,
// vertical support acceleration a = A*omega^2*cos(theta), theta = omega*t.
// U = (m1 y1 + m2 y2)(g + a), f = -grad U,
// g1 = x1^2 + y1^2 - l1^2, g2 = (x2 - x1)^2 + (y2 - y1)^2 - l2^2.
// Parameters: m1, m2, l1, l2, g, A, omega.
inline std::unique_ptr<System> double_pendulum() {
    auto s = std::make_unique<System>(symbolic::SystemSizes{4, 0, 2, 1, 7});
    s->names.parameters = {"m1", "m2", "l1", "l2", "g", "A", "omega"};
    s->names.positions = {"x1", "y1", "x2", "y2"};
    s->names.phases = {"theta"};
    const Expr m1 = s->parameter(0), m2 = s->parameter(1), l1 = s->parameter(2),
               l2 = s->parameter(3), g = s->parameter(4), A = s->parameter(5),
               omega = s->parameter(6);
    const Expr x1 = s->position(0), y1 = s->position(1), x2 = s->position(2), y2 = s->position(3);
    const Expr a = A * pow(omega, 2.0) * cos(s->phase(0));
    const Expr U = (m1 * y1 + m2 * y2) * (g + a);
    symbolic::ExprPool& pool = s->pool();
    std::vector<symbolic::ExprId> force =
        symbolic::gradient(pool, U, symbolic::VarKind::position, 4);
    for (auto& f : force) {
        f = pool.neg(f);
    }
    s->outputs(Kernel::mass) = {m1, m1, m2, m2};
    s->outputs(Kernel::force) = force;
    s->outputs(Kernel::potential) = {U};
    s->outputs(Kernel::constraint) = {
        pow(x1, 2.0) + pow(y1, 2.0) - pow(l1, 2.0),
        pow(x2 - x1, 2.0) + pow(y2 - y1, 2.0) - pow(l2, 2.0),
    };
    s->outputs(Kernel::phase) = {omega * s->time()};
    symbolic::derive_kernels(*s);
    return s;
}

struct DoublePendulumPoint {
    double t;
    double q[4]; // x1, y1, x2, y2
    double v[4];
    double theta;
    double m1, m2, l1, l2, g, A, omega;

    double a() const { return A * omega * omega * std::cos(theta); }
    double potential() const { return (m1 * q[1] + m2 * q[3]) * (g + a()); }
    std::vector<double> force() const { return {0.0, -m1 * (g + a()), 0.0, -m2 * (g + a())}; }
    std::vector<double> constraint() const {
        const double dx = q[2] - q[0], dy = q[3] - q[1];
        return {q[0] * q[0] + q[1] * q[1] - l1 * l1, dx * dx + dy * dy - l2 * l2};
    }
    // G, row-major 2 x 4.
    std::vector<double> jacobian() const {
        const double dx = q[2] - q[0], dy = q[3] - q[1];
        return {2 * q[0], 2 * q[1], 0.0, 0.0, -2 * dx, -2 * dy, 2 * dx, 2 * dy};
    }
    // (d/dq (G v)) v: 2(vx1^2 + vy1^2) and 2((vx2 - vx1)^2 + (vy2 - vy1)^2).
    std::vector<double> curvature() const {
        const double dvx = v[2] - v[0], dvy = v[3] - v[1];
        return {2 * (v[0] * v[0] + v[1] * v[1]), 2 * (dvx * dvx + dvy * dvy)};
    }
};

// (c) Damped, driven oscillator with a first-order filter state:
// m q'' = -k q - c v + F0 sin(w t),  x' = (q - x)/tau,  U = k q^2 / 2.
// Parameters: m, k, c, F0, w, tau.
inline std::unique_ptr<System> damped_oscillator() {
    auto s = std::make_unique<System>(symbolic::SystemSizes{1, 1, 0, 0, 6});
    s->names.parameters = {"m", "k", "c", "F0", "w", "tau"};
    s->names.positions = {"q"};
    s->names.states = {"x"};
    const Expr m = s->parameter(0), k = s->parameter(1), c = s->parameter(2), F0 = s->parameter(3),
               w = s->parameter(4), tau = s->parameter(5);
    const Expr q = s->position(0), v = s->velocity(0), x = s->state(0);
    s->outputs(Kernel::mass) = {m};
    s->outputs(Kernel::force) = {-k * q - c * v + F0 * sin(w * s->time())};
    s->outputs(Kernel::rates) = {(q - x) / tau};
    s->outputs(Kernel::potential) = {0.5 * k * pow(q, 2.0)};
    symbolic::derive_kernels(*s);
    return s;
}

struct DampedOscillatorPoint {
    double t, q, v, x;
    double m, k, c, F0, w, tau;

    double force() const { return -k * q - c * v + F0 * std::sin(w * t); }
    double rates() const { return (q - x) / tau; }
    double potential() const { return 0.5 * k * q * q; }
    double force_dq() const { return -k; }
    double force_dv() const { return -c; }
};

// |a - b| <= tol * max(|a|, |b|), and exact equality at zero.
inline bool close_relative(double a, double b, double tol) {
    return std::fabs(a - b) <= tol * std::fmax(std::fabs(a), std::fabs(b));
}

} // namespace mdl::test
