// One communication step of a Co-Simulation FMU, fmi2DoStep(t, h): the state advanced from t to
// t + h by the method chosen at export, with internal steps no longer than its step.
//
// A fixed-step method keeps one stepper for the whole simulation (its cached forces and
// accelerations carry over from one communication step to the next) and steps on the grid
// t0 + k H that `mdl run` uses (runtime/integrate.hpp, integrate_fixed): the step is
// (stop - t0) / N when the stop time is N steps of H away (up to 1e-9), else H, and each step
// goes to the grid time computed afresh. A communication point on the grid is reached exactly
// on it, so an FMU whose communication step is a multiple of the internal step gives `mdl run`'s
// numbers to the last bit. A communication point off the grid is reached by equal steps no
// longer than H, and the grid starts again there. Adaptive methods (dopri5) run from t to
// t + h with runtime::run.
#pragma once

#include "runtime/events/event_tracker.hpp"
#include "runtime/integrators/generalized_alpha.hpp"
#include "runtime/integrators/leapfrog.hpp"
#include "runtime/integrators/newmark.hpp"
#include "runtime/integrators/rattle.hpp"
#include "runtime/integrators/rk4.hpp"
#include "runtime/integrators/shake.hpp"
#include "runtime/integrators/stormer.hpp"
#include "runtime/integrators/verlet.hpp"
#include "runtime/methods.hpp"
#include "runtime/model.hpp"
#include "runtime/state.hpp"

#include <cstdint>
#include <optional>
#include <variant>

namespace mdl::runtime::fmi {

class CommunicationStep {
public:
    // The model must outlive this object. Throws MethodNotApplicable when the method cannot
    // integrate the model, std::invalid_argument for a method the FMU cannot run.
    CommunicationStep(const Model& model, const RunSettings& settings);

    // Starts the grid at t0; stop: the end of the simulation when the importer gave one
    // (fmi2SetupExperiment), else a negative or non-finite number.
    void start(double t0, double stop);
    // Advances `state` to t_end > state.t (up to the grid's rounding: on the grid, state.t is
    // the grid time, within 1e-9 H of t_end). Throws NumericalFailure naming the time, the
    // variable and the method; the state is then the last one reached.
    void advance(State& state, double t_end);
    // A parameter changed: the next step evaluates the forces afresh (a new stepper on the same
    // grid).
    void parameters_changed();

private:
    using FixedStepper =
        std::variant<std::monostate, VelocityVerlet<>, Leapfrog<>, Stormer<>, RungeKutta4<>,
                     Shake<>, Rattle<>, Newmark<>, GeneralizedAlpha<>>;
    void make_stepper();
    double grid_time(std::uint64_t k) const; // t0 + k H, the stop time for the last step
    template <class Stepper>
    void fixed_steps(Stepper& stepper, State& state, double t_end);
    template <class Stepper>
    void step_to(Stepper& stepper, State& state, double target);

    const Model* model_;
    RunSettings settings_;
    FixedStepper stepper_;
    // A model with events: what the event driver knows between two steps (armed events, held
    // contacts, last firings), so a ball at rest stays on the floor across fmi2DoStep calls.
    std::optional<EventTracker> events_;
    double grid_t0_ = 0.0, grid_step_ = 0.0;
    double grid_stop_ = -1.0;      // negative: no stop time
    std::uint64_t grid_steps_ = 0; // steps from t0 to the stop time (0: no stop time)
    std::uint64_t grid_index_ = 0; // the grid time state.t is at
};

} // namespace mdl::runtime::fmi
