// Hand-written C++ versions of some JIT kernels, written from the models' equations (not from
// the derived expressions), with the kernel calling convention of kernel_abi.h so that the
// benchmark calls them exactly like the JIT kernels. Compiled with -O2 in their own
// translation unit (bench/CMakeLists.txt), so they cannot be inlined into the timing loop.
// The same source is compiled a second time with -O2 -march=native into namespace
// handwritten_native (handwritten_native.cpp), for comparison: the JIT compiles for the host
// CPU (AVX, FMA, ...), the -O2 build for generic x86-64.
//
// Each reads the model's parameters at the indices of their declaration order; kernel_bench.cpp
// checks the compiled model's parameter and position names against the order assumed here.
#pragma once

#include "abi/kernel_abi.h"

namespace mdl::bench::handwritten {

// models/kapitza.mdl: p = (l, g, vmax, omega, theta0), q = (q), theta = (theta_a).
//   f = (g + vmax*omega*cos(theta))/l * sin(q)
void kapitza_force(const mdl_kernel_args* args, double* out);

// models/double_pendulum.mdl: p = (m1, m2, l1, l2, g, vmax, omega, theta0, q10),
// q = (x1, y1, x2, y2), v alike, theta = (theta_a).
//   f = -grad U = (0, -m1 (g + a), 0, -m2 (g + a)),  a = vmax*omega*cos(theta)
void double_pendulum_force(const mdl_kernel_args* args, double* out);
//   g1 = x1^2 + y1^2 - l1^2, g2 = (x2 - x1)^2 + (y2 - y1)^2 - l2^2; G = dg/dq, 2x4 row-major
void double_pendulum_constraint_jacobian(const mdl_kernel_args* args, double* out);
//   (d/dq (G v)) v = (2 |v1|^2, 2 |v2 - v1|^2)
void double_pendulum_curvature(const mdl_kernel_args* args, double* out);

// models/stiff_springs.mdl: p = (w1, w2, mass, len), q = (x1, y1, x2, y2).
//   f1 = -w1^2 (r1 - len) d1/r1 - w2^2 (r12 - len) d12/r12,  f2 = w2^2 (r12 - len) d12/r12,
//   d1 = (x1, y1), d12 = (x1 - x2, y1 - y2)
void stiff_springs_force(const mdl_kernel_args* args, double* out);
//   df/dq, 4x4 row-major: each spring contributes k [(len/r - 1) I - len d d^T / r^3]
void stiff_springs_force_dq(const mdl_kernel_args* args, double* out);

} // namespace mdl::bench::handwritten

namespace mdl::bench::handwritten_native {

void kapitza_force(const mdl_kernel_args* args, double* out);
void double_pendulum_force(const mdl_kernel_args* args, double* out);
void double_pendulum_constraint_jacobian(const mdl_kernel_args* args, double* out);
void double_pendulum_curvature(const mdl_kernel_args* args, double* out);
void stiff_springs_force(const mdl_kernel_args* args, double* out);
void stiff_springs_force_dq(const mdl_kernel_args* args, double* out);

} // namespace mdl::bench::handwritten_native
