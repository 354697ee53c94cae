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

namespace {

// The filter's share of the averaging part: the acceleration the filter leaves unfiltered at
// the averaged initial state (HmmForceEstimator::averaging_error), carried over `span` in free
// motion as the run's estimate carries it.
double filter_share(const runtime::Model& model, const runtime::multiscale::HmmOptions& options,
                    const runtime::State& initial, double span) {
    runtime::multiscale::HmmForceEstimator probe(model, options);
    runtime::Vector X = initial.q, V = initial.v;
    probe.averaged_state(initial.t, initial.q, initial.v, X, V);
    double displacement = 0.0, unfiltered = 0.0;
    probe.averaging_error(initial.t, X, V, displacement, unfiltered);
    return 0.5 * unfiltered * span * span;
}

// The window control: doubles the exponential kernel's window (up to 640 periods) while the
// filter's residual is more than a quarter of the tolerance; false when it is not (the simple
// and spline filters remove the harmonics to round-off) or the window is at its limit.
bool widen_window(const runtime::Model& model, runtime::multiscale::HmmOptions& options,
                  const runtime::State& initial, double span, const ErrorEstimate& e,
                  std::string& notes) {
    namespace ms = runtime::multiscale;
    if (options.filter != ms::FilterKind::exponential) {
        return false;
    }
    const double share = filter_share(model, options, initial, span);
    const double window = options.window_periods > 0.0 ? options.window_periods : 40.0;
    if (!(share > e.tolerance / 4.0) || window >= max_controlled_window) {
        return false;
    }
    add_note(notes, fmt::format("window {:g} -> {:g} periods (filter residual {:.2g})", window,
                                2.0 * window, share));
    options.window_periods = 2.0 * window;
    return true;
}

} // namespace

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
    Accuracy accuracy = multiscale_accuracy(
        o, compiled,
        macro_free &&
            !fixed_setting(compiled, o.micro_steps_per_period.has_value(),
                           "micro_steps_per_period") &&
            !fixed_setting(compiled, o.macro_time.has_value(), "macro_time_scale"),
        macro_free);
    accuracy.window_free = !fixed_setting(compiled, o.window.has_value(), "window");
    if (options.macro != ms::HmmMacro::verlet && accuracy.micro_free) {
        // SHAKE's micro-forces carry the constraints' Newton residual divided by h^2: to
        // round-off, or the comparison with h/2 measures it as a micro error at fine steps
        options.solver.polish_iterations = 1;
    }
    const double span = options.t_end - r.start;
    // micro: more micro steps per period (velocity Verlet and SHAKE: order 2); macro: a smaller
    // H dividing the interval, the micro step kept
    runtime::State initial;
    const auto refine = [&](ErrorPart part, const ErrorEstimate& e, const ms::HmmStats& st,
                            std::string& notes) {
        if (part == ErrorPart::averaging && accuracy.window_free &&
            widen_window(model, options, initial, span, e, notes)) {
            options.micro_steps_per_period = st.micro_steps_per_period;
            return true;
        }
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
                                              initial = s;
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
