// An equilibrium of a mechanical model: positions q and constraint multipliers lambda with
//     f(q, v = 0) + G(q)^T lambda = 0,   g(q) = 0,
// f the static force (static_force.hpp: vibrations averaged out), found by Newton's method on
// these n + m equations with the compiled Jacobians,
//     [ df/dq + sum_i lambda_i d2g_i/dq2   G^T ] [dq     ]     [ f + G^T lambda ]
//     [ G                                  0   ] [dlambda] = - [ g              ],
// the curvature term from constraint_hessian.hpp. The linear systems are solved by a complete
// orthogonal decomposition: a singular matrix (a free rigid-body motion, redundant
// constraints) gets the minimum-norm step, so a mechanism in neutral equilibrium converges,
// while a free motion along which the force does not vanish (a body in free fall) has no
// solution and fails with the residual named. Steps are halved until the residual decreases.
#pragma once

#include "runtime/analysis/static_force.hpp"
#include "runtime/model.hpp"

namespace mdl::runtime {

struct EquilibriumOptions {
    // Converged when max |f + G^T lambda| <= tolerance * (force scale) and max |g| <=
    // tolerance * (1 + max |q|); the force scale is max |f| at the start plus max |df/dq| (1 +
    // max |q|), so that the test is relative to the loads the equilibrium balances.
    double tolerance = 1e-10;
    int max_iterations = 50;
};

struct Equilibrium {
    Vector q;      // n
    Vector lambda; // m
    int iterations = 0;
    double force_residual = 0;      // max |f + G^T lambda|
    double constraint_residual = 0; // max |g|
    Eigen::Index rank = 0;          // of the last Newton matrix, of n + m
};

// Newton from q0; throws NumericalFailure(newton_not_converged) with method "equilibrium",
// naming the largest residual (the force balance of a coordinate or a constraint), the
// coordinates at the last iterate and whether the Newton matrix was singular.
Equilibrium find_equilibrium(const StaticForce& force, const Vector& q0,
                             const EquilibriumOptions& options = {});

} // namespace mdl::runtime
