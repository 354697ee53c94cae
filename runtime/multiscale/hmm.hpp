// Heterogeneous multiscale methods for mechanical systems with fast vibrations (Calvo &
// Sanz-Serna, SIAM J. Sci. Comput. 32 (2010); docs/hmm.md).
//
// The macro-integrator advances the slow (averaged) motion X'' = F(X) with step H; every
// value F_n is estimated by a micro-integration of the model itself over a short window,
// whose micro-forces are averaged with a filter (filters.hpp):
//
//  - asynchronous (Algorithm 2): micro-integration from x = X_n, v = 0, phase theta = 0
//    whatever t_n; when the force is even in the phase the micro-solution is even in time
//    and only the half window [0, eta/2] is integrated (F = 2 int_0^{eta/2} K_eta f dt);
//  - synchronous (Algorithm 1): micro-integration from x = X_n and the enslaved velocity
//    v = P~_n + dv (eq. 2.10) at the model's phase omega t_n + theta0, over the full window
//    [t_n - eta/2, t_n + eta/2] (forwards and backwards). dv is the zero-mean antiderivative
//    of the oscillatory part of the acceleration at X_n, found from 16 samples of the force
//    over one period of the phase (exact for eq. 2.10, whose force is linear in cos theta).
//
// Macro-integrators (leap-frog forms of the paper, written as one-step maps):
//   verlet: P_{n+1/2} = P_n + H/2 F_n, Q_{n+1} = Q_n + H P_{n+1/2}, P_{n+1} = P_{n+1/2} + H/2
//   F_{n+1} shake:  V_{n+1/2} = V_{n-1/2} + H (F_n + M^-1 G_n^T Lambda_n), X_{n+1} = X_n + H
//   V_{n+1/2},
//           g(X_{n+1}) = 0; V_{1/2} = V_0 + H/2 (F_0 + M^-1 G_0^T Lambda_0) (Sect. 4.2)
//   rattle: SHAKE's positions, V_{n+1} projected onto G(X_{n+1}) V = 0 (Sect. 4.3).
// The micro-integrator is velocity Verlet (unconstrained) or SHAKE (constrained); the
// constrained micro-force is the total force f + G^T Lambda_k.
//
// Micro step: h = (2 pi/omega) / N_p with N_p micro steps per fast period, by default
// N_p = round(T_macro/H) (the paper's h = (2 pi/omega) H/T_macro), adjusted so that the
// window is a whole number of micro steps.
//
// Cost as the paper counts it: F_0..F_{N-1} for N macro steps (Q_N needs no F_N). The
// velocity at the last step point needs F_N: final_velocity = true (the default) pays one more
// estimate, false reports the half-step velocity P_{N-1/2} there (RATTLE always computes
// F_N).
#pragma once

#include "runtime/integrate.hpp"
#include "runtime/integrators/lagrange_multipliers.hpp"
#include "runtime/integrators/shake.hpp"
#include "runtime/integrators/verlet.hpp"
#include "runtime/model.hpp"
#include "runtime/multiscale/error_estimate.hpp"
#include "runtime/multiscale/filters.hpp"
#include "runtime/multiscale/linearized_error.hpp"
#include "runtime/state.hpp"

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

namespace mdl::runtime::multiscale {

enum class HmmAlgorithm { synchronous, asynchronous };
enum class HmmMacro { verlet, shake, rattle };

std::string_view to_string(HmmAlgorithm algorithm);      // "sync" / "async"
std::string_view to_string(HmmMacro macro);              // "hmm" / "hmm-shake" / "hmm-rattle"
HmmAlgorithm parse_hmm_algorithm(std::string_view name); // sync|synchronous|async|asynchronous
HmmMacro parse_hmm_method(std::string_view name);        // hmm|hmm-shake|hmm-rattle

struct HmmOptions {
    HmmMacro macro = HmmMacro::verlet;
    HmmAlgorithm algorithm = HmmAlgorithm::asynchronous;
    FilterKind filter = FilterKind::simple;
    double window_periods = 0.0; // eta in fast periods; 0 = the filter's default (40 or 1)
    double t_end = 1.0;
    double macro_step = 1.0 / 80.0;         // H; (t_end - t0)/H must be a whole number
    double macro_time_scale = 1.0;          // T_macro of h = (2 pi/omega) H/T_macro
    std::size_t micro_steps_per_period = 0; // 0: round(T_macro/H)
    // The force is even in the fast phases, all mirrored at once
    // (CompiledModel::force_even_in_all_phases). Simple filtering needs it (eq. 2.17); the
    // asynchronous algorithm then integrates half the window when nothing else breaks the
    // time symmetry of the micro-solution (slow time, velocity dependence).
    bool force_even_in_phase = false;
    // False: always integrate the full window, even where half would do (cost comparisons).
    bool allow_half_window = true;
    // The common period of the vibrations (`--period`); 0: found from their rates
    // (common_period.hpp). The micro step is per period of the fastest vibration.
    double period = 0.0;
    bool final_velocity = true;
    // Unconstrained models: remove the O(1/omega) offset between a micro-solution's start and
    // its averaged position. The fast oscillation xi(X, theta) displaces the true position from
    // the averaged one by O(1/omega) (eq. (3.4)-(3.6)); a micro-integration started at q = X
    // oscillates about X - xi(X, theta_start), so its averaged force is F at a shifted point,
    // and the macro state taken as X_0 = x_0 starts off the averaged solution by as much. Both
    // are errors of order vmax/omega that a sensitive slow motion amplifies (the inverted
    // double pendulum in joint angles: 0.06 at omega = 1e4, t = 1). With the correction the
    // micro-integrations start at X + xi(X, theta_start) and X_0 = x_0 - xi(x_0, theta(t_0)),
    // xi from the same 16 force samples per period as the enslaved velocity (eq. 2.10): an
    // O(1/omega^2) averaging error. Velocity-dependent forces (M(q), dampers) need more: the
    // enslaved start is O(1/omega) off in velocity, so the micro-integration is repeated once
    // from the start shifted by the distance between (X, V) and the first micro-solution's
    // averaged state (twice the micro cost). Applies with the spline and exponential filters
    // (windows of two periods or more, over which the averaged state is measured); the simple
    // filter keeps its own O(1/omega) term (filters.hpp) and the paper's Algorithm 2 as is.
    // False: the papers' algorithms exactly (mdl reproduce).
    bool offset_correction = true;
    SolverOptions solver = {}; // constraint tolerance of SHAKE/RATTLE (macro and micro)
    // The run's error estimate (error_estimate.hpp; HmmStats::error): the micro part from the
    // force at twice the micro steps per period at the first macro step and every
    // `estimate_every` steps, the macro part from the third differences of the macro positions,
    // the averaging part from the fast oscillation's amplitude and the filter's residual at the
    // start. Its work is counted apart (ErrorParts), not in the method's counts.
    bool estimate_error = false;
    std::size_t estimate_every = 16;
};

struct HmmStats {
    std::size_t macro_steps = 0;
    std::size_t outputs = 0;
    std::size_t force_estimates = 0;        // averaged forces F_n computed
    std::size_t micro_steps = 0;            // all micro-integration steps (the papers' count)
    std::size_t force_evaluations = 0;      // model force evaluations (micro, starts, enslaving)
    std::size_t micro_steps_per_window = 0; // per force estimate
    double micro_step = 0.0;                // h
    bool half_window = false;               // only [0, eta/2] integrated (even micro-solution)
    std::size_t micro_steps_per_period = 0; // N as resolved (per period of the fastest vibration)
    ErrorParts error;                       // options.estimate_error
    IntegrationStats integration() const {
        IntegrationStats s;
        s.steps = macro_steps;
        s.outputs = outputs;
        s.force_evaluations = force_evaluations;
        return s;
    }
};

// The force estimator: F(X) (as an acceleration, M^-1 times the averaged force) from one
// micro-integration. Reusable by other macro-integrators.
class HmmForceEstimator {
public:
    HmmForceEstimator(const Model& model, const HmmOptions& options);
    HmmForceEstimator(const Model&&, const HmmOptions&) = delete;
    ~HmmForceEstimator();
    HmmForceEstimator(HmmForceEstimator&&) noexcept;
    HmmForceEstimator& operator=(HmmForceEstimator&&) = delete;

    // F at macro time t, position X and (predicted) averaged velocity V: asynchronous
    // micro-integrations start at the orbit's phase 0 and slow time t; synchronous ones at
    // the model's phases at t from the enslaved velocity.
    // Throws NumericalFailure (unresolved_fast_scale) if omega h > max_omega_h.
    void estimate(double t, const Vector& X, const Vector& V, Vector& F);

    // The largest omega h accepted: at least 2 pi micro steps per fast period. Velocity Verlet
    // becomes unstable on an oscillation of frequency omega at omega h = 2 and its phase error
    // per period is about (omega h)^2/24 of a period; the papers use 10 or more steps per period.
    static constexpr double max_omega_h = 1.0;
    // Throws NumericalFailure at time t naming the vibration if the micro step does not resolve
    // the fast period (omega h > max_omega_h).
    void require_resolved(double t) const;

    // The averaged state of a true state (t, x, v), the macro initial value: V = v - (enslaved
    // velocity oscillation) of eq. (3.8) (V = v when the force is even at the phase of t), and
    // with the offset correction X = x - (enslaved displacement), else X = x.
    void averaged_state(double t, const Vector& x, const Vector& v, Vector& X, Vector& V);

    // The averaging error's sources at (t, X, V), from 16 samples of the acceleration per
    // period: the amplitude of the fast oscillation of the positions (sum_k |a_k|/(k omega)^2
    // over the harmonics a_k of the fast acceleration) and the acceleration the filter leaves
    // unfiltered (its residual times the fast acceleration's amplitude). Its force evaluations
    // are counted in estimate_evaluations(), not force_evaluations().
    void averaging_error(double t, const Vector& X, const Vector& V, double& displacement,
                         double& unfiltered);
    std::size_t estimate_evaluations() const;
    // Micro steps per period of the fastest vibration, as resolved (T_macro/H by default).
    std::size_t steps_per_period() const;

    double omega() const; // the common period's rate, 2 pi/T
    double micro_step() const;
    std::size_t steps_per_window() const; // micro steps per estimate
    bool half_window() const;
    std::size_t micro_steps() const;
    std::size_t force_evaluations() const;
    std::size_t estimates() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The macro-integration, one macro step at a time.
class HmmIntegrator {
public:
    HmmIntegrator(const Model& model, const HmmOptions& options);
    HmmIntegrator(const Model&&, const HmmOptions&) = delete;
    ~HmmIntegrator();

    std::string_view name() const { return to_string(options_.macro); }
    const Model& model() const { return *model_; }
    // Checks the state, computes F_0, fills state.lambda (and state.v for RATTLE's first
    // multipliers); the number of macro steps comes from options.t_end.
    void start(State& state);
    bool done() const { return step_ >= steps_; }
    // t_n -> t_{n+1}.
    void advance(State& state);
    HmmStats stats() const;
    // The error estimate so far (empty unless options.estimate_error).
    ErrorParts error() const;
    const HmmForceEstimator& estimator() const { return estimator_; }

private:
    void verlet_advance(State& s, bool last);
    void shake_solve(double t, const Vector& X, const Vector& V_prev_half, const Vector& F,
                     bool start);
    void shake_advance(State& s, bool last);
    void rattle_advance(State& s);
    // F at (t, X, V) into F_, and the micro error sample when one is due
    void estimate(double t, const Vector& X, const Vector& V);
    void account_step(const State& s); // the error estimate after a macro step
    // J = dA/dX, C = dA/dV of the averaged acceleration at (t, X, V) by forward differences
    // of the averaged force, handed to the linearized propagation of the rate errors
    void slow_jacobians(double t, const Vector& X, const Vector& V);

    const Model* model_;
    HmmOptions options_;
    HmmForceEstimator estimator_;
    std::size_t steps_ = 0, step_ = 0;
    double t0_ = 0.0, H_ = 0.0;
    // Verlet: F_n; SHAKE: F_n, pending X_{n+1}, V_{n+1/2}, Lambda_n; RATTLE: F_n, G_n
    Vector F_, V_half_, X_next_, V_next_half_, lambda_, kappa_, tmp_;
    Matrix G_, D_;
    ConstraintGram gram_;
    PositionConstraintNewton newton_;
    // the error estimate (options.estimate_error): the estimator at twice the micro steps per
    // period, the accumulated parts, the last macro positions (for third differences)
    std::unique_ptr<HmmForceEstimator> fine_;
    ErrorAccumulator error_;
    Vector F_fine_, X1_, X2_, X3_, X4_;
    std::size_t history_ = 0;
    bool sample_due_ = false;
    // The Verlet macro (no constraints) propagates the micro part's and the filter's
    // acceleration errors through the linearized averaged motion too (linearized_error.hpp),
    // its Jacobians from a third estimator at the micro samples, and reports the smaller of
    // that and free motion; SHAKE and RATTLE in free motion only.
    bool linearized_ = false;
    std::unique_ptr<HmmForceEstimator> jacobian_estimator_;
    LinearizedErrorPropagation micro_rate_, averaging_rate_;
    Matrix J_, C_;
    Vector F_shifted_, shifted_;
    double displacement_ = 0.0; // the averaging part's position error at the start
};

// Runs HMM from state.t to options.t_end; the observer (e.g. CsvWriter) sees the macro state
// at every macro step point, including the first; finish(state) is called if it has one.
template <class Observer>
HmmStats run_hmm(const Model& model, State& state, const HmmOptions& options, Observer&& observer) {
    HmmIntegrator hmm(model, options);
    hmm.start(state);
    require_finite(model, state, hmm.name());
    report_error_estimate(observer, hmm.error());
    observer(static_cast<const State&>(state));
    std::size_t outputs = 1;
    while (!hmm.done()) {
        hmm.advance(state);
        require_finite(model, state, hmm.name());
        report_error_estimate(observer, hmm.error());
        observer(static_cast<const State&>(state));
        ++outputs;
    }
    detail::finish(observer, state);
    HmmStats stats = hmm.stats();
    stats.outputs = outputs;
    return stats;
}

} // namespace mdl::runtime::multiscale
