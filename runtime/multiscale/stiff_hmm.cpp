#include "runtime/multiscale/stiff_hmm.hpp"

#include "runtime/integrators/dopri5.hpp"
#include "runtime/integrators/rk4.hpp"
#include "runtime/integrators/verlet.hpp"
#include "runtime/multiscale/applicability.hpp"
#include "runtime/multiscale/filters.hpp"
#include "runtime/multiscale/micro_verlet.hpp"

#include <cmath>
#include <cstdio>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mdl::runtime::multiscale {

namespace {
constexpr std::string_view method_name = "hmm-stiff";

[[noreturn]] void bad_option(const std::string& what) {
    throw std::invalid_argument(std::string(method_name) + ": " + what);
}

std::string short_number(double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", x);
    return std::string(text);
}
} // namespace

std::string_view to_string(StiffMacro macro) {
    return macro == StiffMacro::rk4 ? "rk4" : "dopri5";
}

StiffMacro parse_stiff_macro(std::string_view name) {
    if (name == "rk4") {
        return StiffMacro::rk4;
    }
    if (name == "dopri5") {
        return StiffMacro::dopri5;
    }
    throw std::invalid_argument("unknown macro-integrator '" + std::string(name) +
                                "' for hmm-stiff (rk4 or dopri5)");
}

// ---------------------------------------------------------------------------------------------
// The force estimator

struct StiffForceEstimator::Impl {
    Impl(const Model& m, const StiffHmmOptions& o)
        : model(&m), filter(Filter::exponential(o.window_periods > 0.0 ? o.window_periods : 1.0)),
          verlet(m, o.solver) {
        omega = o.omega;
        if (!(omega > 0.0) || !std::isfinite(omega)) {
            bad_option("the fast frequency omega must be positive and finite (mark the stiff "
                       "springs `fast` or give it explicitly)");
        }
        if (!(o.window_periods > 0.0) || !std::isfinite(o.window_periods)) {
            bad_option("the filter window must be a positive number of fast periods");
        }
        if (o.micro_steps_per_period == 0) {
            bad_option("at least one micro step per fast period is needed");
        }
        const double period = 2.0 * std::numbers::pi / omega;
        // n steps either side, n h = eta = (window/2) periods
        const double side = std::max(1.0, std::round(static_cast<double>(o.micro_steps_per_period) *
                                                     o.window_periods / 2.0));
        n = static_cast<std::size_t>(side);
        h = o.window_periods * period / (2.0 * side);
        weights = filter.full_window_weights(n);
        for (std::size_t i = 0; i <= 2 * n; ++i) {
            const double t = time_of(i);
            second_moment += weights[i] * t * t;
            fourth_moment += weights[i] * t * t * t * t;
        }
        debias = o.debias_projection;
        start = m.zero_state();
        s = start;
        a = Vector::Zero(m.positions());
        sum_q = a;
        sum_v = a;
        sum_a = a;
        sum_ta = a;
        if (MicroVerlet::supported(m)) {
            fused = std::make_unique<MicroVerlet>(m);
        }
    }

    void require_resolved(double t) const {
        const double omega_h = omega * h;
        if (omega_h > max_omega_h) {
            throw NumericalFailure(
                FailureKind::unresolved_fast_scale, method_name, t,
                "fast scale omega = " + format_number(omega),
                "the micro step h = " + format_number(h) + " gives omega h = " +
                    format_number(omega_h) + " > " + format_number(max_omega_h) +
                    "; Verlet does not follow the stiff springs. Use more micro steps per "
                    "fast period (the paper: 6)");
        }
    }

    // The time of grid point i (0 .. 2n) from the window's centre.
    double time_of(std::size_t i) const {
        return (static_cast<double>(i) - static_cast<double>(n)) * h;
    }

    // The micro-integration's start (t, Q, P), its step checked against the fast scale.
    void begin(double t, const Vector& Q, const Vector& P) {
        require_resolved(t);
        start.t = t;
        start.q = Q;
        start.v = P;
    }

    // The micro-integration from `start`, both directions; `sample(i, q, v, a)` sees every
    // grid point i (time time_of(i), weight weights[i]; the centre once) as arrays of doubles.
    // The fused loop of micro_verlet.hpp when the force does not depend on the velocity.
    template <class Sample>
    void sweep(Sample&& sample) {
        if (fused) {
            fused->start(start.t, start.q, start.v);
            sample(n, fused->start_q(), fused->start_v(), fused->start_acceleration());
            fused->sweep_both(
                h, n,
                [&](std::size_t k, double direction, const double* q, const double* v,
                    const double* acc) { sample(direction > 0.0 ? n + k : n - k, q, v, acc); });
            micro += 2 * n;
            return;
        }
        verlet.force().acceleration(start.t, start.q, start.v, start.x, a);
        sample(n, start.q.data(), start.v.data(), a.data());
        for (const double direction : {1.0, -1.0}) {
            s = start;
            for (std::size_t k = 1; k <= n; ++k) {
                verlet.step(s, direction * h);
                const std::size_t i = direction > 0.0 ? n + k : n - k;
                sample(i, s.q.data(), s.v.data(), verlet.acceleration().data());
            }
            micro += n;
        }
    }

    void estimate(double t, const Vector& Q, const Vector& P, Vector& F) {
        begin(t, Q, P);
        F.setZero();
        double* total = F.data();
        const auto n_pos = static_cast<std::size_t>(F.size());
        sweep([&](std::size_t k, const double*, const double*, const double* acc) {
            const double w = weights[k];
            for (std::size_t i = 0; i < n_pos; ++i) {
                total[i] += w * acc[i];
            }
        });
        ++estimates;
    }

    void estimate(double t, const Vector& Q, const Vector& P, Vector& F, Vector& bias) {
        begin(t, Q, P);
        F.setZero();
        bias.setZero(F.size());
        const auto n_pos = static_cast<std::size_t>(F.size());
        sweep([&](std::size_t j, const double*, const double*, const double* acc) {
            const double w = weights[j];
            const double t_j = time_of(j);
            const double curvature = w * (t_j * t_j - second_moment);
            for (std::size_t i = 0; i < n_pos; ++i) {
                const auto k = static_cast<Eigen::Index>(i);
                F[k] += w * acc[i];
                bias[k] += curvature * acc[i];
            }
        });
        // bias = F'' m2/2 = m2 int K (t^2 - m2) f dt/(m4 - m2^2)
        bias *= second_moment / (fourth_moment - second_moment * second_moment);
        ++estimates;
    }

    double residual_fraction() const {
        // frequencies omega/2 to the micro grid's Nyquist frequency pi/h (above it the grid
        // aliases them), 64 per omega: the kernel's transform on the grid
        double largest = 0.0;
        const double nyquist = std::numbers::pi / h;
        for (int k = 0;; ++k) {
            const double nu = omega * (0.5 + static_cast<double>(k) / 64.0);
            if (nu > nyquist) {
                break;
            }
            double sum = 0.0;
            for (std::size_t i = 0; i <= 2 * n; ++i) {
                sum += weights[i] * std::cos(nu * time_of(i));
            }
            largest = std::max(largest, std::abs(sum));
        }
        return largest;
    }

    void project(State& state) {
        begin(state.t, state.q, state.v);
        sum_q.setZero();
        sum_v.setZero();
        sum_a.setZero();
        sum_ta.setZero();
        const auto n_pos = static_cast<std::size_t>(sum_q.size());
        sweep([&](std::size_t j, const double* q, const double* v, const double* acc) {
            const double w = weights[j];
            const double t = time_of(j);
            for (std::size_t i = 0; i < n_pos; ++i) {
                const auto k = static_cast<Eigen::Index>(i);
                sum_q[k] += w * q[i];
                sum_v[k] += w * v[i];
                sum_a[k] += w * acc[i];
                sum_ta[k] += w * t * acc[i];
            }
        });
        state.q = sum_q;
        if (debias) {
            // the slow motion's curvature within the window: Q + P t + F t^2/2 averages to
            // Q + F m2/2 (m2 the kernel's second moment; odd moments vanish), and P + F' t to
            // P + F' m2/2, where int K t f dt = F' m2 (the kernel's t K(t) filters the fast
            // force as K does)
            state.q -= (0.5 * second_moment) * sum_a;
            sum_v -= 0.5 * sum_ta;
        }
        state.v = sum_v;
        ++projections;
    }

    std::size_t force_evaluations() {
        return verlet.force().evaluations() + (fused ? fused->evaluations() : 0);
    }

    const Model* model;
    Filter filter;
    VelocityVerlet<ModelForce> verlet;
    std::unique_ptr<MicroVerlet> fused; // velocity-independent forces
    double omega = 0.0, h = 0.0;
    double second_moment = 0.0; // sum of w_i t_i^2 over the window
    double fourth_moment = 0.0; // sum of w_i t_i^4
    bool debias = false;
    std::size_t n = 0;
    std::vector<double> weights;
    State start, s;
    Vector a, sum_q, sum_v, sum_a, sum_ta;
    std::size_t micro = 0, estimates = 0, projections = 0;
};

StiffForceEstimator::StiffForceEstimator(const Model& model, const StiffHmmOptions& options) {
    const Applicability verdict = stiff_hmm_applicability(model);
    if (!verdict.applies) {
        throw MethodNotApplicable(method_name, verdict.reason);
    }
    impl_ = std::make_unique<Impl>(model, options);
}
StiffForceEstimator::~StiffForceEstimator() = default;
StiffForceEstimator::StiffForceEstimator(StiffForceEstimator&&) noexcept = default;

void StiffForceEstimator::estimate(double t, const Vector& Q, const Vector& P, Vector& F) {
    impl_->estimate(t, Q, P, F);
}
void StiffForceEstimator::estimate(double t, const Vector& Q, const Vector& P, Vector& F,
                                   Vector& bias) {
    impl_->estimate(t, Q, P, F, bias);
}
double StiffForceEstimator::residual_fraction() const {
    return impl_->residual_fraction();
}
void StiffForceEstimator::project(State& s) {
    impl_->project(s);
}
double StiffForceEstimator::omega() const {
    return impl_->omega;
}
double StiffForceEstimator::micro_step() const {
    return impl_->h;
}
std::size_t StiffForceEstimator::steps_per_window() const {
    return 2 * impl_->n;
}
std::size_t StiffForceEstimator::micro_steps() const {
    return impl_->micro;
}
std::size_t StiffForceEstimator::force_evaluations() const {
    return impl_->force_evaluations();
}
std::size_t StiffForceEstimator::estimates() const {
    return impl_->estimates;
}
std::size_t StiffForceEstimator::projections() const {
    return impl_->projections;
}

// ---------------------------------------------------------------------------------------------
// The macro-integration

struct StiffHmmIntegrator::Impl {
    Impl(const Model& m, const StiffHmmOptions& o) : model(&m), options(o), estimator(m, o) {
        if (!std::isfinite(o.t_end)) {
            bad_option("t_end must be finite");
        }
        if (o.macro == StiffMacro::dopri5 && (o.refine == 0 || !(o.max_step >= 0.0))) {
            bad_option("dopri5 needs refine >= 1 and max_step >= 0 (0: a tenth of the interval)");
        }
        if (!(o.reproject_every >= 0.0) || !std::isfinite(o.reproject_every)) {
            bad_option("the re-projection interval must be >= 0 (0: never)");
        }
        if (o.macro == StiffMacro::rk4 && (!(o.macro_step > 0.0) || !std::isfinite(o.macro_step))) {
            bad_option("the rk4 macro step H must be positive and finite");
        }
        if (o.macro == StiffMacro::dopri5 &&
            (!(o.macro_step >= 0.0) || !std::isfinite(o.macro_step) || !(o.rtol > 0.0) ||
             !(o.atol >= 0.0))) {
            bad_option("dopri5 needs rtol > 0, atol >= 0 and an output interval >= 0");
        }
    }

    // Whole number of intervals of `step` in `span`, else 0.
    static std::size_t whole(double span, double step) {
        const double count = span / step;
        const double rounded = std::round(count);
        if (!(rounded >= 1.0) || std::abs(count - rounded) > 1e-9 * std::max(1.0, count)) {
            return 0;
        }
        return static_cast<std::size_t>(rounded);
    }

    void start(State& s) {
        require_state_shape(*model, s, method_name);
        t0 = s.t;
        if (!(options.t_end > t0)) {
            bad_option("t_end (" + format_number(options.t_end) +
                       ") must lie after the start time (" + format_number(t0) + ")");
        }
        s.lambda.resize(0);
        const Vector given = s.q;
        if (options.project_initial) {
            estimator.project(s);
        }
        if (options.estimate_error) {
            StiffHmmOptions fine_options = options;
            fine_options.micro_steps_per_period *= 2;
            fine.emplace(*model, fine_options);
            shadow.emplace(*model, options);
            StiffHmmOptions half_options = options;
            half_options.window_periods *= 0.5;
            half.emplace(*model, half_options);
            F_half = Vector::Zero(s.q.size());
            F_bias = F_half;
            // (shadow has the estimator's window and grid, so its residual fraction)
            residual_ratio =
                std::min(1.0, kernel_residual() / std::max(half->residual_fraction(), 1e-300));
            shadow_rk4.emplace(*model, StiffAveragedForce(*shadow));
            error = ErrorAccumulator{};
            doubling = Rk4DoublingError{};
            sampled = 0;
            samples = 0;
            F_coarse = Vector::Zero(s.q.size());
            F_fine = F_coarse;
            // the fast oscillation's amplitude: what the projection removed from the given state
            error.add_position(ErrorAccumulator::averaging,
                               given.size() == 0 ? 0.0 : (given - s.q).cwiseAbs().maxCoeff());
        }
        probe.reset();
        if (options.reproject_every == 0.0 && options.reproject_steps > 0) {
            StiffHmmOptions debiased = options;
            debiased.debias_projection = true;
            probe.emplace(*model, debiased);
            // a drift d leaves a fast oscillation of amplitude d, whose force omega^2 d the
            // kernel leaves a fraction r of: over the run's span T it moves the positions by
            // up to omega^2 d r T^2/2, held to the drift tolerance as d itself is
            const double omega = estimator.omega(), span = options.t_end - t0;
            const double reach = 0.5 * omega * omega * kernel_residual() * span * span;
            drift_factor = reach > 1.0 ? 1.0 / reach : 1.0;
        }
        largest_drift = 0.0;
        pending_drift = 0.0;
        replacements = 0;
        y = s;
        finished = false;
        pending_count = 0;
        next_pending = 0;
        const double span = options.t_end - t0;
        if (options.macro == StiffMacro::rk4) {
            const double H = options.macro_step;
            steps = whole(span, H);
            if (steps == 0) {
                bad_option("(t_end - t0)/H = " + format_number(span / H) +
                           " must be a positive whole number of macro steps");
            }
            steps_per_projection = 0;
            if (options.reproject_every > 0.0) {
                steps_per_projection = whole(options.reproject_every, H);
                if (steps_per_projection == 0) {
                    bad_option("with rk4 the re-projection interval (" +
                               format_number(options.reproject_every) +
                               ") must be a whole number of macro steps H = " + format_number(H));
                }
            }
            step = 0;
            rk4.emplace(*model, StiffAveragedForce(estimator));
        } else {
            segment_end = options.reproject_every > 0.0
                              ? std::min(t0 + options.reproject_every, options.t_end)
                              : options.t_end;
            segment = 1;
            next_output = 1;
            restart_dopri5();
        }
    }

    // The estimator's residual_fraction(), computed once (a sum over the window per frequency):
    // the shadow estimator and the drift checks' probe share its window and grid.
    double kernel_residual() {
        if (!(kernel_residual_value >= 0.0)) {
            kernel_residual_value = estimator.residual_fraction();
        }
        return kernel_residual_value;
    }

    void restart_dopri5() {
        Dopri5Options d;
        d.rtol = options.rtol;
        d.atol = options.atol;
        d.initial_step = options.initial_step;
        d.max_step =
            options.max_step > 0.0 ? options.max_step : 0.1 * (segment_end - segment_start());
        if (dopri5) {
            dopri5->restart(d); // keeps its work vectors
        } else {
            dopri5.emplace(*model, StiffAveragedForce(estimator), d);
        }
        h = dopri5->initial_step(y, segment_end);
    }

    // Where the current initial value problem of the dopri5 macro began (t0, or the last
    // re-projection time of reproject_every).
    double segment_start() const {
        return options.reproject_every > 0.0
                   ? t0 + static_cast<double>(segment - 1) * options.reproject_every
                   : t0;
    }

    bool done() const { return finished && next_pending >= pending_count; }

    // The next slot of the outputs of a step: the states are kept from step to step, so once
    // the most a step has produced is allocated, no step allocates.
    State& next_output_slot() {
        if (pending_count == pending.size()) {
            pending.push_back(y);
        }
        return pending[pending_count++];
    }

    void advance(State& s) {
        if (done()) {
            return;
        }
        if (options.macro == StiffMacro::rk4) {
            rk4_advance();
            emit(y, s);
        } else {
            while (next_pending >= pending_count) {
                pending_count = 0;
                next_pending = 0;
                dopri5_step();
            }
            emit(pending[next_pending++], s);
        }
        ++outputs;
    }

    static void emit(const State& from, State& to) {
        to.t = from.t;
        to.q = from.q;
        to.v = from.v;
    }

    // The micro error at the macro state: the force at N and 2N micro steps per period.
    void sample_micro() {
        shadow->estimate(y.t, y.q, y.v, F_coarse, F_bias);
        fine->estimate(y.t, y.q, y.v, F_fine);
        const double e = F_coarse.size() == 0
                             ? 0.0
                             : (F_coarse - F_fine).cwiseAbs().maxCoeff() * richardson_factor(2);
        error.set_rates(ErrorAccumulator::micro, 0.0, e);
        // the window's error in the force: its bias, the slow motion's curvature within the
        // window (O(1/omega^2) for a window of fixed periods), measured along the same
        // micro-solution; and the kernel's residual of the fast force. Half the window has
        // 3/4 less bias and far more residual (from 3.6e-5 to 2.3e-7 of a fast force at
        // omega for 10 and 20 periods): the difference less the bias is the half window's
        // residual, scaled by the ratio of the two kernels' responses to the full window's.
        // (4/3 of the difference, the bias alone, was the half window's residual, 100 times
        // the full window's, once a fast oscillation was left in the state.)
        half->estimate(y.t, y.q, y.v, F_half);
        double averaging = 0.0;
        if (F_half.size() > 0) {
            const double residual =
                (F_coarse - F_half - 0.75 * F_bias).cwiseAbs().maxCoeff() * residual_ratio;
            averaging = F_bias.cwiseAbs().maxCoeff() + residual;
        }
        error.set_rates(ErrorAccumulator::averaging, 0.0, averaging);
        if (options.macro == StiffMacro::rk4 && samples++ % 4 == 0) {
            require_macro_resolution(); // every fourth sample: 4 more averaged forces
        }
    }

    // The rk4 macro step against the averaged force's stiffest direction. The kernel leaves a
    // fraction of the stiff springs' force in the average (for the exponential kernel over 20
    // periods about 1e-9), a stiffness rho of order omega^2 times that fraction: at omega = 1e7
    // with H = 1/32 it makes H sqrt(rho) = 11, and rk4 amplifies it without bound while the
    // estimate, relative to the growing positions, stays small. rho is the spectral radius of
    // dF/dQ from a few power iterations of directional differences (Gelfand's |J^k u|^(1/k));
    // H sqrt(rho) above 2 (rk4's stability boundary for an oscillation is 2.83) stops the run.
    // The velocity dependence of that residual is of order omega times the fraction and is
    // left out (H omega 1e-9 is far below 1 for any omega the micro step can resolve).
    void require_macro_resolution() {
        const Eigen::Index n = y.q.size();
        if (n == 0) {
            return;
        }
        constexpr int iterations = 4;
        Vector u(n), shifted(n);
        for (Eigen::Index i = 0; i < n; ++i) { // a fixed start with no special direction
            u[i] = (i % 2 == 0 ? 1.0 : -1.0) * (1.0 + 0.37 * static_cast<double>(i % 7));
        }
        u.normalize();
        const double dx = 1.5e-8 * std::max(1.0, y.q.cwiseAbs().maxCoeff());
        double log_growth = 0.0;
        for (int k = 0; k < iterations; ++k) {
            shifted = y.q + dx * u;
            shadow->estimate(y.t, shifted, y.v, F_half);
            u = (F_half - F_coarse) / dx;
            const double growth = u.norm();
            if (!(growth > 0.0) || !std::isfinite(growth)) {
                return; // no position dependence (or none measurable): nothing to resolve
            }
            log_growth += std::log(growth);
            u /= growth;
        }
        const double rho = std::exp(log_growth / iterations);
        const double resolution = options.macro_step * std::sqrt(rho);
        if (resolution > max_macro_resolution) {
            throw NumericalFailure(
                FailureKind::unfiltered_fast_force, method_name, y.t,
                "fast scale omega = " + format_number(estimator.omega()),
                "the averaged force varies at a rate sqrt(rho) = " + short_number(std::sqrt(rho)) +
                    " 1/s in its stiffest direction, and the macro step H = " +
                    format_number(options.macro_step) + " gives H sqrt(rho) = " +
                    short_number(resolution) + " > " + format_number(max_macro_resolution) +
                    ": rk4 does not follow it. The kernel over " +
                    format_number(options.window_periods) +
                    " fast periods leaves part of the stiff springs' force, a stiffness that "
                    "grows as omega^2; use a longer window (--window " +
                    format_number(2.0 * options.window_periods) +
                    " or more) or a smaller "
                    "macro step (--step)");
        }
    }
    static constexpr double max_macro_resolution = 2.0;

    // After an rk4 step of H: the parts propagated; the step's local error from the last
    // doubling (as strobo's).
    void account_rk4(double H) {
        error.advance(H);
        doubling.account(error, step, [&] {
            const bool empty = y.q.size() == 0;
            return std::pair{empty ? 0.0 : (y.q - doubled.q).cwiseAbs().maxCoeff(),
                             empty ? 0.0 : (y.v - doubled.v).cwiseAbs().maxCoeff()};
        });
    }

    // A re-projection of the macro state onto the slow manifold (reproject_every). What it
    // moved the state by is the drift off the manifold since the last one (the underlying
    // equations of motion do not hold the constraints of the limit: Sanz-Serna, Ariel & Tsai,
    // end of Sect. 3.2), which the outputs before it carried. The macro-integrator's errors
    // off the manifold make it (they shrink with the macro step, as the drift does): the
    // estimate's macro part adds it.
    void reproject() {
        before = y;
        estimator.project(y);
        account_drift(y.q.size() == 0 ? 0.0 : (y.q - before.q).cwiseAbs().maxCoeff());
    }

    void account_drift(double drift) {
        largest_drift = std::max(largest_drift, drift);
        if (options.estimate_error) {
            error.add_position(ErrorAccumulator::macro, drift);
        }
    }

    // The drift check (reproject_steps): the macro state's debiased projection, which
    // replaces it when it lies more than drift_atol + drift_rtol max|q| away. A drift below it
    // stays in the state; the estimate holds the last one measured (error()). Returns whether the
    // state was replaced.
    bool check_drift() {
        candidate = y;
        probe->project(candidate);
        const double drift = y.q.size() == 0 ? 0.0 : (candidate.q - y.q).cwiseAbs().maxCoeff();
        const double scale = y.q.size() == 0 ? 0.0 : y.q.cwiseAbs().maxCoeff();
        const double tolerance = options.drift_atol + options.drift_rtol * scale;
        if (tolerance > 0.0 && !(drift <= drift_limit * tolerance)) { // (NaN too)
            throw NumericalFailure(
                FailureKind::off_slow_manifold, method_name, y.t, "",
                "the macro state lies " + short_number(drift) +
                    " from its projection onto the slow manifold, over " +
                    short_number(drift_limit) + " times the drift tolerance " +
                    short_number(tolerance) + ": the macro-integrator's errors off the manifold " +
                    "grew between two drift checks (" + std::to_string(options.reproject_steps) +
                    " steps apart) past what re-projecting can mend; use a smaller --step (with "
                    "--macro dopri5, a tighter --rtol)");
        }
        if (!(drift > drift_factor * tolerance)) {
            pending_drift = drift;
            return false;
        }
        y.q = candidate.q;
        y.v = candidate.v;
        ++replacements;
        pending_drift = 0.0;
        account_drift(drift);
        return true;
    }
    bool checks_drift_after(std::size_t macro_step) const {
        return probe && macro_step % options.reproject_steps == 0;
    }

    void rk4_advance() {
        ++step;
        const double t_next = t0 + static_cast<double>(step) * options.macro_step;
        if (options.estimate_error &&
            (step - 1) % std::max<std::size_t>(1, options.estimate_every) == 0) {
            sample_micro();
            const bool reprojects =
                (steps_per_projection > 0 && step % steps_per_projection == 0) ||
                checks_drift_after(step); // no doubled pair across one
            if (step + 1 <= steps && !reprojects) {
                doubled = y;
                shadow_rk4->step(doubled, 2.0 * options.macro_step);
                doubling.start(step);
            }
        }
        rk4->step(y, t_next - y.t);
        y.t = t_next;
        if (options.estimate_error) {
            account_rk4(options.macro_step);
        }
        ++accepted;
        if (steps_per_projection > 0 && step % steps_per_projection == 0 && step < steps) {
            reproject();
        } else if (probe && (checks_drift_after(step) || step == steps)) {
            check_drift(); // the last state too: a collapse after the last check shows there
        }
        finished = step >= steps;
    }

    void dopri5_step() {
        if (options.max_steps > 0 && accepted + rejected >= options.max_steps) {
            throw NumericalFailure(
                FailureKind::too_many_steps, method_name, y.t, "",
                std::to_string(options.max_steps) +
                    " macro steps taken without reaching t = " + format_number(options.t_end) +
                    "; loosen the tolerances or check the fast frequency");
        }
        const double remaining = segment_end - y.t;
        double attempt = h;
        bool last = false;
        if (1.01 * std::abs(attempt) >= std::abs(remaining)) {
            attempt = remaining;
            last = true;
        }
        double proposed = attempt;
        if (options.estimate_error && accepted >= sampled) {
            sample_micro();
            sampled = accepted + std::max<std::size_t>(1, options.estimate_every);
        }
        const double begin_t = y.t;
        if (!dopri5->try_step(y, proposed)) {
            ++rejected;
            h = proposed;
            return;
        }
        if (options.estimate_error) {
            // the embedded error, weighted by atol + rtol |y|, back in position units
            error.advance(y.t - begin_t);
            const double scale = y.q.size() == 0 ? 0.0 : y.q.cwiseAbs().maxCoeff();
            error.add_position(ErrorAccumulator::macro,
                               dopri5->last_error() * (options.atol + options.rtol * scale));
        }
        ++accepted;
        h = proposed;
        if (last) {
            y.t = segment_end;
        }
        const double interval = options.macro_step;
        const double tol = 1e-12 * (options.t_end - t0);
        const auto output_time = [&] {
            return t0 + static_cast<double>(next_output) * interval;
        };
        if (interval > 0.0) {
            // dense output strictly inside the step
            while (output_time() < y.t - tol) {
                State& out = next_output_slot();
                out = y;
                dopri5->interpolate(output_time(), out);
                ++next_output;
            }
        } else {
            const double begin = dopri5->step_begin();
            const auto parts = static_cast<double>(options.refine);
            for (std::size_t k = 1; k < options.refine; ++k) {
                State& out = next_output_slot();
                out = y;
                dopri5->interpolate(begin + (y.t - begin) * static_cast<double>(k) / parts, out);
            }
        }
        bool on_grid = interval > 0.0 && std::abs(output_time() - y.t) <= tol;
        if (on_grid) {
            ++next_output;
        }
        if (!last && checks_drift_after(accepted) && check_drift()) {
            const double kept = h; // a new initial value problem from here, with the step kept
            restart_dopri5();
            h = kept;
        }
        if (last) {
            if (segment_end < options.t_end) {
                reproject(); // the next initial value problem starts here
                ++segment;
                segment_end = std::min(t0 + static_cast<double>(segment) * options.reproject_every,
                                       options.t_end);
                if (options.t_end - segment_end <= tol) {
                    segment_end = options.t_end;
                }
                restart_dopri5();
            } else {
                if (probe) {
                    check_drift(); // the last state too
                }
                finished = true;
            }
            next_output_slot() = y;
        } else if (interval == 0.0 || on_grid) {
            next_output_slot() = y;
        }
    }

    const Model* model;
    StiffHmmOptions options;
    StiffForceEstimator estimator;
    double t0 = 0.0;
    State y;                                  // the macro state (Q, P) at the end of the last step
    State before;                             // the state a re-projection replaces
    State candidate;                          // the drift check's projection
    std::optional<StiffForceEstimator> probe; // the drift check's (debiased) projections
    double largest_drift = 0.0;               // the most a re-projection moved the positions
    double pending_drift = 0.0;               // the last drift checked and left in the state
    double drift_factor = 1.0; // the drift tolerance's factor for the kernel's residual
    // a drift of more than this many drift tolerances (10 times the run's tolerance, from mdl
    // run's drift tolerance of a tenth of it) is a failure: the outputs before it carried it
    static constexpr double drift_limit = 100.0;
    std::size_t replacements = 0; // states the drift check replaced
    bool finished = true;
    std::size_t outputs = 0, accepted = 0, rejected = 0;
    // rk4
    std::optional<RungeKutta4<StiffAveragedForce>> rk4;
    std::size_t steps = 0, step = 0, steps_per_projection = 0;
    // dopri5
    std::optional<Dopri5<StiffAveragedForce>> dopri5;
    double h = 0.0, segment_end = 0.0;
    std::size_t segment = 1, next_output = 1;
    std::vector<State> pending;    // outputs of the last accepted step: the first pending_count
    std::size_t pending_count = 0; // (the vector keeps its states for reuse)
    std::size_t next_pending = 0;
    // the error estimate: the estimators at 2N and at N (samples, step doubling), the parts
    std::optional<StiffForceEstimator> fine, shadow, half;
    std::optional<RungeKutta4<StiffAveragedForce>> shadow_rk4;
    ErrorAccumulator error;
    State doubled;
    Vector F_coarse, F_fine, F_half, F_bias;
    double residual_ratio = 1.0;         // the full window's residual fraction over the half's
    double kernel_residual_value = -1.0; // kernel_residual(); -1 until computed
    Rk4DoublingError doubling;
    std::size_t sampled = 0;
    std::size_t samples = 0; // micro samples so far (the rk4 resolution check: every fourth)
};

StiffHmmIntegrator::StiffHmmIntegrator(const Model& model, const StiffHmmOptions& options)
    : model_(&model), impl_(std::make_unique<Impl>(model, options)) {}
StiffHmmIntegrator::~StiffHmmIntegrator() = default;

void StiffHmmIntegrator::start(State& state) {
    impl_->start(state);
    impl_->outputs = 1;
}
bool StiffHmmIntegrator::done() const {
    return impl_->done();
}
void StiffHmmIntegrator::advance(State& state) {
    impl_->advance(state);
}
const StiffForceEstimator& StiffHmmIntegrator::estimator() const {
    return impl_->estimator;
}

ErrorParts StiffHmmIntegrator::error() const {
    const Impl& m = *impl_;
    if (!m.options.estimate_error || !m.fine) {
        return {};
    }
    ErrorParts parts = m.error.parts();
    parts.macro += m.pending_drift;
    parts.micro_steps = m.fine->micro_steps() + m.shadow->micro_steps() + m.half->micro_steps();
    parts.force_evaluations =
        m.fine->force_evaluations() + m.shadow->force_evaluations() + m.half->force_evaluations();
    return parts;
}

StiffHmmStats StiffHmmIntegrator::stats() const {
    const Impl& m = *impl_;
    StiffHmmStats st;
    st.macro_steps = m.accepted;
    st.rejected_steps = m.rejected;
    st.outputs = m.outputs;
    st.force_estimates = m.estimator.estimates();
    st.projections = m.estimator.projections() + m.replacements;
    st.largest_drift = m.largest_drift;
    st.micro_steps = m.estimator.micro_steps();
    st.force_evaluations = m.estimator.force_evaluations();
    if (m.probe) { // the drift checks are the method's work
        st.drift_checks = m.probe->projections();
        st.micro_steps += m.probe->micro_steps();
        st.force_evaluations += m.probe->force_evaluations();
    }
    st.micro_steps_per_window = m.estimator.steps_per_window();
    st.micro_step = m.estimator.micro_step();
    st.omega = m.estimator.omega();
    st.error = error();
    return st;
}

} // namespace mdl::runtime::multiscale
