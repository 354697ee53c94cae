// The Lagrange multipliers of a dense-output row (an output time inside a step): those of the
// consistent accelerations at the row's own interpolated (t, q, v) when the stepper's force
// computes multipliers (dopri5 on constrained models: ConstrainedModelForce), so a driven
// joint's torque column is as accurate as the interpolated state; otherwise the multipliers of
// the step's end (unconstrained models; CVODE, whose stepper exposes no force).
#pragma once

#include "runtime/state.hpp"

namespace mdl::runtime {

// dense: the interpolated row (t, q, v, x set); end: the state at the step's end; a: scratch
// of the positions' size. The force's evaluation is counted as one more evaluation.
template <class Stepper>
void set_dense_multipliers(Stepper& stepper, const State& end, State& dense, Vector& a) {
    if constexpr (requires { stepper.force().multipliers(); }) {
        if (end.lambda.size() > 0) {
            stepper.force().acceleration(dense.t, dense.q, dense.v, dense.x, a);
            dense.lambda = stepper.force().multipliers();
            return;
        }
    }
    dense.lambda = end.lambda;
}

} // namespace mdl::runtime
