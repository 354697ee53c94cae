// The estimate's text and the refinements of the multiscale tolerance control
// (error_control.hpp).
#include "compiler/api/error_control.hpp"

#include <fmt/format.h>

namespace mdl {

ErrorEstimate make_estimate(const runtime::multiscale::ErrorParts& parts, const Accuracy& accuracy,
                            double scale) {
    ErrorEstimate e;
    e.micro = parts.micro;
    e.macro = parts.macro;
    e.averaging = parts.averaging;
    e.total = parts.total();
    e.rtol = accuracy.rtol;
    e.atol = accuracy.atol;
    e.tolerance = accuracy.atol + accuracy.rtol * scale;
    e.estimate_force_evaluations = parts.force_evaluations;
    e.dominant = "micro";
    if (e.macro > e.micro) {
        e.dominant = "macro";
    }
    if (e.averaging > std::max(e.micro, e.macro)) {
        e.dominant = "averaging";
    }
    return e;
}

std::string describe_estimate(const ErrorEstimate& e) {
    return fmt::format("{:.2g} (micro {:.2g}, macro {:.2g}, averaging {:.2g}; tolerance {:.2g})",
                       e.total, e.micro, e.macro, e.averaging, e.tolerance);
}

std::string summarize_estimate(const ErrorEstimate& e, const std::string& notes,
                               std::size_t force_evaluations) {
    const double share = force_evaluations > 0
                             ? 100.0 * static_cast<double>(e.estimate_force_evaluations) /
                                   static_cast<double>(force_evaluations)
                             : 0.0;
    std::string text = fmt::format(
        "; error estimate {:.2g} {} tolerance {:.2g} (rtol {:g}, atol {:g}), {} dominates (micro "
        "{:.2g}, macro {:.2g}, averaging {:.2g}); estimating cost {} force evaluations ({:.0f}% "
        "of the run's)",
        e.total, e.met() ? "<=" : ">", e.tolerance, e.rtol, e.atol, e.dominant, e.micro, e.macro,
        e.averaging, e.estimate_force_evaluations, share);
    if (e.runs > 1) {
        text += fmt::format("; {} runs to meet the tolerance: {}", e.runs, notes);
    }
    return text;
}

std::string remedy_for(const ErrorEstimate& e, const std::string& method) {
    if (e.dominant == "micro") {
        return "raise --micro-steps-per-period (or leave it to the tolerance)";
    }
    if (e.dominant == "macro") {
        return method == "strobo" || method == "hmm-stiff"
                   ? "reduce --step, or use --macro dopri5 with a tighter --rtol"
                   : "reduce --step (or leave it to the tolerance)";
    }
    if (method == "hmm-stiff") {
        return "the averaged motion differs from the true one by about this much: the fast "
               "oscillation the start values carry (what the projection onto the slow manifold "
               "removed: start the fast springs at rest at their equilibrium lengths to remove "
               "it), the window's bias and the kernel's residual; loosen --rtol and --atol, or "
               "integrate directly (dopri5, cvode-bdf)";
    }
    return method == "strobo"
               ? "the fast oscillation (outputs away from the stroboscopic times t0 + k 2 pi/omega "
                 "are the smooth interpolant, which misses it: end the run at such a time) or the "
                 "differencing error of the field (use --order 4); or loosen --rtol and --atol"
               : "the fast and slow scales are not separated enough for this tolerance (the "
                 "averaged motion differs from the true one by about this much): loosen --rtol "
                 "and --atol, or integrate directly (dopri5, rattle); with --filter exp, a wider "
                 "--window (or leaving it to the tolerance) reduces the filter's residual";
}

std::string stalled_reason(const ErrorEstimate& e, ErrorPart part, double previous,
                           const std::string& method, const std::string& notes) {
    const char* name = part == ErrorPart::micro   ? "micro"
                       : part == ErrorPart::macro ? "macro"
                                                  : "averaging";
    const std::string moved =
        fmt::format("its {} part did not decrease when the settings were refined ({:.2g} -> "
                    "{:.2g}; {})",
                    name, previous, part_of(e, part), notes);
    if (part == ErrorPart::micro && (method == "hmm-shake" || method == "hmm-rattle")) {
        return moved +
               ": the SHAKE micro-forces carry the round-off of the constraints' solution "
               "divided by h^2, which grows as the micro step shrinks and here outweighs the "
               "micro-integration's own error; loosen --rtol and --atol, or use strobo (its "
               "half-explicit micro steps hold the constraints without that division)";
    }
    return moved + ": the method does not converge on this model";
}

void fail_tolerance(const std::string& method, double t, const ErrorEstimate& e,
                    const std::string& why) {
    throw runtime::NumericalFailure(
        runtime::FailureKind::tolerance_not_met, method, t, "the " + e.dominant + " part",
        fmt::format("the run's error estimate {} exceeds atol + rtol max|q| (rtol {:g}, atol {:g}) "
                    "and {}; the {} part dominates: {}. Fix the settings (--step, "
                    "--micro-steps-per-period) to run anyway with a warning",
                    describe_estimate(e), e.rtol, e.atol, why, e.dominant, remedy_for(e, method)));
}

std::size_t refined_count(std::size_t count, double error, double target, int order, double limit) {
    const double factor =
        std::clamp(1.2 * std::pow(error / target, 1.0 / static_cast<double>(order)), 1.5, 16.0);
    const double refined = std::ceil(static_cast<double>(count) * factor);
    return refined <= limit ? static_cast<std::size_t>(refined) : 0;
}

double refined_step(double step, double error, double target, int order) {
    return step *
           std::clamp(0.9 * std::pow(target / error, 1.0 / static_cast<double>(order)), 0.1, 0.7);
}

// "a; b": the refinements a controlled run made, for its summary.
void add_note(std::string& notes, const std::string& note) {
    notes += (notes.empty() ? "" : "; ") + note;
}

// The micro part's refinement, shared by hmm, strobo and hmm-stiff: `current` micro steps per
// period raised, for a micro method of `order`, until the micro error meets a quarter of the
// tolerance, into `steps`; false when more than 10^5 would be needed.
bool refine_micro_steps(std::size_t current, std::size_t& steps, const ErrorEstimate& e, int order,
                        std::string& notes) {
    const std::size_t n = refined_count(current, e.micro, e.tolerance / 4.0, order, 1e5);
    if (n == 0) {
        return false;
    }
    add_note(notes, fmt::format("micro steps per period {} -> {}", current, n));
    steps = n;
    return true;
}

// The macro part's refinement, shared by hmm, strobo and hmm-stiff: the macro step H of a
// macro method of `order` reduced until the macro error meets half the tolerance (to a whole
// number of steps over `span` when `whole_steps`); false when more than 10^6 steps would be
// needed.
bool refine_macro_step(double& H, double span, bool whole_steps, const ErrorEstimate& e, int order,
                       std::string& notes) {
    double refined = refined_step(H, e.macro, e.tolerance / 2.0, order);
    if (whole_steps) {
        const double steps = std::ceil(span / refined - 1e-9);
        if (!(steps <= max_controlled_macro_steps)) {
            return false;
        }
        refined = span / steps;
    } else if (!(span / refined <= max_controlled_macro_steps)) {
        return false;
    }
    add_note(notes, fmt::format("H {:g} -> {:g}", H, refined));
    H = refined;
    return true;
}

bool quarter_macro_step(double& H, double span, const runtime::NumericalFailure& failure,
                        std::string& notes) {
    if (!(span / (0.25 * H) <= max_controlled_macro_steps)) {
        return false;
    }
    add_note(notes, fmt::format("H {:g} -> {:g} ({} at t = {:g})", H, 0.25 * H,
                                to_string(failure.kind()), failure.time()));
    H *= 0.25;
    return true;
}

// The dopri5 macro's tolerances scaled to bring its part of the estimate to `target`.
void tighten(double& rtol, double& atol, double error, double target, std::string& notes) {
    const double factor = std::clamp(0.5 * target / error, 1e-3, 0.3);
    add_note(notes, fmt::format("macro rtol {:g} -> {:g}", rtol, rtol * factor));
    rtol *= factor;
    atol *= factor;
}

} // namespace mdl
