// Tolerance control of the multiscale runs (docs/methods.md, "Error estimates"): each run
// estimates its own error (runtime/multiscale/error_estimate.hpp); the settings left to their
// defaults are refined, and the run repeated, until the estimate meets atol + rtol * max |q|,
// like an adaptive ODE solver. Settings fixed by a flag or the model's annotation are kept; a
// run that cannot meet the tolerance then reports its estimate (the caller warns), and a run
// with nothing fixed stops with a NumericalFailure naming the dominant part.
//
// While a run is controlled its output states are recorded and handed to the host only once
// the run is accepted, so the host sees one trajectory.
#pragma once

#include "mdl/simulate.hpp"
#include "runtime/multiscale/error_estimate.hpp"
#include "runtime/numerical_failure.hpp"
#include "runtime/state.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace mdl {

// The tolerance and which parts the control may refine.
struct Accuracy {
    double rtol = 1e-3, atol = 1e-6; // the defaults of the multiscale methods
    bool micro_free = false;         // micro steps per period left to the defaults
    bool macro_free = false;         // macro step (or the dopri5 macro's tolerances) likewise
    bool window_free = false;        // the filter's window (HMM's exponential kernel) likewise
    // Whether the method refines its micro steps at all (hmm-stiff does not: the errors they
    // make in the fast force are filtered out); a method that does not is all free when its
    // macro part is.
    bool micro_refined = true;
    // Nothing the control may refine was fixed: a tolerance it cannot meet stops the run.
    bool all_free() const { return (micro_free || !micro_refined) && macro_free; }
};

// The estimate of `parts` against atol + rtol * scale.
ErrorEstimate make_estimate(const runtime::multiscale::ErrorParts& parts, const Accuracy& accuracy,
                            double scale);
// "3.1e-4 (micro 1e-5, macro 3e-4, averaging 2e-6; tolerance 5e-4)".
std::string describe_estimate(const ErrorEstimate& e);
// The summary line's part: "; error estimate ... <= tolerance ..., macro dominates, ...".
std::string summarize_estimate(const ErrorEstimate& e, const std::string& notes,
                               std::size_t force_evaluations);
// The failure of a run that cannot meet its tolerance: `why` says what was tried.
[[noreturn]] void fail_tolerance(const std::string& method, double t, const ErrorEstimate& e,
                                 const std::string& why);
// What would reduce the dominant part, for the estimate's `remedy`.
std::string remedy_for(const ErrorEstimate& e, const std::string& method);

// Records the output states (control) or forwards them (no control), keeping the running
// estimate and the largest |q_i| (the tolerance's scale).
template <class Observer>
struct EstimateRecorder {
    Observer* forward = nullptr;
    std::vector<runtime::State> states;
    std::vector<double> estimates;
    std::optional<runtime::State> finished;
    runtime::multiscale::ErrorParts last;
    double scale = 0.0;

    void error_estimate(const runtime::multiscale::ErrorParts& parts) {
        last = parts;
        if (forward) {
            forward->error_estimate(parts);
        }
    }
    void operator()(const runtime::State& s) {
        if (s.q.size() > 0) {
            scale = std::max(scale, s.q.cwiseAbs().maxCoeff());
        }
        if (forward) {
            (*forward)(s);
            return;
        }
        states.push_back(s);
        estimates.push_back(last.total());
    }
    void finish(const runtime::State& s) {
        if (forward) {
            forward->finish(s);
        } else {
            finished = s;
        }
    }
    void replay(Observer& observer) const {
        for (std::size_t i = 0; i < states.size(); ++i) {
            observer.running_estimate(estimates[i]);
            observer(states[i]);
        }
        if (finished) {
            observer.finish(*finished);
        }
    }
};

enum class ErrorPart { micro, macro, averaging };

// The window control (its own step of controlled_run): when the window is free and the
// averaging part dominates, or blocks the other refinements (`kept`, what they cannot reduce,
// exceeds the tolerance), the caller's refine(averaging) may widen the window, if the
// filter's residual is what makes the averaging part.
inline bool widen_window_first(const Accuracy& accuracy, const ErrorEstimate& e, double kept,
                               bool runs_left) {
    return accuracy.window_free && runs_left &&
           (e.averaging >= std::max(e.micro, e.macro) || kept > e.tolerance);
}

inline ErrorPart dominant_part(const ErrorEstimate& e) {
    return e.dominant == "micro"   ? ErrorPart::micro
           : e.dominant == "macro" ? ErrorPart::macro
                                   : ErrorPart::averaging;
}

inline double part_of(const ErrorEstimate& e, ErrorPart part) {
    return part == ErrorPart::micro ? e.micro : part == ErrorPart::macro ? e.macro : e.averaging;
}

// Whether the last refinement failed: the part it aimed at (`previous` before it) fell by
// less than 10 %. Judged on that part, not the total: a micro part refined first leaves the
// total dominated by the macro part, whose refinement comes next.
inline bool refinement_stalled(const ErrorEstimate& e, const std::optional<ErrorPart>& part,
                               double previous) {
    return part && part_of(e, *part) >= 0.9 * previous;
}

// A run's failure that a smaller macro step may cure: Newton's iteration (a macro stage too
// far off the constraints to be projected back) or a non-finite state (an unstable step).
inline bool macro_step_may_cure(const runtime::NumericalFailure& f) {
    return f.kind() == runtime::FailureKind::newton_not_converged ||
           f.kind() == runtime::FailureKind::non_finite;
}

// No retry: a failed run's failure is the caller's.
struct NoRetry {
    bool operator()(const runtime::NumericalFailure&, std::string&) const { return false; }
};

// Why a stalled refinement ends the run: the part it aimed at, how it moved, and what that
// says ("its micro part did not decrease ... (0.0083 -> 0.011; micro steps per period 80 ->
// 1015)": for SHAKE micro steps, the constraints' round-off over h^2).
std::string stalled_reason(const ErrorEstimate& e, ErrorPart part, double previous,
                           const std::string& method, const std::string& notes);

// Runs `run(state, recorder)` (returning the method's stats, whose `error` holds the parts)
// and, while the estimate exceeds the tolerance and `refine(part, estimate, stats, notes)`
// changes the setting of the larger free part, again from the initial state. `estimate`
// receives the accepted run's estimate; the host's observer sees that run's states. A run
// that fails is repeated when `retry(failure, notes)` changes a free setting that may cure
// the failure (a smaller macro step after a Newton failure, as an adaptive solver rejects a
// step; a wider window); otherwise, or after the last run, the failure is thrown.
template <class Observer, class Run, class Refine, class Retry = NoRetry>
auto controlled_run(runtime::State& state, Observer& observer, const Accuracy& accuracy,
                    const std::string& method, double stop, Run run, Refine refine,
                    ErrorEstimate& estimate, std::string& notes, Retry retry = {}) {
    const runtime::State initial = state;
    if (!accuracy.micro_free && !accuracy.macro_free && !accuracy.window_free) {
        EstimateRecorder<Observer> stream;
        stream.forward = &observer;
        auto stats = run(state, stream);
        estimate = make_estimate(stats.error, accuracy, stream.scale);
        estimate.remedy = estimate.met() ? "" : remedy_for(estimate, method);
        return stats;
    }
    constexpr std::size_t max_runs = 5;
    double previous = std::numeric_limits<double>::infinity();
    std::optional<ErrorPart> refined_part; // the part the last refinement aimed at
    for (std::size_t runs = 1;; ++runs) {
        EstimateRecorder<Observer> recorder;
        state = initial;
        std::optional<decltype(run(state, recorder))> ran;
        try {
            ran.emplace(run(state, recorder));
        } catch (const runtime::NumericalFailure& failure) {
            if (runs >= max_runs || !retry(failure, notes)) {
                throw;
            }
            previous = std::numeric_limits<double>::infinity(); // no stall to judge
            continue;
        }
        auto& stats = *ran;
        estimate = make_estimate(stats.error, accuracy, recorder.scale);
        estimate.runs = runs;
        const auto accept = [&] {
            estimate.remedy = estimate.met() ? "" : remedy_for(estimate, method);
            recorder.replay(observer);
            return stats;
        };
        if (estimate.met()) {
            return accept();
        }
        const bool stalled = refinement_stalled(estimate, refined_part, previous);
        if (stalled && !accuracy.all_free()) {
            return accept(); // refining did not help: kept, with the caller's warning
        }
        if (stalled) {
            fail_tolerance(method, stop, estimate,
                           stalled_reason(estimate, *refined_part, previous, method, notes));
        }
        // what the step refinements do not reduce: the averaging part and the parts of fixed
        // settings; above the tolerance on its own, only a wider window may still meet it
        const double kept = estimate.averaging + (accuracy.micro_free ? 0.0 : estimate.micro) +
                            (accuracy.macro_free ? 0.0 : estimate.macro);
        if (widen_window_first(accuracy, estimate, kept, runs < max_runs) &&
            refine(ErrorPart::averaging, estimate, stats, notes)) {
            previous = estimate.averaging; // judged on the part it refined, as below
            refined_part = ErrorPart::averaging;
            continue; // a wider window for the filter's residual in the averaging part
        }
        // the larger of the free parts; an unresolved micro part first, whatever the rest
        // (the other parts are measured with the micro steps and may shrink with them)
        const bool micro_first = accuracy.micro_free && estimate.micro > estimate.tolerance / 4.0;
        const bool micro =
            micro_first ||
            (accuracy.micro_free && (!accuracy.macro_free || estimate.micro >= estimate.macro));
        const ErrorPart part = micro ? ErrorPart::micro : ErrorPart::macro;
        const bool refined = (micro_first || kept <= estimate.tolerance) && runs < max_runs &&
                             refine(part, estimate, stats, notes);
        if (!refined) {
            if (accuracy.all_free() && estimate.averaging > estimate.tolerance) {
                estimate.dominant = "averaging"; // what no setting reduces
                fail_tolerance(method, stop, estimate,
                               fmt::format("its averaging part alone ({:.2g}) exceeds it",
                                           estimate.averaging));
            }
            if (accuracy.all_free()) {
                fail_tolerance(method, stop, estimate,
                               runs >= max_runs ? "it was not met after " + std::to_string(runs) +
                                                      " runs (" + notes + ")"
                               : notes.empty() ? "no setting of the method reduces the " +
                                                     estimate.dominant + " part"
                                               : "after " + notes +
                                                     ", no setting of the method "
                                                     "reduces the " +
                                                     estimate.dominant + " part further");
            }
            return accept(); // the caller warns: settings were fixed
        }
        previous = part_of(estimate, part);
        refined_part = part;
    }
}

// The limits of the control's refinements: macro steps over the run (a refined H, strobo's
// retry) and the filter's window in fast periods (hmm's window control, hmm-stiff's retry).
constexpr double max_controlled_macro_steps = 1e6;
constexpr double max_controlled_window = 640.0;

// Refinements: the count of micro steps per period for an error `error` of a method of order
// p to meet `target` (at least 1.5 times more, at most 16); 0 if it would exceed `limit`.
std::size_t refined_count(std::size_t count, double error, double target, int order, double limit);
// A step for an error `error` of a method of order p to meet `target` (0.1 to 0.7 times H).
double refined_step(double step, double error, double target, int order);

// "a; b": the refinements a controlled run made, for its summary.
void add_note(std::string& notes, const std::string& note);
// The micro part's refinement of hmm, strobo and hmm-stiff (micro steps per period).
bool refine_micro_steps(std::size_t current, std::size_t& steps, const ErrorEstimate& e, int order,
                        std::string& notes);
// The macro part's refinement of hmm, strobo and hmm-stiff (the macro step H).
bool refine_macro_step(double& H, double span, bool whole_steps, const ErrorEstimate& e, int order,
                       std::string& notes);
// A failed run's retry with a quarter of the macro step H (strobo after a Newton failure,
// hmm-stiff after a drift off the slow manifold), noting why; false past the step limit.
bool quarter_macro_step(double& H, double span, const runtime::NumericalFailure& failure,
                        std::string& notes);
// The dopri5 macro's tolerances scaled to bring its part of the estimate to `target`.
void tighten(double& rtol, double& atol, double error, double target, std::string& notes);

} // namespace mdl
