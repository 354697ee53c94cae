// The classical methods (runtime/run.hpp: Verlet, RK4, dopri5, SHAKE/RATTLE, Newmark,
// generalized-alpha, CVODE, IDA, ...) run as `mdl run` runs them.
#include "compiler/api/method_runs.hpp"

#include "runtime/methods.hpp"
#include "runtime/run.hpp"

#include <cmath>
#include <fmt/format.h>

namespace mdl::simulation {

namespace {

// The classical method: --method, else the annotation's, else the runtime's choice.
runtime::Method classical_method(const SimulationSettings& o, const runtime::Model& model,
                                 const std::string& name) {
    if (name.empty()) {
        return runtime::default_method(model);
    }
    if (auto m = runtime::find_method(name)) {
        return *m;
    }
    if (o.method) {
        throw std::invalid_argument("--method: " + runtime::unknown_method_message(name));
    }
    throw std::invalid_argument(
        fmt::format("the model's experiment annotation asks for method '{}', which this version "
                    "of mdl does not provide; choose one with --method ({})",
                    name, runtime::unknown_method_message(name)));
}

// "; events: b.y <= 0 x 62 (rest 1)", or nothing for a model without events.
std::string event_summary(const runtime::Model& model, const runtime::IntegrationStats& stats) {
    std::string out;
    for (std::size_t k = 0; k < stats.event_counts.size(); ++k) {
        out += fmt::format("{}{} x {}", out.empty() ? "; events: " : ", ", model.events()[k].name,
                           stats.event_counts[k]);
        if (k < stats.event_rests.size() && stats.event_rests[k] > 0) {
            out += fmt::format(" (at rest {} times)", stats.event_rests[k]);
        }
        if (k < stats.event_projections.size() && stats.event_projections[k] > 0) {
            out += fmt::format(" (velocity projected onto the constraints {} times)",
                               stats.event_projections[k]);
        }
    }
    if (stats.largest_event_projection > 0.0) {
        out += fmt::format(" (largest velocity change of a projection {:.3g})",
                           stats.largest_event_projection);
    }
    return out + (stats.terminated
                      ? fmt::format("; ended by terminate(\"{}\")", stats.terminate_message)
                      : "");
}

} // namespace

SimulationStatistics run_classical(const SimulationSettings& o, const CompiledModel& compiled,
                                   const runtime::Model& model, const std::string& method_name,
                                   const Output& output) {
    runtime::RunSettings settings;
    settings.method = classical_method(o, model, method_name);
    const runtime::MethodInfo& info = runtime::info(settings.method);
    SimulationStatistics r;
    r.method = info.name;
    r.start = o.start.value_or(compiled.number_setting("StartTime", 0.0));
    settings.stop_time = o.stop.value_or(compiled.number_setting("StopTime", 1.0));
    r.stop = settings.stop_time;
    settings.step = o.step.value_or(compiled.number_setting(
        "step", info.adaptive ? compiled.number_setting("Interval", 0.0) : 1e-3));
    resolve_tolerances(o, compiled, settings.adaptive.rtol, settings.adaptive.atol, info.adaptive,
                       true);
    settings.rho_inf = o.rho_inf.value_or(compiled.number_setting("rho_inf", settings.rho_inf));
    settings.solver.constraint_tolerance =
        o.constraint_tol.value_or(settings.solver.constraint_tolerance);
    require_interval(r.start, settings.stop_time);
    if (!info.adaptive) {
        if (!(settings.step > 0) || !std::isfinite(settings.step)) {
            throw std::invalid_argument(
                fmt::format("--step: must be positive and finite, got {}", number(settings.step)));
        }
        step_count(o, r.start, settings.stop_time, settings.step, "a step of");
    } else if (settings.step != 0.0) { // the output interval; 0: every step
        if (!(settings.step > 0) || !std::isfinite(settings.step)) {
            throw std::invalid_argument(fmt::format(
                "--step: the output interval of an adaptive method must be positive and finite "
                "(or 0: every step), got {}",
                number(settings.step)));
        }
        step_count(o, r.start, settings.stop_time, settings.step, "an output interval of");
    } else {
        require_adaptive_span(r.start, settings.stop_time);
    }
    const std::size_t every = output_every(o, compiled, info.adaptive ? 0.0 : settings.step);
    const auto ran = run_into(r, compiled, model, every, settings.step, output,
                              [&](runtime::State& state, auto& observer) {
                                  return runtime::run(model, state, settings, observer);
                              });
    if (!ran) {
        return stopped(r, compiled);
    }
    const runtime::IntegrationStats& stats = *ran;
    r.summary = fmt::format("{} with {}: t = {} to {}, {} steps{}, {} rows, {:.3f} s",
                            compiled.name(), info.name, r.start, r.stop, stats.steps,
                            info.adaptive ? fmt::format(" ({} rejected)", stats.rejected) : "",
                            r.rows, r.seconds) +
                event_summary(model, stats);
    return r;
}

} // namespace mdl::simulation
