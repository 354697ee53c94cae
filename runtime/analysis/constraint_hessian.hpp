// The curvature of the constraints weighted by their multipliers, sum_i w_i d2g_i/dq2 (n x n):
// the geometric stiffness of the constraint forces G(q)^T lambda, which the equilibrium's
// Newton matrix and the linearization of a constrained model need (a pendulum written with a
// rod constraint gets its restoring stiffness m g / l from this term alone).
//
// Exact, from the compiled curvature kernel c_i(q, v) = v^T H_i v (kernel_abi.h, scleronomic
// constraints) by polarization: H_i[j][j] = c_i(e_j), 2 H_i[j][k] = c_i(e_j + e_k) - c_i(e_j)
// - c_i(e_k), only for pairs (j, k) that occur together in a row of G's sparsity pattern (the
// other entries are structurally zero).
#pragma once

#include "runtime/model.hpp"

namespace mdl::runtime {

// out = sum_i w_i H_i(q); w has one weight per constraint. The constraints must not depend on
// time (std::logic_error otherwise, from Model::curvature).
void weighted_constraint_hessian(const Model& model, const Vector& q, const Vector& w, Matrix& out);

} // namespace mdl::runtime
