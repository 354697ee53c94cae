// An equilibrium of a mechanical model: positions q and constraint multipliers lambda with
//     f(q, v = 0) + G(q)^T lambda = 0,   g(q) = 0,
// f the static force (static_force.hpp: vibrations averaged out). Newton's method on these
// n + m equations uses the compiled Jacobians,
//     [ df/dq + sum_i lambda_i d2g_i/dq2   G^T ] [dq     ]     [ f + G^T lambda ]
//     [ G                                  0   ] [dlambda] = - [ g              ],
// the curvature term from constraint_hessian.hpp; the linear systems are solved by a complete
// orthogonal decomposition, so a singular matrix (a free rigid-body motion, redundant
// constraints) gets the minimum-norm step.
//
// Two searches. `nearest`: Newton with halved steps from the start, which converges to the
// equilibrium nearest the start whatever its stability (the inverted pendulum from near the
// top). `rest` (the default): pseudo-transient continuation (Kelley & Keyes, "Convergence
// analysis of pseudo-transient continuation", SIAM J. Numer. Anal. 35 (1998)), implicit Euler
// steps of the gradient flow M q' = f + G^T lambda with the Newton matrix shifted by -M/dt,
// dt growing as the residual falls until the steps are Newton's: it follows the flow downhill
// to a rest position from starts where Newton's matrix is singular (a chain stretched out
// straight, a pendulum at right angles). When `nearest` fails it falls back on `rest` and says
// so in Equilibrium::method, and the other way round. A free motion along which the force does not
// vanish (a body in free fall) has no equilibrium: both fail, naming the residual.
#pragma once

#include "runtime/analysis/static_force.hpp"
#include "runtime/model.hpp"

#include <string>

namespace mdl::runtime {

enum class EquilibriumSearch { rest, nearest };

struct EquilibriumOptions {
    EquilibriumSearch search = EquilibriumSearch::rest;
    // Converged when max |f + G^T lambda| <= tolerance * (force scale) and max |g| <=
    // tolerance * (1 + max |q|); the force scale is max |f| at the start plus max |df/dq| (1 +
    // max |q|), so that the test is relative to the loads the equilibrium balances.
    double tolerance = 1e-10;
    int max_iterations = 50;          // Newton's (nearest)
    int max_continuation_steps = 500; // pseudo-transient continuation's (rest)
};

struct Equilibrium {
    Vector q;      // n
    Vector lambda; // m
    int iterations = 0;
    double force_residual = 0;      // max |f + G^T lambda|
    double constraint_residual = 0; // max |g|
    Eigen::Index rank = 0;          // of the last Newton matrix, of n + m
    std::string method;             // how it was found, for the report
};

// The search from q0; throws NumericalFailure(newton_not_converged) with method "equilibrium",
// naming the largest residual (the force balance of a coordinate or a constraint), the
// coordinates at the last iterate and whether the Newton matrix was singular.
Equilibrium find_equilibrium(const StaticForce& force, const Vector& q0,
                             const EquilibriumOptions& options = {});

} // namespace mdl::runtime
