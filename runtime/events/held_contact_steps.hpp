// The steps of a multistep method's run (cvode-*, ida) while a contact is held at rest
// (docs/events.md, "Chattering and rest"). The state is then projected onto the contact after
// every step, and CVODE or IDA, restarted at order 1 from each projection, would creep with
// steps of sqrt(atol/a): the held motion takes classical RK4 steps of a thousandth of the run
// instead (as dopri5's steps while holding), in the multiplier form (ConstrainedModelForce)
// for a constrained model, on their Hermite interpolant; the method starts again from the
// release.
#pragma once

#include "runtime/events/event_tracker.hpp"
#include "runtime/events/hermite_step.hpp"
#include "runtime/integrators/constrained_acceleration.hpp"
#include "runtime/integrators/rk4.hpp"
#include "runtime/model.hpp"
#include "runtime/state.hpp"

#include <cstddef>
#include <optional>
#include <string_view>

namespace mdl::runtime {

// The accelerations of a constrained model with its constraint forces (the index-1 saddle
// point of ConstrainedModelForce), for the tracker's rates and the Hermite interpolant.
MotionAcceleration constrained_motion(const Model& model, std::string_view method);

class HeldContactSteps {
public:
    // method: the name failures carry (the run's).
    HeldContactSteps(const Model& model, std::string_view method);
    HeldContactSteps(const Model&&, std::string_view) = delete;
    HeldContactSteps(const HeldContactSteps&) = delete; // the interpolant refers to this
    HeldContactSteps& operator=(const HeldContactSteps&) = delete;

    // One step from `from` of a thousandth of `span`, or to t_end when that is closer:
    // `end` receives the state there; true when it is t_end.
    bool step(const State& from, double span, double t_end, State& end);
    // The interpolant of the last step.
    const Interpolant& interpolant() const { return at_; }
    std::size_t steps() const { return steps_; }

private:
    const Model* model_;
    std::string_view method_;
    std::optional<RungeKutta4<>> free_;
    std::optional<RungeKutta4<ConstrainedModelForce>> constrained_;
    HermiteStep hermite_;
    Interpolant at_;
    std::size_t steps_ = 0;
};

} // namespace mdl::runtime
