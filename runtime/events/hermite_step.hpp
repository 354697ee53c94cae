// The Hermite interpolant of one step of a fixed-step method, for locating events between its
// points: positions quintic from (q, v, a) at both ends, velocities its derivative (quartic),
// first-order states cubic from (x, x'); a = M^-1 f, or a constrained method's accelerations
// with the constraint forces (set_acceleration). Positions to sixth order in the step
// (exact for the free fall of a ball), so a grazing crossing whose depth is above the
// method's own error is not lost to the interpolant.
#pragma once

#include "runtime/model.hpp"
#include "runtime/state.hpp"

#include <functional>

namespace mdl::runtime {

// The accelerations (and first-order rates) of the motion at a state: the model's M^-1 f by
// default; a constrained method's driver gives the accelerations with the constraint forces.
using MotionAcceleration = std::function<void(const State& s, Vector& a, Vector& xdot)>;

class HermiteStep {
public:
    explicit HermiteStep(const Model& model);
    HermiteStep(const Model&&) = delete;

    void set_acceleration(MotionAcceleration field) { acceleration_ = std::move(field); }

    // The step from a to b; evaluates the accelerations and rates at both ends.
    void fit(const State& a, const State& b);
    // The state at t in [a.t, b.t].
    void operator()(double t, State& out) const;

private:
    void slope(const State& s, Vector& acc, Vector& xdot);

    const Model* model_;
    MotionAcceleration acceleration_;
    State a_, b_;
    Vector acc_a_, acc_b_, xdot_a_, xdot_b_, theta_;
};

} // namespace mdl::runtime
