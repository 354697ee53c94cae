#include "handwritten.hpp"

#include <cmath>

// handwritten_native.cpp compiles this file again into another namespace.
#ifndef MDL_HANDWRITTEN_NAMESPACE
#define MDL_HANDWRITTEN_NAMESPACE handwritten
#endif

namespace mdl::bench::MDL_HANDWRITTEN_NAMESPACE {

void kapitza_force(const mdl_kernel_args* args, double* out) {
    const double* p = args->p;
    const double l = p[0], g = p[1], vmax = p[2], omega = p[3];
    out[0] = (g + vmax * omega * std::cos(args->theta[0])) / l * std::sin(args->q[0]);
}

void double_pendulum_force(const mdl_kernel_args* args, double* out) {
    const double* p = args->p;
    const double m1 = p[0], m2 = p[1], g = p[4], vmax = p[5], omega = p[6];
    const double effective_gravity = g + vmax * omega * std::cos(args->theta[0]);
    out[0] = 0.0;
    out[1] = -m1 * effective_gravity;
    out[2] = 0.0;
    out[3] = -m2 * effective_gravity;
}

void double_pendulum_constraint_jacobian(const mdl_kernel_args* args, double* out) {
    const double* q = args->q;
    const double x1 = q[0], y1 = q[1], x2 = q[2], y2 = q[3];
    const double dx = x2 - x1, dy = y2 - y1;
    out[0] = 2.0 * x1;
    out[1] = 2.0 * y1;
    out[2] = 0.0;
    out[3] = 0.0;
    out[4] = -2.0 * dx;
    out[5] = -2.0 * dy;
    out[6] = 2.0 * dx;
    out[7] = 2.0 * dy;
}

void double_pendulum_curvature(const mdl_kernel_args* args, double* out) {
    const double* v = args->v;
    const double dvx = v[2] - v[0], dvy = v[3] - v[1];
    out[0] = 2.0 * (v[0] * v[0] + v[1] * v[1]);
    out[1] = 2.0 * (dvx * dvx + dvy * dvy);
}

void stiff_springs_force(const mdl_kernel_args* args, double* out) {
    const double* p = args->p;
    const double* q = args->q;
    const double k1 = p[0] * p[0], k2 = p[1] * p[1], len = p[3];
    const double x1 = q[0], y1 = q[1];
    const double dx = q[0] - q[2], dy = q[1] - q[3];
    const double r1 = std::sqrt(x1 * x1 + y1 * y1);
    const double r12 = std::sqrt(dx * dx + dy * dy);
    const double c1 = -k1 * (r1 - len) / r1;
    const double c12 = -k2 * (r12 - len) / r12;
    out[0] = c1 * x1 + c12 * dx;
    out[1] = c1 * y1 + c12 * dy;
    out[2] = -c12 * dx;
    out[3] = -c12 * dy;
}

void stiff_springs_force_dq(const mdl_kernel_args* args, double* out) {
    const double* p = args->p;
    const double* q = args->q;
    const double k1 = p[0] * p[0], k2 = p[1] * p[1], len = p[3];
    const double x1 = q[0], y1 = q[1];
    const double dx = q[0] - q[2], dy = q[1] - q[3];
    // spring 1 (origin to mass 1): K1 = k1 [(len/r1 - 1) I - len d1 d1^T / r1^3]
    const double s1 = x1 * x1 + y1 * y1, r1 = std::sqrt(s1);
    const double a1 = k1 * (len / r1 - 1.0), b1 = k1 * len / (r1 * s1);
    const double k1xx = a1 - b1 * x1 * x1, k1xy = -b1 * x1 * y1, k1yy = a1 - b1 * y1 * y1;
    // spring 2 (mass 1 to mass 2): K2 likewise with d12 = q1 - q2; +K2 on the diagonal blocks,
    // -K2 off them
    const double s12 = dx * dx + dy * dy, r12 = std::sqrt(s12);
    const double a2 = k2 * (len / r12 - 1.0), b2 = k2 * len / (r12 * s12);
    const double k2xx = a2 - b2 * dx * dx, k2xy = -b2 * dx * dy, k2yy = a2 - b2 * dy * dy;
    out[0] = k1xx + k2xx;
    out[1] = k1xy + k2xy;
    out[2] = -k2xx;
    out[3] = -k2xy;
    out[4] = k1xy + k2xy;
    out[5] = k1yy + k2yy;
    out[6] = -k2xy;
    out[7] = -k2yy;
    out[8] = -k2xx;
    out[9] = -k2xy;
    out[10] = k2xx;
    out[11] = k2xy;
    out[12] = -k2xy;
    out[13] = -k2yy;
    out[14] = k2xy;
    out[15] = k2yy;
}

} // namespace mdl::bench::MDL_HANDWRITTEN_NAMESPACE
