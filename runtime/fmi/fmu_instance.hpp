// One instance of an mdl Co-Simulation FMU (what fmi2Instantiate returns): its own model
// (kernels shared, parameters copied), its state, the integration, and the state machine of
// the FMI 2.0 Co-Simulation interface (section 4.2.4 of the standard):
//
//     instantiated --fmi2EnterInitializationMode--> initialization
//     initialization --fmi2ExitInitializationMode--> step_complete
//     step_complete --fmi2DoStep--> step_complete, or error on a numerical failure
//     step_complete --fmi2Terminate--> terminated
//     any state --fmi2Reset--> instantiated (the exported parameters and start values)
//
// Model Exchange (unconstrained models: the ODE in the continuous states q, v, x):
//
//     initialization --fmi2ExitInitializationMode--> event_mode
//     event_mode --fmi2EnterContinuousTimeMode--> continuous_time
//     continuous_time --fmi2EnterEventMode--> event_mode
//     event_mode, continuous_time --fmi2Terminate--> terminated
//
// Every call checks that its state allows it; otherwise it logs why and returns fmi2Error
// without changing anything. Nothing here throws out of a member function: errors are logged
// through the importer's logger and returned as a status.
#pragma once

#include "runtime/events/event_tracker.hpp"
#include "runtime/fmi/communication_step.hpp"
#include "runtime/fmi/fmi2_abi.h"
#include "runtime/fmi/fmu_model.h"
#include "runtime/fmi/multiscale_step.hpp"
#include "runtime/model.hpp"
#include "runtime/state.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mdl::runtime::fmi {

enum class Phase {
    instantiated,
    initialization,
    step_complete,   // Co-Simulation
    event_mode,      // Model Exchange
    continuous_time, // Model Exchange
    terminated,
    error
};

class FmuInstance {
public:
    FmuInstance(const mdl_fmu_model& model, std::string name,
                const fmi2CallbackFunctions& callbacks, bool logging, bool model_exchange);
    FmuInstance(const FmuInstance&) = delete;
    FmuInstance& operator=(const FmuInstance&) = delete;

    void set_logging(bool on) { logging_ = on; }
    // Messages to the importer's logger: errors always, information when logging is on.
    void log_error(std::string_view function, const std::string& message);
    void log_info(const std::string& message);

    fmi2Status setup_experiment(bool tolerance_defined, double tolerance, double start,
                                bool stop_defined, double stop);
    fmi2Status enter_initialization();
    fmi2Status exit_initialization();
    fmi2Status terminate();
    fmi2Status reset();
    fmi2Status get_real(const fmi2ValueReference vr[], std::size_t n, fmi2Real value[]);
    fmi2Status set_real(const fmi2ValueReference vr[], std::size_t n, const fmi2Real value[]);
    fmi2Status do_step(double t, double h);
    double time() const { return time_; }

    // Model Exchange: the continuous states are (q, v, x), their derivatives (v, a, x').
    fmi2Status set_time(double t);
    fmi2Status set_continuous_states(const fmi2Real x[], std::size_t n);
    fmi2Status get_continuous_states(fmi2Real x[], std::size_t n);
    fmi2Status get_derivatives(fmi2Real dx[], std::size_t n);
    fmi2Status get_nominals(fmi2Real nominal[], std::size_t n);
    // The events' indicators (>= 0 where a when-condition holds; while a contact is held at
    // rest, the function whose sign change is its release); new_discrete_states fires the
    // events whose indicator went from < 0 (at the last completed step or event) to >= 0,
    // holds a contact that comes to rest and releases a held one, with the rules of
    // docs/events.md (the runtime's EventTracker).
    fmi2Status get_event_indicators(fmi2Real indicators[], std::size_t n);
    fmi2Status enter_event_mode();
    fmi2Status new_discrete_states(fmi2EventInfo* info);
    fmi2Status enter_continuous_time_mode();
    fmi2Status completed_integrator_step(fmi2Boolean* enter_event_mode, fmi2Boolean* terminate);
    // The derivatives' and states' changes for a change of the states (q, der(q)) from the
    // symbolic force Jacobians: d der(der(q)) = M^-1 (df/dq dq + df/dv dv). Unconstrained
    // models without first-order states and with a constant diagonal mass only.
    fmi2Status directional_derivative(const fmi2ValueReference unknown[], std::size_t n_unknown,
                                      const fmi2ValueReference known[], std::size_t n_known,
                                      const fmi2Real seed[], fmi2Real result[]);
    Phase phase() const { return phase_; }
    // Returns fmi2Error with a logged message when `function` is not allowed in this phase.
    bool allowed(std::string_view function, std::initializer_list<Phase> phases);

private:
    void restore_exported(); // the model, state and settings as exported
    // The start state onto the constraints (g(q) = 0, G v = 0), the positions marked fixed kept,
    // each change logged (logInfo); false with the error logged when it cannot be done.
    bool make_start_consistent(std::string_view function);
    std::size_t real_count() const;
    std::size_t continuous_states() const; // 2n + k
    bool state_count(std::string_view function, std::size_t n, const void* array);
    void derivatives(Vector& out) const; // (v, a, x') at the current time and state

    const mdl_fmu_model& description_;
    std::string name_;
    fmi2CallbackFunctions callbacks_;
    bool logging_;
    bool model_exchange_;
    Phase phase_ = Phase::instantiated;

    RunSettings settings_;
    std::optional<Model> model_;
    State state_;
    std::optional<CommunicationStep> stepping_; // the classical methods
    std::optional<MultiscaleStep> multiscale_;  // hmm*, strobo
    double start_time_ = 0.0, stop_time_ = -1.0;
    double time_ = 0.0; // the communication time (state_.t is the integration's grid time)
    // Model Exchange with events: the runtime's tracker, fed the importer's completed steps
    // and event instants (event_tracker.hpp, "Model Exchange")
    std::optional<EventTracker> events_;
};

const char* phase_name(Phase phase);

} // namespace mdl::runtime::fmi
