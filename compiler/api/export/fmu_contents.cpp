#include "fmu_contents.hpp"

#include "compiler/api/multiscale_setup.hpp"
#include "compiler/api/runtime_view.hpp"
#include "runtime/methods.hpp"
#include "runtime/multiscale/applicability.hpp"
#include "runtime/numerical_failure.hpp"

#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

namespace mdl::exporting {

namespace {

bool fmu_method(runtime::Method m) {
    return m != runtime::Method::cvode_adams && m != runtime::Method::cvode_bdf &&
           m != runtime::Method::ida; // SUNDIALS
}

// A C identifier from the model's name: "Kapitza" stays, other characters become '_'.
std::string identifier(const std::string& name) {
    std::string out;
    for (char c : name) {
        out += std::isalnum(static_cast<unsigned char>(c)) != 0 ? c : '_';
    }
    if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])) != 0) {
        out.insert(0, "m_");
    }
    return out;
}

runtime::Method export_method(const ExportSettings& o, const CompiledModel& compiled,
                              const runtime::Model& model) {
    const std::string name = o.simulation.method.value_or(compiled.text_setting("method", ""));
    const std::string origin =
        o.simulation.method ? "--method" : "the model's experiment annotation asks for method";
    if (name.empty()) {
        return runtime::default_method(model);
    }
    const auto method = runtime::find_method(name);
    if (method && fmu_method(*method)) {
        return *method;
    }
    if (method) {
        throw std::invalid_argument(
            fmt::format("{} '{}': an FMU's runtime has no SUNDIALS; export with --method and "
                        "one of: {}",
                        origin, name, fmu_methods()));
    }
    throw std::invalid_argument(
        fmt::format("{} '{}': {}", origin, name, runtime::unknown_method_message(name)));
}

// Whether setting parameter i in the FMU alone is right: no other parameter and no start value
// is computed from it (the FMU has the values, not the expressions). Found by setting it to
// another value and looking at what changes.
bool independent(const CompiledModel& compiled, std::size_t i) {
    const std::string& name = compiled.parameter_names()[i];
    const double value = compiled.parameters()[i];
    const double other = value == 0.0 ? 0.5 : value * 1.25 + 0.125;
    try {
        const ParameterValue change[] = {{name, other}};
        const CompiledModel changed = compiled.with_parameters(change);
        for (std::size_t j = 0; j < compiled.parameters().size(); ++j) {
            if (j != i && changed.parameters()[j] != compiled.parameters()[j]) {
                return false;
            }
        }
        return changed.start_positions() == compiled.start_positions() &&
               changed.start_velocities() == compiled.start_velocities() &&
               changed.start_states() == compiled.start_states();
    } catch (const std::invalid_argument&) {
        return false; // another value makes a parameter computed from it invalid
    }
}

// A classical method's settings (fmi2DoStep: runtime/fmi/communication_step.hpp).
void classical_settings(FmuContents& c, const CompiledModel& compiled, const runtime::Model& model,
                        const ExportSettings& o) {
    const SimulationSettings& run = o.simulation;
    const runtime::Method method = export_method(o, compiled, model);
    runtime::require_applicable(method, model);
    const runtime::MethodInfo& info = runtime::info(method);
    c.method = info.name;
    c.adaptive = info.adaptive;
    c.start_time = run.start.value_or(compiled.number_setting("StartTime", 0.0));
    c.stop_time = run.stop.value_or(compiled.number_setting("StopTime", 1.0));
    if (!std::isfinite(c.start_time) || !std::isfinite(c.stop_time) ||
        !(c.stop_time > c.start_time)) {
        throw std::invalid_argument(fmt::format(
            "--start/--stop: the default experiment needs finite times with start < stop, got "
            "{} and {}",
            runtime::format_number(c.start_time), runtime::format_number(c.stop_time)));
    }
    if (!info.adaptive) {
        c.step = run.step.value_or(compiled.number_setting("step", 1e-3));
        if (!(c.step > 0.0) || !std::isfinite(c.step)) {
            throw std::invalid_argument(
                fmt::format("--step: the internal step must be positive and finite, got {}",
                            runtime::format_number(c.step)));
        }
    } else if (run.step) {
        throw std::invalid_argument(fmt::format(
            "--step: {} chooses its own steps; the importer's communication step is the only "
            "output interval",
            info.name));
    }
    c.rtol = run.rtol.value_or(
        compiled.number_setting("rtol", compiled.number_setting("Tolerance", c.rtol)));
    c.atol = run.atol.value_or(compiled.number_setting("atol", c.atol));
    if (!(c.rtol > 0.0) || !(c.atol > 0.0) || !std::isfinite(c.rtol) || !std::isfinite(c.atol)) {
        throw std::invalid_argument("--rtol/--atol: tolerances must be positive and finite");
    }
    c.rho_inf = run.rho_inf.value_or(compiled.number_setting("rho_inf", c.rho_inf));
    if (!(c.rho_inf >= 0.0 && c.rho_inf <= 1.0)) {
        throw std::invalid_argument(
            fmt::format("--rho-inf: must be in [0, 1], got {}", runtime::format_number(c.rho_inf)));
    }
    c.constraint_tolerance = run.constraint_tol.value_or(c.constraint_tolerance);
    if (compiled.has_setting("Interval")) {
        c.communication_step = compiled.number_setting("Interval", 0.0);
    } else if (!info.adaptive) {
        c.communication_step = c.step;
    }
}

// The settings of a multiscale method, resolved and checked as `mdl run` does
// (compiler/api/multiscale_setup.hpp), into the FMU's description: fmi2DoStep runs the
// method's macro-integrator with them (runtime/fmi/multiscale_step.hpp).
void multiscale_settings(FmuContents& c, const CompiledModel& compiled, const runtime::Model& model,
                         const SimulationSettings& run, const std::string& method) {
    namespace ms = runtime::multiscale;
    const MultiscaleSetup setup = multiscale_setup(run, compiled, method);
    mdl_fmu_multiscale m{};
    const auto refuse = [&](const ms::Applicability& a) {
        if (!a.applies) {
            throw runtime::MethodNotApplicable(method, a.reason);
        }
    };
    bool adaptive_macro = false;
    if (const auto* hmm = std::get_if<ms::HmmOptions>(&setup.options)) {
        refuse(ms::hmm_applicability(model, *hmm));
        const ms::HmmIntegrator probe(model, *hmm); // its own checks of the options and model
        m.macro = static_cast<int>(hmm->macro);
        m.algorithm = static_cast<int>(hmm->algorithm);
        m.filter = static_cast<int>(hmm->filter);
        m.force_even_in_phase = hmm->force_even_in_phase ? 1 : 0;
        m.macro_step = hmm->macro_step;
        m.window_periods = hmm->window_periods;
        m.macro_time_scale = hmm->macro_time_scale;
        m.micro_steps_per_period = static_cast<double>(hmm->micro_steps_per_period);
        m.period = hmm->period;
        m.constraint_tolerance = hmm->solver.constraint_tolerance;
    } else if (const auto* strobo = std::get_if<ms::StroboscopicOptions>(&setup.options)) {
        refuse(ms::strobo_applicability(model, *strobo));
        const ms::StroboscopicIntegrator probe(model, *strobo);
        adaptive_macro = strobo->macro == ms::StroboscopicMacro::dopri5;
        m.macro = static_cast<int>(strobo->macro);
        m.micro = static_cast<int>(strobo->micro);
        m.order = strobo->order;
        m.whole_steps = strobo->whole_steps ? 1 : 0;
        m.macro_step = strobo->macro_step;
        m.micro_steps_per_period = static_cast<double>(strobo->micro_steps_per_period);
        m.period = strobo->period;
        m.rtol = strobo->rtol;
        m.atol = strobo->atol;
        m.constraint_tolerance = strobo->solver.constraint_tolerance;
    } else {
        const auto& stiff = std::get<ms::StiffHmmOptions>(setup.options);
        refuse(ms::stiff_hmm_applicability(model));
        const ms::StiffHmmIntegrator probe(model, stiff);
        adaptive_macro = stiff.macro == ms::StiffMacro::dopri5;
        m.macro = static_cast<int>(stiff.macro);
        m.macro_step = stiff.macro_step;
        m.window_periods = stiff.window_periods;
        m.micro_steps_per_period = static_cast<double>(stiff.micro_steps_per_period);
        m.omega = stiff.omega;
        m.reproject_every = stiff.reproject_every;
        m.reproject_steps = static_cast<double>(stiff.reproject_steps);
        m.drift_rtol = stiff.drift_rtol;
        m.drift_atol = stiff.drift_atol;
        m.rtol = stiff.rtol;
        m.atol = stiff.atol;
        m.constraint_tolerance = stiff.solver.constraint_tolerance;
    }
    if (!(m.macro_step > 0.0)) { // a dopri5 macro writing every accepted step
        throw std::invalid_argument(fmt::format(
            "--step: {}'s dopri5 macro needs an output interval in an FMU (its communication "
            "points are multiples of it), not 0 (every accepted step): give --step or the "
            "annotation's Interval",
            method));
    }
    c.method = method;
    c.adaptive = false;
    c.step = m.macro_step;
    c.rtol = adaptive_macro ? m.rtol : c.rtol;
    c.atol = adaptive_macro ? m.atol : c.atol;
    c.constraint_tolerance = m.constraint_tolerance;
    c.start_time = setup.start;
    c.stop_time = setup.stop;
    c.communication_step = m.macro_step;
    c.multiscale = m;
}

} // namespace

std::string fmu_methods() {
    std::string out;
    for (const auto& m : runtime::methods()) {
        if (fmu_method(m.method)) {
            out += (out.empty() ? "" : ", ") + std::string(m.name);
        }
    }
    return out + ", hmm, hmm-shake, hmm-rattle, hmm-stiff, strobo";
}

FmuContents fmu_contents(const CompiledModel& compiled, const ExportSettings& o,
                         const DeclaredDescriptions& descriptions) {
    const auto description = [&](const std::string& name) {
        const auto found = descriptions.variables.find(name);
        return found != descriptions.variables.end() ? found->second : std::string();
    };
    const runtime::Model model = runtime_model(compiled);
    FmuContents c;
    c.model_name = compiled.name();
    c.model_identifier = identifier(compiled.name());
    c.description = descriptions.model;
    const SimulationSettings& run = o.simulation;
    const std::string requested = run.method.value_or(compiled.text_setting("method", ""));
    c.events = compiled.events();
    if (!c.events.empty() && is_multiscale_method(requested)) {
        throw std::invalid_argument(fmt::format(
            "model '{}' has events (when-clauses), which {} does not handle; export it with "
            "--method rk4 or dopri5 (the event driver of docs/events.md)",
            compiled.name(), requested));
    }
    if (is_multiscale_method(requested)) {
        multiscale_settings(c, compiled, model, run, requested);
    } else {
        classical_settings(c, compiled, model, o);
    }

    const Sizes s = compiled.sizes();
    c.positions = s.positions;
    c.states = s.states;
    const auto q0 = compiled.start_positions(), v0 = compiled.start_velocities(),
               x0 = compiled.start_states();
    unsigned reference = 0;
    const auto output = [&](const std::string& name, const std::string& text, double start) {
        c.variables.push_back({name, text, reference++, "output", "continuous", start, false, 0});
    };
    for (std::size_t i = 0; i < s.positions; ++i) {
        output(compiled.position_names()[i], "position", q0[i]);
    }
    for (std::size_t i = 0; i < s.positions; ++i) {
        output(compiled.velocity_names()[i], "velocity of " + compiled.position_names()[i], v0[i]);
    }
    for (std::size_t i = 0; i < s.states; ++i) {
        output(compiled.state_names()[i], description(compiled.state_names()[i]), x0[i]);
    }
    c.outputs = c.variables.size();
    c.start_fixed = compiled.start_fixed();
    c.constraint_names = compiled.constraint_names();
    c.vibration_names = compiled.vibration_names();
    for (std::size_t i = 0; i < s.parameters; ++i) {
        const bool tunable = independent(compiled, i);
        c.parameter_tunable.push_back(tunable);
        // a parameter others are computed from keeps its exported value: a constant; a
        // multiscale method's parameters are fixed after initialization (its averaged forces
        // and macro state are computed with them)
        const char* variability = !tunable ? "constant" : c.multiscale ? "fixed" : "tunable";
        c.variables.push_back(
            {compiled.parameter_names()[i], description(compiled.parameter_names()[i]), reference++,
             tunable ? "parameter" : "local", variability, compiled.parameters()[i]});
    }

    c.parameters = s.parameters;
    // the derivatives of the continuous states (q, v, x): der(q) is the velocity, then the
    // accelerations der(der(q)) and the rates der(x)
    // (constrained models are DAEs: Co-Simulation only, and no accelerations without the
    // constraint forces)
    // (with events: their indicators, and the reinits in fmi2NewDiscreteStates)
    c.model_exchange = s.constraints == 0;
    c.directional_derivatives = c.model_exchange && s.states == 0 && compiled.mass_constant() &&
                                compiled.mass_diagonal() && compiled.force_dq() &&
                                compiled.force_dv();
    for (std::size_t i = 0; c.model_exchange && i < s.positions; ++i) {
        c.variables[s.positions + i].derivative_of = i + 1;
    }
    for (std::size_t i = 0; c.model_exchange && i < s.positions; ++i) {
        FmuVariable a{"der(" + compiled.velocity_names()[i] + ")",
                      "acceleration of " + compiled.position_names()[i],
                      reference++,
                      "local",
                      "continuous",
                      0.0,
                      true,
                      s.positions + i + 1};
        c.variables.push_back(a);
    }
    for (std::size_t i = 0; c.model_exchange && i < s.states; ++i) {
        FmuVariable rate{"der(" + compiled.state_names()[i] + ")",
                         "rate of " + compiled.state_names()[i],
                         reference++,
                         "local",
                         "continuous",
                         0.0,
                         true,
                         2 * s.positions + i + 1};
        c.variables.push_back(rate);
    }

    for (const FmuVariable& v : c.variables) {
        c.units.push_back(compiled.unit(v.name));
    }

    ObjectOptions object;
    object.cpu = o.cpu;
    object.prefix = "mdl_fmu_" + c.model_identifier;
    c.kernel_prefix = object.prefix;
    c.object_code = compiled.object_code(object);
    return c;
}

} // namespace mdl::exporting
