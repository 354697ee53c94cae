// HMM (hmm, hmm-shake, hmm-rattle) run as `mdl run` runs it, under the tolerance control
// (error_control.hpp).
#include "compiler/api/method_runs.hpp"

#include <cmath>
#include <fmt/format.h>

namespace mdl::simulation {

// HMM: a macro step H of the averaged motion; each averaged force from a micro-integration of
// the model over a window of fast periods (docs/hmm.md).
runtime::multiscale::HmmOptions hmm_options(const SimulationSettings& o,
                                            const CompiledModel& compiled,
                                            const std::string& method, SimulationStatistics& r) {
    namespace ms = runtime::multiscale;
    require_vibration(compiled, method, "HMM averages over a vibration's fast period");
    ms::HmmOptions options;
    options.macro = ms::parse_hmm_method(method);
    options.algorithm =
        ms::parse_hmm_algorithm(o.algorithm.value_or(compiled.text_setting("algorithm", "async")));
    options.filter =
        ms::parse_filter_kind(o.filter.value_or(compiled.text_setting("filter", "simple")));
    require_positive("--window", o.window, "the filter window in fast periods");
    options.window_periods = o.window.value_or(compiled.number_setting("window", 0.0));
    multiscale_interval(o, compiled, r, options.t_end);
    options.macro_step = macro_step(
        o, compiled, false, default_whole_step(o, compiled, 1.0 / 80, r.start, options.t_end),
        r.start, options.t_end);
    require_whole_steps(o, r.start, options.t_end, options.macro_step, method);
    options.macro_time_scale =
        o.macro_time.value_or(compiled.number_setting("macro_time_scale", 1.0));
    if (!(options.macro_time_scale > 0.0) || !std::isfinite(options.macro_time_scale)) {
        throw std::invalid_argument(fmt::format("--macro-time: T_macro must be positive and "
                                                "finite, got {}",
                                                number(options.macro_time_scale)));
    }
    options.micro_steps_per_period =
        o.micro_steps_per_period.value_or(count_setting(compiled, "micro_steps_per_period", 0.0));
    {
        // the paper's default: T_macro/H micro steps per period (hmm.cpp)
        const double per_period = options.micro_steps_per_period > 0
                                      ? static_cast<double>(options.micro_steps_per_period)
                                      : std::round(options.macro_time_scale / options.macro_step);
        const double window = options.window_periods > 0.0               ? options.window_periods
                              : options.filter == ms::FilterKind::simple ? 1.0
                              : options.filter == ms::FilterKind::spline ? 3.0
                                                                         : 40.0;
        require_micro_steps(options.micro_steps_per_period > 0 ? "--micro-steps-per-period"
                                                               : "--macro-time",
                            per_period, window);
    }
    options.force_even_in_phase = compiled.force_even_in_all_phases();
    require_positive("--period", o.period, "the common fast period");
    options.period = o.period.value_or(0.0); // (not an annotation key: the checker ignores it)
    if (o.constraint_tol) {
        options.solver.constraint_tolerance = *o.constraint_tol;
    }
    return options;
}

SimulationStatistics run_hmm(const SimulationSettings& o, const CompiledModel& compiled,
                             const runtime::Model& model, const std::string& method,
                             const Output& output) {
    namespace ms = runtime::multiscale;
    SimulationStatistics r;
    r.method = method;
    ms::HmmOptions options = hmm_options(o, compiled, method, r);
    options.estimate_error = true;
    // The micro step follows a fixed H by default (the paper's h = (2 pi/omega) H/T_macro), so
    // a fixed H fixes it too.
    const bool macro_free = !fixed_setting(compiled, o.step.has_value(), "step");
    const Accuracy accuracy = multiscale_accuracy(
        o, compiled,
        macro_free &&
            !fixed_setting(compiled, o.micro_steps_per_period.has_value(),
                           "micro_steps_per_period") &&
            !fixed_setting(compiled, o.macro_time.has_value(), "macro_time_scale"),
        macro_free);
    if (options.macro != ms::HmmMacro::verlet && accuracy.micro_free) {
        // SHAKE's micro-forces carry the constraints' Newton residual divided by h^2: to
        // round-off, or the comparison with h/2 measures it as a micro error at fine steps
        options.solver.polish_iterations = 1;
    }
    const double span = options.t_end - r.start;
    // micro: more micro steps per period (velocity Verlet and SHAKE: order 2); macro: a smaller
    // H dividing the interval, the micro step kept
    const auto refine = [&](ErrorPart part, const ErrorEstimate& e, const ms::HmmStats& st,
                            std::string& notes) {
        if (part == ErrorPart::micro && accuracy.micro_free) {
            return refine_micro_steps(st.micro_steps_per_period, options.micro_steps_per_period, e,
                                      2, notes);
        }
        if (part == ErrorPart::macro && accuracy.macro_free &&
            refine_macro_step(options.macro_step, span, true, e, 2, notes)) {
            options.micro_steps_per_period = st.micro_steps_per_period;
            return true;
        }
        return false;
    };
    ErrorEstimate estimate;
    std::string notes;
    const std::size_t every = output_every(o, compiled, options.macro_step);
    const auto ran = run_into(r, compiled, model, every, options.macro_step, output,
                              [&](runtime::State& state, auto& observer) {
                                  return naming_period(o, [&] {
                                      return controlled_run(
                                          state, observer, accuracy, method, options.t_end,
                                          [&](runtime::State& s, auto& recorder) {
                                              return ms::run_hmm(model, s, options, recorder);
                                          },
                                          refine, estimate, notes);
                                  });
                              });
    if (!ran) {
        return stopped(r, compiled);
    }
    const ms::HmmStats& stats = *ran;
    r.micro_steps = stats.micro_steps;
    r.error_estimate = estimate;
    const bool half = stats.half_window;
    r.summary =
        fmt::format("{} with {} ({}, {} filter{}): t = {} to {}, {} macro steps of {:g}, {} "
                    "micro-steps (h = {:g}, {} per force), {} force evaluations, {:.3f} s",
                    compiled.name(), method, ms::to_string(options.algorithm),
                    ms::to_string(options.filter),
                    half ? ", half window: force even in the phase" : "", r.start, options.t_end,
                    stats.macro_steps, options.macro_step, stats.micro_steps, stats.micro_step,
                    stats.micro_steps_per_window, stats.force_evaluations, r.seconds) +
        summarize_estimate(estimate, notes, stats.force_evaluations);
    return r;
}

} // namespace mdl::simulation
