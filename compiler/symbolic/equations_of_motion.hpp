// The equations of motion of a checked model as a symbolic system (system.hpp):
//
//     M q'' = f(t, q, v, x, theta, p) + G(q)^T lambda,   g(q) = 0,   x' = rates(...)
//
// with f = -grad U (potentials, springs, gravity; the gradient taken symbolically) plus
// dampers, explicit forces and the right sides of second-order equations. Vibrations enter
// only through their phases theta_i, so the runtime can evaluate f at any phase.
#pragma once

#include "check/checked_model.hpp"
#include "symbolic/system.hpp"

namespace mdl::symbolic {

// Builds mass, force, rates, potential, constraint, phase and phase_rate from the model, then
// derives the Jacobian, curvature and force Jacobian kernels (derive_kernels). Throws
// ExpressionTooLarge when the expressions exceed the node limit.
//
// relax_constraints = omega > 0 replaces every constraint g_j(q) = 0 by a stiff spring of
// frequency omega (Sanz-Serna, Ariel & Tsai, "Multiscale methods for stiff and constrained
// mechanical systems" (2009), Sect. 5 and eq. 1): the potential
//     U_j = (omega^2/2) g_j(q)^2 / (grad g_j^T M^-1 grad g_j)
// is added to U, and the system has no constraints. For unit masses and |grad g_j| = 1 this
// is the paper's (omega^2/2) g_j^2; the normalization in the mass metric makes the small
// oscillations across the constraint manifold have frequency omega exactly, whatever the
// constraint's scaling (a rod x^2 + y^2 = l^2 becomes a spring of stiffness ~ m omega^2).
System equations_of_motion(const check::CheckedModel& model,
                           std::size_t node_limit = ExprPool::default_node_limit,
                           double relax_constraints = 0.0);

} // namespace mdl::symbolic
