#include "runtime/fmi/fmu_instance.hpp"

#include "abi/kernel_abi.h"
#include "runtime/consistent_start.hpp"
#include "runtime/numerical_failure.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <stdexcept>
#include <utility>
#include <vector>

namespace mdl::runtime::fmi {

namespace {

std::vector<std::string> names(const char* const* list, unsigned count) {
    std::vector<std::string> out;
    for (unsigned i = 0; list != nullptr && i < count; ++i) {
        out.emplace_back(list[i]);
    }
    return out;
}

Vector values(const double* list, unsigned count) {
    Vector out = Vector::Zero(static_cast<Eigen::Index>(count));
    for (unsigned i = 0; list != nullptr && i < count; ++i) {
        out[static_cast<Eigen::Index>(i)] = list[i];
    }
    return out;
}

// The logger's message is a printf format: a literal '%' is doubled.
std::string format_escaped(const std::string& text) {
    std::string out;
    for (char c : text) {
        out += c;
        if (c == '%') {
            out += '%';
        }
    }
    return out;
}

// A communication time within this of the FMU's is the same time (the importer's t + h sums).
bool same_time(double a, double b) {
    return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

} // namespace

const char* phase_name(Phase phase) {
    switch (phase) {
    case Phase::instantiated:
        return "instantiated";
    case Phase::initialization:
        return "initialization mode";
    case Phase::step_complete:
        return "step complete";
    case Phase::event_mode:
        return "event mode";
    case Phase::continuous_time:
        return "continuous-time mode";
    case Phase::terminated:
        return "terminated";
    case Phase::error:
        return "error";
    }
    return "unknown";
}

FmuInstance::FmuInstance(const mdl_fmu_model& model, std::string name,
                         const fmi2CallbackFunctions& callbacks, bool logging, bool model_exchange)
    : description_(model), name_(std::move(name)), callbacks_(callbacks), logging_(logging),
      model_exchange_(model_exchange) {
    restore_exported();
}

void FmuInstance::restore_exported() {
    const mdl_fmu_model& d = description_;
    const mdl_kernels& k = *d.kernels;
    stepping_.reset(); // holds a pointer to the model
    events_.reset();   // likewise
    multiscale_.reset();
    ModelNames model_names{d.model_name,
                           names(d.position_names, k.n_positions),
                           names(d.state_names, k.n_states),
                           names(d.constraint_names, k.n_constraints),
                           names(d.parameter_names, k.n_parameters),
                           names(d.vibration_names, k.n_vibrations)};
    model_.emplace(k, std::vector<double>(d.parameter_values, d.parameter_values + k.n_parameters),
                   std::move(model_names));
    if (k.n_events > 0) { // when-clauses: rk4 and dopri5 run them with the event driver
        std::vector<Event> events;
        for (unsigned e = 0; e < k.n_events; ++e) {
            const mdl_fmu_event& from = d.events[e];
            Event event;
            event.name = from.name;
            event.clause = from.clause;
            event.first_reinit = from.first_reinit;
            event.terminates = from.terminates != 0;
            event.terminate_message = from.terminate_message;
            for (unsigned r = 0; r < from.n_reinits; ++r) {
                using Target = EventReinit::Target;
                const int target = from.reinit_targets[r];
                event.reinits.push_back({target == 0   ? Target::position
                                         : target == 2 ? Target::state
                                                       : Target::velocity,
                                         static_cast<Eigen::Index>(from.reinit_indices[r])});
            }
            events.push_back(std::move(event));
        }
        model_->set_events(std::move(events));
    }
    settings_ = RunSettings{};
    const auto method = find_method(d.method);
    if (!method && !multiscale_method(d.method)) {
        throw std::invalid_argument(unknown_method_message(d.method));
    }
    settings_.method = method.value_or(settings_.method); // (multiscale: MultiscaleStep)
    settings_.step = d.step;
    settings_.adaptive.rtol = d.rtol;
    settings_.adaptive.atol = d.atol;
    settings_.rho_inf = d.rho_inf;
    settings_.solver.constraint_tolerance = d.constraint_tolerance;
    start_time_ = d.start_time;
    stop_time_ = d.stop_time;
    state_ = model_->zero_state(start_time_);
    time_ = start_time_;
    phase_ = Phase::instantiated;
}

void FmuInstance::log_error(std::string_view function, const std::string& message) {
    if (callbacks_.logger != nullptr) {
        const std::string text = std::string(function) + ": " + message;
        callbacks_.logger(callbacks_.componentEnvironment, name_.c_str(), fmi2Error, "logError",
                          format_escaped(text).c_str());
    }
}

void FmuInstance::log_info(const std::string& message) {
    if (logging_ && callbacks_.logger != nullptr) {
        callbacks_.logger(callbacks_.componentEnvironment, name_.c_str(), fmi2OK, "logInfo",
                          format_escaped(message).c_str());
    }
}

bool FmuInstance::allowed(std::string_view function, std::initializer_list<Phase> phases) {
    if (std::find(phases.begin(), phases.end(), phase_) != phases.end()) {
        return true;
    }
    std::string expected;
    for (Phase p : phases) {
        expected += (expected.empty() ? "" : ", ") + std::string(phase_name(p));
    }
    log_error(function, std::string("not allowed in state '") + phase_name(phase_) +
                            "' (allowed in: " + expected + ")");
    return false;
}

std::size_t FmuInstance::real_count() const {
    const mdl_kernels& k = *description_.kernels;
    // the accelerations and rates exist for unconstrained models (Model Exchange) only
    return continuous_states() + k.n_parameters +
           (k.n_constraints == 0 ? std::size_t{k.n_positions} + k.n_states : 0);
}

std::size_t FmuInstance::continuous_states() const {
    const mdl_kernels& k = *description_.kernels;
    return 2 * std::size_t{k.n_positions} + k.n_states;
}

void FmuInstance::derivatives(Vector& out) const {
    const Eigen::Index n = model_->positions(), k = model_->states();
    Vector theta(model_->vibrations()), v = state_.v, a(n), rates(k);
    if (events_ && events_->holding()) {
        // a contact at rest (Model Exchange): the motion that keeps it
        events_->held_derivatives(state_, v, a, rates);
    } else {
        model_->phases(state_.t, theta);
        model_->acceleration(state_.t, state_.q, state_.v, state_.x, theta, a);
        if (k > 0) {
            model_->rates(state_.t, state_.q, state_.v, state_.x, theta, rates);
        }
    }
    out.resize(2 * n + k);
    out << v, a, rates;
}

fmi2Status FmuInstance::setup_experiment(bool tolerance_defined, double tolerance, double start,
                                         bool stop_defined, double stop) {
    if (!allowed("fmi2SetupExperiment", {Phase::instantiated})) {
        return fmi2Error;
    }
    if (!std::isfinite(start) || (stop_defined && !(stop > start && std::isfinite(stop)))) {
        log_error("fmi2SetupExperiment",
                  "the start time must be finite and the stop time finite and after it (start " +
                      format_number(start) + ", stop " + format_number(stop) + ")");
        return fmi2Error;
    }
    if (tolerance_defined) {
        if (!(tolerance > 0.0) || !std::isfinite(tolerance)) {
            log_error("fmi2SetupExperiment",
                      "the tolerance must be positive, got " + format_number(tolerance));
            return fmi2Error;
        }
        settings_.adaptive.rtol = tolerance; // adaptive methods only; fixed steps ignore it
    }
    start_time_ = start;
    // no stop time: the grid of the fixed steps starts at the start time without an end
    stop_time_ = stop_defined ? stop : -1.0;
    state_.t = start;
    time_ = start;
    return fmi2OK;
}

fmi2Status FmuInstance::enter_initialization() {
    if (!allowed("fmi2EnterInitializationMode", {Phase::instantiated})) {
        return fmi2Error;
    }
    const mdl_kernels& k = *description_.kernels;
    state_.t = start_time_;
    state_.q = values(description_.start_positions, k.n_positions);
    state_.v = values(description_.start_velocities, k.n_positions);
    state_.x = values(description_.start_states, k.n_states);
    time_ = start_time_;
    phase_ = Phase::initialization;
    return fmi2OK;
}

bool FmuInstance::make_start_consistent(std::string_view function) {
    const mdl_kernels& k = *description_.kernels;
    std::vector<bool> fixed;
    for (unsigned i = 0; description_.start_fixed != nullptr && i < k.n_positions; ++i) {
        fixed.push_back(description_.start_fixed[i] != 0);
    }
    try {
        // as `mdl run` starts (compiler/api/runtime_view.cpp): with the parameters set now
        const ConsistentStart start = runtime::make_start_consistent(*model_, state_, fixed);
        for (const std::string& line : start.lines()) {
            log_info(line);
        }
    } catch (const std::exception& e) { // InconsistentStart names the constraints
        log_error(function, e.what());
        phase_ = Phase::error;
        return false;
    }
    return true;
}

fmi2Status FmuInstance::exit_initialization() {
    if (!allowed("fmi2ExitInitializationMode", {Phase::initialization})) {
        return fmi2Error;
    }
    if (!make_start_consistent("fmi2ExitInitializationMode")) {
        return fmi2Error;
    }
    if (model_exchange_) { // the importer integrates: no method of ours
        if (model_->has_events()) {
            events_.emplace(*model_, "model exchange");
            events_->start(state_);
        }
        phase_ = Phase::event_mode;
        return fmi2OK;
    }
    try {
        if (multiscale_method(description_.method)) {
            // the macro-integration ends at the importer's stop time, else the default
            // experiment's (multiscale_step.hpp)
            const double stop = stop_time_ > start_time_ ? stop_time_ : description_.stop_time;
            multiscale_.emplace(*model_, description_, stop);
            multiscale_->start(state_);
        } else {
            stepping_.emplace(*model_, settings_);
            stepping_->start(start_time_, stop_time_);
        }
    } catch (const std::exception& e) {
        stepping_.reset();
        multiscale_.reset();
        log_error("fmi2ExitInitializationMode", e.what());
        phase_ = Phase::error;
        return fmi2Error;
    }
    phase_ = Phase::step_complete;
    log_info("initialized at t = " + format_number(start_time_) + ", method " +
             description_.method);
    return fmi2OK;
}

fmi2Status FmuInstance::terminate() {
    if (!allowed("fmi2Terminate",
                 {Phase::step_complete, Phase::event_mode, Phase::continuous_time})) {
        return fmi2Error;
    }
    phase_ = Phase::terminated;
    return fmi2OK;
}

fmi2Status FmuInstance::reset() {
    try {
        restore_exported();
    } catch (const std::exception& e) {
        log_error("fmi2Reset", e.what());
        phase_ = Phase::error;
        return fmi2Error;
    }
    return fmi2OK;
}

fmi2Status FmuInstance::get_real(const fmi2ValueReference vr[], std::size_t n, fmi2Real value[]) {
    if (!allowed("fmi2GetReal", {Phase::initialization, Phase::step_complete, Phase::event_mode,
                                 Phase::continuous_time, Phase::terminated, Phase::error})) {
        return fmi2Error;
    }
    if (n > 0 && (vr == nullptr || value == nullptr)) {
        log_error("fmi2GetReal", "null value reference or value array");
        return fmi2Error;
    }
    const mdl_kernels& k = *description_.kernels;
    const std::size_t positions = k.n_positions, states = k.n_states;
    for (std::size_t i = 0; i < n; ++i) {
        std::size_t r = vr[i];
        if (r >= real_count()) {
            log_error("fmi2GetReal", "no Real variable has value reference " + std::to_string(r) +
                                         " (0 to " + std::to_string(real_count() - 1) + ")");
            return fmi2Error;
        }
        if (r < positions) {
            value[i] = state_.q[static_cast<Eigen::Index>(r)];
        } else if ((r -= positions) < positions) {
            value[i] = state_.v[static_cast<Eigen::Index>(r)];
        } else if ((r -= positions) < states) {
            value[i] = state_.x[static_cast<Eigen::Index>(r)];
        } else if ((r -= states) < k.n_parameters) {
            value[i] = model_->parameters()[r];
        } else { // an acceleration or a rate: the derivatives after the velocities
            Vector dx;
            derivatives(dx);
            value[i] = dx[static_cast<Eigen::Index>(positions + r - k.n_parameters)];
        }
    }
    return fmi2OK;
}

fmi2Status FmuInstance::set_real(const fmi2ValueReference vr[], std::size_t n,
                                 const fmi2Real value[]) {
    if (!allowed("fmi2SetReal", {Phase::instantiated, Phase::initialization, Phase::step_complete,
                                 Phase::event_mode})) {
        return fmi2Error;
    }
    if (n > 0 && (vr == nullptr || value == nullptr)) {
        log_error("fmi2SetReal", "null value reference or value array");
        return fmi2Error;
    }
    const mdl_kernels& k = *description_.kernels;
    const std::size_t first_parameter = 2 * std::size_t{k.n_positions} + k.n_states;
    bool changed = false;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t r = vr[i];
        if (r >= real_count()) {
            log_error("fmi2SetReal", "no Real variable has value reference " + std::to_string(r));
            return fmi2Error;
        }
        if (r < first_parameter || r >= first_parameter + k.n_parameters) {
            log_error("fmi2SetReal",
                      "value reference " + std::to_string(r) +
                          (r < first_parameter ? " is an output (a position, velocity or state)"
                                               : " is a derivative") +
                          " and cannot be set");
            return fmi2Error;
        }
        const std::size_t p = r - first_parameter;
        const std::string name = description_.parameter_names[p];
        if (description_.parameter_kinds[p] == mdl_fmu_fixed &&
            (phase_ == Phase::step_complete || phase_ == Phase::event_mode)) {
            log_error("fmi2SetReal",
                      "parameter '" + name + "' is fixed after initialization: the " +
                          description_.method +
                          " macro-integration keeps averaged forces and a macro state computed "
                          "with it; set it before fmi2ExitInitializationMode");
            return fmi2Error;
        }
        if (description_.parameter_kinds[p] == mdl_fmu_constant) {
            log_error("fmi2SetReal",
                      "parameter '" + name +
                          "' was fixed at export (other parameters or start values depend on "
                          "it): export again with -p " +
                          name + "=VALUE");
            return fmi2Error;
        }
        if (!std::isfinite(value[i])) {
            log_error("fmi2SetReal",
                      "parameter '" + name + "' must be finite, got " + format_number(value[i]));
            return fmi2Error;
        }
        try {
            model_->set_parameter(name, value[i]); // re-evaluates the mass
        } catch (const std::exception& e) {
            log_error("fmi2SetReal", "parameter '" + name + "': " + e.what());
            return fmi2Error;
        }
        changed = true;
    }
    if (changed && stepping_) {
        stepping_->parameters_changed(); // takes effect at the next step
    }
    return fmi2OK;
}

fmi2Status FmuInstance::do_step(double t, double h) {
    if (!allowed("fmi2DoStep", {Phase::step_complete})) {
        return fmi2Error;
    }
    if (!(h > 0.0) || !std::isfinite(h) || !std::isfinite(t)) {
        log_error("fmi2DoStep", "the communication step size must be positive and finite, got " +
                                    format_number(h));
        return fmi2Error;
    }
    if (!same_time(t, time_)) {
        log_error("fmi2DoStep", "the current communication point " + format_number(t) +
                                    " is not the FMU's time " + format_number(time_));
        return fmi2Error;
    }
    if (multiscale_) {
        const std::string refused = multiscale_->check(state_.t, t + h);
        if (!refused.empty()) {
            log_error("fmi2DoStep", refused); // nothing changed: the importer may step again
            return fmi2Error;
        }
    }
    try {
        if (multiscale_) {
            multiscale_->advance(state_, t + h);
        } else {
            stepping_->advance(state_, t + h);
        }
    } catch (const std::exception& e) {
        log_error("fmi2DoStep", e.what());
        phase_ = Phase::error;
        return fmi2Error;
    }
    time_ = t + h;
    return fmi2OK;
}

// Model Exchange

bool FmuInstance::state_count(std::string_view function, std::size_t n, const void* array) {
    if (n != continuous_states() || (n > 0 && array == nullptr)) {
        log_error(function, "the FMU has " + std::to_string(continuous_states()) +
                                " continuous states (positions, velocities, states), not " +
                                std::to_string(n));
        return false;
    }
    return true;
}

fmi2Status FmuInstance::set_time(double t) {
    if (!allowed("fmi2SetTime", {Phase::event_mode, Phase::continuous_time})) {
        return fmi2Error;
    }
    if (!std::isfinite(t)) {
        log_error("fmi2SetTime", "the time must be finite, got " + format_number(t));
        return fmi2Error;
    }
    state_.t = t;
    time_ = t;
    return fmi2OK;
}

fmi2Status FmuInstance::set_continuous_states(const fmi2Real x[], std::size_t n) {
    if (!allowed("fmi2SetContinuousStates", {Phase::continuous_time}) ||
        !state_count("fmi2SetContinuousStates", n, x)) {
        return fmi2Error;
    }
    const Eigen::Index positions = model_->positions(), states = model_->states();
    state_.q = Eigen::Map<const Vector>(x, positions);
    state_.v = Eigen::Map<const Vector>(x + positions, positions);
    state_.x = Eigen::Map<const Vector>(x + 2 * positions, states);
    return fmi2OK;
}

fmi2Status FmuInstance::get_continuous_states(fmi2Real x[], std::size_t n) {
    if (!allowed("fmi2GetContinuousStates",
                 {Phase::initialization, Phase::event_mode, Phase::continuous_time,
                  Phase::terminated, Phase::error}) ||
        !state_count("fmi2GetContinuousStates", n, x)) {
        return fmi2Error;
    }
    const Eigen::Index positions = model_->positions(), states = model_->states();
    Eigen::Map<Vector>(x, positions) = state_.q;
    Eigen::Map<Vector>(x + positions, positions) = state_.v;
    Eigen::Map<Vector>(x + 2 * positions, states) = state_.x;
    return fmi2OK;
}

fmi2Status FmuInstance::get_derivatives(fmi2Real dx[], std::size_t n) {
    if (!allowed("fmi2GetDerivatives", {Phase::initialization, Phase::event_mode,
                                        Phase::continuous_time, Phase::terminated, Phase::error}) ||
        !state_count("fmi2GetDerivatives", n, dx)) {
        return fmi2Error;
    }
    Vector out;
    derivatives(out); // a singular M(q) throws NumericalFailure: fmi2Error with its message
    Eigen::Map<Vector>(dx, out.size()) = out;
    return fmi2OK;
}

fmi2Status FmuInstance::get_nominals(fmi2Real nominal[], std::size_t n) {
    if (!allowed("fmi2GetNominalsOfContinuousStates",
                 {Phase::instantiated, Phase::initialization, Phase::event_mode,
                  Phase::continuous_time, Phase::terminated, Phase::error}) ||
        !state_count("fmi2GetNominalsOfContinuousStates", n, nominal)) {
        return fmi2Error;
    }
    std::fill(nominal, nominal + n, 1.0); // no nominal values are declared
    return fmi2OK;
}

fmi2Status FmuInstance::get_event_indicators(fmi2Real out[], std::size_t n) {
    if (!allowed("fmi2GetEventIndicators",
                 {Phase::initialization, Phase::event_mode, Phase::continuous_time,
                  Phase::terminated, Phase::error})) {
        return fmi2Error;
    }
    const std::size_t events = description_.kernels->n_events;
    if (n != events || (n > 0 && out == nullptr)) {
        log_error("fmi2GetEventIndicators", "the FMU has " + std::to_string(events) +
                                                " event indicators, not " + std::to_string(n));
        return fmi2Error;
    }
    if (n == 0) {
        return fmi2OK;
    }
    Vector z(static_cast<Eigen::Index>(n));
    if (events_) { // the indicators, or a held contact's release function (event_tracker.hpp)
        events_->watched(state_, z);
    } else {
        Vector theta(model_->vibrations());
        model_->phases(state_.t, theta);
        model_->event_indicators(state_.t, state_.q, state_.v, state_.x, theta, z);
    }
    Eigen::Map<Vector>(out, z.size()) = z;
    return fmi2OK;
}

fmi2Status FmuInstance::enter_event_mode() {
    if (!allowed("fmi2EnterEventMode", {Phase::event_mode, Phase::continuous_time})) {
        return fmi2Error;
    }
    phase_ = Phase::event_mode;
    return fmi2OK;
}

fmi2Status FmuInstance::new_discrete_states(fmi2EventInfo* info) {
    if (!allowed("fmi2NewDiscreteStates", {Phase::event_mode})) {
        return fmi2Error;
    }
    if (info == nullptr) {
        log_error("fmi2NewDiscreteStates", "null fmi2EventInfo");
        return fmi2Error;
    }
    *info = fmi2EventInfo{fmi2False, fmi2False, fmi2False, fmi2False, fmi2False, 0.0};
    if (!events_) {
        return fmi2OK;
    }
    // the runtime's event tracker decides what fires here (event_tracker.hpp), as for every
    // other front door: the events whose indicator went from < 0 to >= 0 since the last
    // completed step or event, their reinits from the state before them, a contact that comes
    // to rest held, a held contact released
    try {
        if (auto outcome = events_->at_event(state_)) {
            state_ = outcome->after;
            info->valuesOfContinuousStatesChanged = fmi2True;
            log_info("event '" + outcome->label + "' at t = " + format_number(state_.t));
            if (outcome->terminate) {
                info->terminateSimulation = fmi2True;
                log_info("terminate(\"" + outcome->message + "\")");
            }
        }
    } catch (const std::exception& e) { // events accumulating without a contact to hold
        log_error("fmi2NewDiscreteStates", e.what());
        phase_ = Phase::error;
        return fmi2Error;
    }
    return fmi2OK;
}

fmi2Status FmuInstance::enter_continuous_time_mode() {
    if (!allowed("fmi2EnterContinuousTimeMode", {Phase::event_mode})) {
        return fmi2Error;
    }
    phase_ = Phase::continuous_time;
    return fmi2OK;
}

fmi2Status FmuInstance::completed_integrator_step(fmi2Boolean* enter_event_mode,
                                                  fmi2Boolean* terminate) {
    if (!allowed("fmi2CompletedIntegratorStep", {Phase::continuous_time})) {
        return fmi2Error;
    }
    if (enter_event_mode != nullptr) {
        *enter_event_mode = fmi2False;
    }
    if (events_) {
        events_->accept(state_); // the indicators an event is a change of
    }
    if (terminate != nullptr) {
        *terminate = fmi2False;
    }
    return fmi2OK;
}

fmi2Status FmuInstance::directional_derivative(const fmi2ValueReference unknown[],
                                               std::size_t n_unknown,
                                               const fmi2ValueReference known[],
                                               std::size_t n_known, const fmi2Real seed[],
                                               fmi2Real result[]) {
    const char* const function = "fmi2GetDirectionalDerivative";
    if (!allowed(function, {Phase::initialization, Phase::event_mode, Phase::continuous_time,
                            Phase::step_complete})) {
        return fmi2Error;
    }
    const Model& model = *model_;
    if (model.constrained() || model.states() > 0 || !model.mass_constant_diagonal() ||
        !model.has_force_jacobians()) {
        log_error(function, "not supported for this model (providesDirectionalDerivative is "
                            "false): it needs no constraints, no first-order states and a "
                            "constant diagonal mass");
        return fmi2Error;
    }
    if ((n_unknown > 0 && (unknown == nullptr || result == nullptr)) ||
        (n_known > 0 && (known == nullptr || seed == nullptr))) {
        log_error(function, "null value reference or value array");
        return fmi2Error;
    }
    const std::size_t n = static_cast<std::size_t>(model.positions());
    Vector dq = Vector::Zero(model.positions()), dv = Vector::Zero(model.positions());
    for (std::size_t i = 0; i < n_known; ++i) {
        if (known[i] >= 2 * n) {
            log_error(function, "known value reference " + std::to_string(known[i]) +
                                    " is not a continuous state (a position or velocity)");
            return fmi2Error;
        }
        (known[i] < n ? dq : dv)[static_cast<Eigen::Index>(known[i] % n)] += seed[i];
    }
    Vector theta(model.vibrations());
    model.phases(state_.t, theta);
    Matrix f_q(model.positions(), model.positions()), f_v(model.positions(), model.positions());
    model.force_jacobians(state_.t, state_.q, state_.v, state_.x, theta, f_q, f_v);
    const Vector da = model.inverse_mass().cwiseProduct(f_q * dq + f_v * dv);
    const std::size_t first_acceleration = 2 * n + model.parameters().size();
    for (std::size_t i = 0; i < n_unknown; ++i) {
        const std::size_t r = unknown[i];
        if (r < n) {
            result[i] = dq[static_cast<Eigen::Index>(r)];
        } else if (r < 2 * n) { // a velocity, and the derivative of its position
            result[i] = dv[static_cast<Eigen::Index>(r - n)];
        } else if (r >= first_acceleration && r < first_acceleration + n) {
            result[i] = da[static_cast<Eigen::Index>(r - first_acceleration)];
        } else {
            log_error(function, "unknown value reference " + std::to_string(r) +
                                    " is neither a state nor a derivative");
            return fmi2Error;
        }
    }
    return fmi2OK;
}

} // namespace mdl::runtime::fmi
