// The linearization of a mechanical model about an equilibrium (equilibrium.hpp):
//     M dq'' + C dq' + K dq = G^T dlambda,   G dq = 0,
// with M = M(q*), C = -df/dv and K = -df/dq - sum_i lambda*_i d2g_i/dq2 at (q*, v = 0). The
// velocity terms of a kinetic energy with M(q) are quadratic in v and drop out at v = 0 (so do
// their derivatives); the last term of K is the geometric stiffness of the constraint forces.
// A constrained model is projected onto the tangent space of its constraints: with N an
// orthonormal basis of the null space of G(q*) (n x d, from a column-pivoted QR of G^T) and
// dq = N eta, the reduced matrices are M_r = N^T M N, C_r = N^T C N, K_r = N^T K N (the
// multipliers' part drops out, N^T G^T = 0). Without constraints N is the identity.
#pragma once

#include "runtime/analysis/equilibrium.hpp"
#include "runtime/analysis/static_force.hpp"

namespace mdl::runtime {

struct Linearization {
    Vector q, lambda;     // the equilibrium
    Matrix M, C, K;       // n x n, in the model's coordinates
    Matrix N;             // n x d, orthonormal; d = n - rank G, the degrees of freedom
    Matrix M_r, C_r, K_r; // d x d
    Eigen::Index degrees_of_freedom() const { return N.cols(); }
};

Linearization linearize(const StaticForce& force, const Equilibrium& equilibrium);

} // namespace mdl::runtime
