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
System equations_of_motion(const check::CheckedModel& model,
                           std::size_t node_limit = ExprPool::default_node_limit);

} // namespace mdl::symbolic
