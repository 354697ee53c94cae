// Stroboscopic averaging run as `mdl run` runs it, under the tolerance control
// (error_control.hpp).
#include "compiler/api/method_runs.hpp"

#include <cmath>
#include <fmt/format.h>
#include <numbers>

namespace mdl::simulation {

namespace {

// The micro-integrator's order (Richardson's factor and the refinement of the micro steps).
int micro_order(runtime::multiscale::StroboscopicMicro micro) {
    using runtime::multiscale::StroboscopicMicro;
    return micro == StroboscopicMicro::verlet              ? 2
           : micro == StroboscopicMicro::half_explicit_rk3 ? 3
                                                           : 4;
}

} // namespace

// Stroboscopic averaging: the averaged field from central differences of the period map of
// micro-integrations that all start at phase theta(t0) (docs/stroboscopic.md).
runtime::multiscale::StroboscopicOptions strobo_options(const SimulationSettings& o,
                                                        const CompiledModel& compiled,
                                                        SimulationStatistics& r) {
    namespace ms = runtime::multiscale;
    require_vibration(compiled, "strobo",
                      "stroboscopic averaging samples the motion once per fast period");
    ms::StroboscopicOptions options;
    // (compared as a double: a cast of the annotation's order = 1e300 to int is undefined)
    const double order = o.order ? *o.order : compiled.number_setting("order", 4);
    if (order != 2 && order != 4) {
        throw std::invalid_argument(
            fmt::format("--order: the differencing order must be 2 or 4, got {}", number(order)));
    }
    options.order = static_cast<int>(order);
    options.macro = macro_integrator(o, compiled, ms::parse_stroboscopic_macro);
    if (o.micro || !compiled.text_setting("micro", "").empty()) {
        try {
            options.micro = ms::parse_stroboscopic_micro(
                o.micro.value_or(compiled.text_setting("micro", "auto")));
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(fmt::format("--micro: {}", e.what()));
        }
    }
    multiscale_interval(o, compiled, r, options.t_end);
    const bool adaptive = options.macro == ms::StroboscopicMacro::dopri5;
    options.macro_step =
        macro_step(o, compiled, adaptive, std::numbers::pi / 50.0, r.start, options.t_end);
    options.whole_steps = false; // the run ends at the stop time
    options.micro_steps_per_period =
        o.micro_steps_per_period.value_or(count_setting(compiled, "micro_steps_per_period", 10.0));
    // one period map per field evaluation: the window is one period
    require_micro_steps("--micro-steps-per-period",
                        static_cast<double>(options.micro_steps_per_period), 1.0);
    resolve_tolerances(o, compiled, options.rtol, options.atol, adaptive, false);
    require_positive("--period", o.period, "the common fast period");
    options.period = o.period.value_or(0.0); // (not an annotation key: the checker ignores it)
    return options;
}

SimulationStatistics run_strobo(const SimulationSettings& o, const CompiledModel& compiled,
                                const runtime::Model& model, const Output& output) {
    namespace ms = runtime::multiscale;
    SimulationStatistics r;
    r.method = "strobo";
    ms::StroboscopicOptions options = strobo_options(o, compiled, r);
    options.estimate_error = true;
    const bool adaptive = options.macro == ms::StroboscopicMacro::dopri5;
    const Accuracy accuracy = multiscale_accuracy(
        o, compiled,
        !fixed_setting(compiled, o.micro_steps_per_period.has_value(), "micro_steps_per_period"),
        adaptive ? !tolerances_fixed(o, compiled)
                 : !fixed_setting(compiled, o.step.has_value(), "step"));
    const auto refine = [&](ErrorPart part, const ErrorEstimate& e, const ms::StroboscopicStats& st,
                            std::string& notes) {
        if (part == ErrorPart::micro && accuracy.micro_free) {
            return refine_micro_steps(options.micro_steps_per_period,
                                      options.micro_steps_per_period, e, micro_order(st.micro),
                                      notes);
        }
        if (part == ErrorPart::macro && accuracy.macro_free) {
            if (adaptive) {
                tighten(options.rtol, options.atol, e.macro, e.tolerance / 2.0, notes);
                return true;
            }
            return refine_macro_step(options.macro_step, options.t_end - r.start, false, e, 4,
                                     notes);
        }
        return false;
    };
    // a run that failed where a smaller step may cure it (the rk4 macro's stages too far off
    // the constraints for the projection's Newton iteration): a quarter of the step
    const auto retry = [&](const runtime::NumericalFailure& failure, std::string& notes) {
        const double span = options.t_end - r.start;
        return !adaptive && accuracy.macro_free && macro_step_may_cure(failure) &&
               quarter_macro_step(options.macro_step, span, failure, notes);
    };
    ErrorEstimate estimate;
    std::string notes;
    const std::size_t every = output_every(o, compiled, adaptive ? 0.0 : options.macro_step);
    const auto ran =
        run_into(r, compiled, model, every, options.macro_step, output,
                 [&](runtime::State& state, auto& observer) {
                     return naming_period(o, [&] {
                         return controlled_run(
                             state, observer, accuracy, "strobo", options.t_end,
                             [&](runtime::State& s, auto& recorder) {
                                 return ms::run_stroboscopic(model, s, options, recorder);
                             },
                             refine, estimate, notes, retry);
                     });
                 });
    if (!ran) {
        return stopped(r, compiled);
    }
    const ms::StroboscopicStats& stats = *ran;
    r.micro_steps = stats.micro_steps;
    r.error_estimate = estimate;
    r.summary = fmt::format(
        "{} with strobo (order {}, {} macro, {} micro): t = {} to {}, {} macro steps{}, {} "
        "averaged fields, {} micro-steps (h = {:g}, {} per field), {} force evaluations, {}, "
        "{:.3f} s",
        compiled.name(), options.order, ms::to_string(options.macro), ms::to_string(stats.micro),
        r.start, options.t_end, stats.macro_steps,
        adaptive ? fmt::format(" ({} rejected)", stats.rejected_steps) : "",
        stats.field_evaluations, stats.micro_steps, stats.micro_step, stats.micro_steps_per_field,
        stats.force_evaluations,
        stats.stroboscopic_outputs ? "outputs at stroboscopic times"
                                   : "outputs not all at stroboscopic times (see "
                                     "docs/stroboscopic.md)",
        r.seconds);
    if (model.constrained()) {
        r.summary += fmt::format("; max |g| = {:.2g}, max |G v| = {:.2g} at the outputs",
                                 stats.max_position_residual, stats.max_velocity_residual);
    }
    r.summary += summarize_estimate(estimate, notes, stats.force_evaluations);
    return r;
}

} // namespace mdl::simulation
