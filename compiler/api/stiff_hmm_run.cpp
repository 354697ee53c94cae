// HMM for stiff springs (hmm-stiff) run as `mdl run` runs it, under the tolerance control
// (error_control.hpp).
#include "compiler/api/method_runs.hpp"

#include <cmath>
#include <fmt/format.h>
#include <numbers>

namespace mdl::simulation {

// HMM for stiff springs: the slow motion from kernel averages of micro-integrations forwards
// and backwards from the macro state (docs/stiff_hmm.md).
runtime::multiscale::StiffHmmOptions stiff_hmm_options(const SimulationSettings& o,
                                                       const CompiledModel& compiled,
                                                       SimulationStatistics& r,
                                                       std::string& omega_source) {
    namespace ms = runtime::multiscale;
    ms::StiffHmmOptions options;
    options.macro = macro_integrator(o, compiled, ms::parse_stiff_macro);
    const bool adaptive = options.macro == ms::StiffMacro::dopri5;
    multiscale_interval(o, compiled, r, options.t_end);
    options.macro_step = macro_step(
        o, compiled, adaptive,
        adaptive ? 1.0 / 32 : default_whole_step(o, compiled, 1.0 / 32, r.start, options.t_end),
        r.start, options.t_end);
    if (!adaptive) {
        require_whole_steps(o, r.start, options.t_end, options.macro_step, "hmm-stiff");
    }
    // the fast frequency: --omega, else the relaxed constraints', else the model's fastest spring
    omega_source = "--omega";
    if (o.omega) {
        options.omega = *o.omega;
    } else if (o.relax_constraints) {
        options.omega = *o.relax_constraints;
        omega_source = "--relax-constraints";
    } else {
        for (const FastScale& scale : compiled.fast_scales()) {
            if (scale.source.rfind("spring", 0) == 0 && scale.omega > options.omega) {
                options.omega = scale.omega;
                omega_source = scale.source;
            }
        }
        if (options.omega == 0.0) {
            throw std::invalid_argument(fmt::format(
                "--method hmm-stiff: model '{}' has no spring marked `fast`; give the fast "
                "frequency with --omega, or relax its constraints with --relax-constraints OMEGA",
                compiled.name()));
        }
    }
    // the fast period 2 pi/omega sets the window: it must be a normal number
    const double fast_period = 2.0 * std::numbers::pi / options.omega;
    if (!(options.omega > 0) || !std::isfinite(options.omega) || !std::isnormal(fast_period)) {
        throw std::invalid_argument(fmt::format(
            "{}: the fast frequency must be positive with a finite period 2 pi/omega, got {}",
            omega_source, number(options.omega)));
    }
    require_positive("--window", o.window, "the kernel window in fast periods");
    options.window_periods = o.window.value_or(compiled.number_setting("window", 20.0));
    options.micro_steps_per_period =
        o.micro_steps_per_period.value_or(count_setting(compiled, "micro_steps_per_period", 6.0));
    require_micro_steps("--micro-steps-per-period",
                        static_cast<double>(options.micro_steps_per_period),
                        options.window_periods);
    if (o.reproject_every && !(*o.reproject_every >= 0.0 && std::isfinite(*o.reproject_every))) {
        throw std::invalid_argument(
            fmt::format("--reproject-every: must be a finite time >= 0 (0: never), got {}",
                        number(*o.reproject_every)));
    }
    options.reproject_every =
        o.reproject_every.value_or(compiled.number_setting("reproject_every", 0.0));
    if (!adaptive && options.reproject_every > 0.0) { // rk4: every whole number of macro steps
        const double per = options.reproject_every / options.macro_step;
        if (!(std::round(per) >= 1.0) || !(per <= max_steps) ||
            std::abs(per - std::round(per)) > 1e-9 * std::max(1.0, per)) {
            throw std::invalid_argument(fmt::format(
                "--reproject-every: with the rk4 macro the re-projection interval must be a whole "
                "number of macro steps H = {} (at most {}), got {} ({} steps)",
                number(options.macro_step), number(max_steps), number(options.reproject_every),
                number(per)));
        }
    }
    if (options.reproject_every == 0.0 &&
        !fixed_setting(compiled, o.reproject_every.has_value(), "reproject_every")) {
        // the underlying equations do not hold the limit's constraints, and on some models
        // the drift off them grows exponentially (a mass hung on a fast spring under gravity:
        // about e^(11 t)); a drift check every 4 steps (a debiased projection, one window in
        // the rk4 macro's 16 averaged forces) re-projects once the drift exceeds a tenth of
        // the multiscale tolerance
        options.reproject_steps = 4;
        const Accuracy tolerance = multiscale_accuracy(o, compiled, false, false);
        options.drift_rtol = tolerance.rtol / 10.0;
        options.drift_atol = tolerance.atol / 10.0;
    }
    resolve_tolerances(o, compiled, options.rtol, options.atol, adaptive, false);
    return options;
}

SimulationStatistics run_stiff_hmm(const SimulationSettings& o, const CompiledModel& compiled,
                                   const runtime::Model& model, const Output& output) {
    namespace ms = runtime::multiscale;
    SimulationStatistics r;
    r.method = "hmm-stiff";
    std::string omega_source;
    ms::StiffHmmOptions options = stiff_hmm_options(o, compiled, r, omega_source);
    options.estimate_error = true;
    const bool adaptive = options.macro == ms::StiffMacro::dopri5;
    // the micro steps are not refined: the fast force's errors they make are filtered out
    // (Sanz-Serna, Ariel & Tsai, the remark on the micro-integrations' accuracy)
    // a re-projection interval given (even 0, the paper's method without re-projections) fixes
    // the macro part: the run keeps it and warns
    const bool reprojection_fixed =
        fixed_setting(compiled, o.reproject_every.has_value(), "reproject_every");
    Accuracy accuracy = multiscale_accuracy(
        o, compiled, false,
        !reprojection_fixed && (adaptive ? !tolerances_fixed(o, compiled)
                                         : !fixed_setting(compiled, o.step.has_value(), "step")));
    accuracy.micro_refined = false;
    const double span = options.t_end - r.start;
    const auto refine = [&](ErrorPart part, const ErrorEstimate& e, const ms::StiffHmmStats&,
                            std::string& notes) {
        if (part == ErrorPart::micro && accuracy.micro_free) {
            return refine_micro_steps(options.micro_steps_per_period,
                                      options.micro_steps_per_period, e, 2, notes);
        }
        if (part == ErrorPart::macro && accuracy.macro_free) {
            if (adaptive) {
                tighten(options.rtol, options.atol, e.macro, e.tolerance / 2.0, notes);
                return true;
            }
            return refine_macro_step(options.macro_step, span, true, e, 4, notes);
        }
        return false;
    };
    // The window, when free, is widened (doubled, up to 640 periods) after a run stopped on
    // the kernel's residual (the rk4 macro step against the averaged force's stiffest rate,
    // runtime/multiscale/stiff_hmm.cpp): the residual falls fast with the window's length
    // (stiff_springs at w2 = 1e7 runs from 80 periods), while the window's bias grows as its
    // square, which the estimate's averaging part measures.
    accuracy.window_free = !fixed_setting(compiled, o.window.has_value(), "window");
    // A run whose state drifted far off the slow manifold between two drift checks (or went
    // non-finite), when the macro part is free, is repeated with a quarter of the rk4 step or
    // a hundredth of the dopri5 macro's tolerances: an elastic double pendulum at omega = 2e4
    // collapsed within one rk4 step of 1/32 and runs with 1/128.
    const auto retry = [&](const runtime::NumericalFailure& failure, std::string& notes) {
        if (failure.kind() == runtime::FailureKind::off_slow_manifold ||
            failure.kind() == runtime::FailureKind::non_finite) {
            if (!accuracy.macro_free) {
                return false;
            }
            if (adaptive) {
                add_note(notes, fmt::format("macro rtol {:g} -> {:g} ({} at t = {:g})",
                                            options.rtol, 0.01 * options.rtol,
                                            to_string(failure.kind()), failure.time()));
                options.rtol *= 0.01;
                options.atol *= 0.01;
                return options.rtol >= 1e-13;
            }
            return quarter_macro_step(options.macro_step, span, failure, notes);
        }
        if (!accuracy.window_free ||
            failure.kind() != runtime::FailureKind::unfiltered_fast_force ||
            !(options.window_periods < max_controlled_window)) {
            return false;
        }
        const double wider = std::min(max_controlled_window, 2.0 * options.window_periods);
        if (!(static_cast<double>(options.micro_steps_per_period) * wider <= max_micro_steps)) {
            return false; // the failure stands
        }
        add_note(notes,
                 fmt::format("window {:g} -> {:g} periods ({} at t = {:g})", options.window_periods,
                             wider, to_string(failure.kind()), failure.time()));
        options.window_periods = wider;
        return true;
    };
    ErrorEstimate estimate;
    std::string notes;
    const std::size_t every = output_every(o, compiled, adaptive ? 0.0 : options.macro_step);
    const auto ran = run_into(r, compiled, model, every, options.macro_step, output,
                              [&](runtime::State& state, auto& observer) {
                                  return controlled_run(
                                      state, observer, accuracy, "hmm-stiff", options.t_end,
                                      [&](runtime::State& s, auto& recorder) {
                                          return ms::run_stiff_hmm(model, s, options, recorder);
                                      },
                                      refine, estimate, notes, retry);
                              });
    if (!ran) {
        return stopped(r, compiled);
    }
    const ms::StiffHmmStats& stats = *ran;
    r.micro_steps = stats.micro_steps;
    r.error_estimate = estimate;
    r.summary =
        fmt::format("{} with hmm-stiff ({} macro, omega = {:g} from {}): t = {} to {}, {} macro "
                    "steps accepted, {} rejected, {} averaged forces, {} projections{}, {} "
                    "micro-steps (h = {:g}, {} per force), {} force evaluations, {:.3f} s",
                    compiled.name(), ms::to_string(options.macro), options.omega, omega_source,
                    r.start, options.t_end, stats.macro_steps, stats.rejected_steps,
                    stats.force_estimates, stats.projections,
                    stats.projections > 1
                        ? fmt::format(" (largest drift {:.2g})", stats.largest_drift)
                        : std::string(),
                    stats.micro_steps, stats.micro_step, stats.micro_steps_per_window,
                    stats.force_evaluations, r.seconds) +
        summarize_estimate(estimate, notes, stats.force_evaluations);
    return r;
}

} // namespace mdl::simulation
