// The kernels that follow from the model's equations by differentiation.
#pragma once

#include "symbolic/system.hpp"

namespace mdl::symbolic {

// Given mass, force, rates, potential, constraint and phase, (re)computes:
//   constraint_jacobian  G_ij = d g_i / d q_j
//   curvature            c_i = sum_k d(sum_j G_ij v_j)/d q_k v_k = (d/dq (G v)) v, so that
//                        g'' = G q'' + c (differentiate g twice along q(t))
//   constraint_rate      g_t = dg/dt at fixed q, when g depends on time or a phase (d/dt
//                        of a phase theta_i is its rate omega_i); then g' = G v + g_t and
//                        the curvature is (d/dq (G v + g_t)) v + d/dt (G v + g_t), with the
//                        mixed and second time derivatives. Otherwise it has no outputs
//                        and the curvature is exactly the scleronomic formula above.
//   event_rate           dg/dt = grad_q g . v + g_t of the event indicators, when they
//                        depend on t, q and the phases only (else no outputs)
//   force_dq, force_dv   d f_i / d q_j, d f_i / d v_j
//   phase_rate           d theta_i / d t, when not given
// and sets velocity_dependent (f mentions v) and time_dependent (f mentions t; phases are
// separate variables, so a vibration's time dependence does not count).
// Cost: one pass over the force DAG per position for each Jacobian, one over G v per position
// for the curvature. Throws ExpressionTooLarge when the derivatives exceed the node limit.
void derive_kernels(System& system);

} // namespace mdl::symbolic
