// The state a mechanical model is integrated in: time, positions q, velocities v = dq/dt,
// first-order states x and, for constrained models, the Lagrange multipliers of the
// constraint forces G(q)^T lambda (kernel_abi.h has the equations).
#pragma once

#include <Eigen/Core>

namespace mdl::runtime {

using Vector = Eigen::VectorXd;
// Dense row-major matrices: the layout the kernels write (kernel_abi.h).
using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct State {
    double t = 0.0;
    Vector q;      // positions, n
    Vector v;      // velocities, n
    Vector x;      // first-order states, k
    Vector lambda; // Lagrange multipliers, m: filled by the constrained methods at time t
};

} // namespace mdl::runtime
