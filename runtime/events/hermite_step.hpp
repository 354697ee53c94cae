// The cubic Hermite interpolant of one step of a fixed-step method, for locating events
// between its points: positions from (q, v) at both ends, velocities from (v, a) and
// first-order states from (x, x'), a = M^-1 f. Third order, exact for the free fall of a
// ball (q quadratic and v linear in t).
#pragma once

#include "runtime/model.hpp"
#include "runtime/state.hpp"

namespace mdl::runtime {

class HermiteStep {
public:
    explicit HermiteStep(const Model& model);
    HermiteStep(const Model&&) = delete;

    // The step from a to b; evaluates the accelerations and rates at both ends.
    void fit(const State& a, const State& b);
    // The state at t in [a.t, b.t].
    void operator()(double t, State& out) const;

private:
    void slope(const State& s, Vector& acc, Vector& xdot);

    const Model* model_;
    State a_, b_;
    Vector acc_a_, acc_b_, xdot_a_, xdot_b_, theta_;
};

} // namespace mdl::runtime
