// Heterogeneous multiscale method for stiff mechanical systems (Sanz-Serna, Ariel & Tsai,
// "Multiscale methods for stiff and constrained mechanical systems", 2009; docs/stiff_hmm.md).
//
// The model q'' = f(q) (accelerations M^-1 f) has fast springs of frequency omega whose
// oscillations have small, O(1/omega), amplitude. Its slow motion solves the underlying system
// of the DAE obtained as omega -> infinity (paper eq. 7), written in first-order form
//   dQ/dt = P,   dP/dt = F(P, Q)                                               (eq. 11)
// and integrated by an ordinary macro-integrator. dQ/dt = P is never averaged. Every value
// F(P*, Q*) is the kernel average of the micro-forces along a micro-integration of the model
// itself from (p*, q*), forwards and backwards over [-eta, eta]:
//   F(P*, Q*) = int K_eta(t) f(q(t)) dt  (trapezoidal rule on the micro grid, filters.hpp),
// eta = window_periods/2 fast periods 2 pi/omega (the paper: 2 eta = 20 periods), micro step
// h = (2 pi/omega)/micro_steps_per_period (the paper: 6), velocity Verlet.
//
//  - Initial values (Sect. 3.2): (P0, Q0) = the kernel averages of p(t), q(t) along a
//    micro-integration from the given p(0), q(0) (the approximate projection onto the slow
//    manifold g(q) = 0, g'(q) p = 0).
//  - Re-projection (end of Sect. 3.2): every reproject_every time units the macro state is
//    replaced by the same averages of a micro-integration started from it, i.e. the run is a
//    sequence of initial value problems; the remedy for the drift of case (iii).
//  - Macro-integrators: rk4, the classical Runge-Kutta method with fixed step H, and dopri5,
//    the runtime's Dormand-Prince 5(4) with error control (the paper's ode45 runs, default
//    tolerances rtol 1e-3, atol 1e-6); its outputs come from dense output.
//
// The fast frequency omega is an input: the caller takes it from the model (the largest omega
// of CompiledModel::fast_scales(): `fast` springs, relaxed constraints) or from the user.
// Constraints written in the model can be relaxed by the compiler into stiff springs of
// frequency omega (CompileOptions::relax_constraints), which this method then integrates.
#pragma once

#include "runtime/integrate.hpp"
#include "runtime/integrators/stepper_support.hpp"
#include "runtime/model.hpp"
#include "runtime/multiscale/error_estimate.hpp"
#include "runtime/state.hpp"

#include <chrono>
#include <cstddef>
#include <limits>
#include <memory>
#include <string_view>

namespace mdl::runtime::multiscale {

enum class StiffMacro { rk4, dopri5 };

std::string_view to_string(StiffMacro macro); // "rk4" / "dopri5"
// "rk4" | "dopri5"; std::invalid_argument listing them otherwise.
StiffMacro parse_stiff_macro(std::string_view name);

struct StiffHmmOptions {
    StiffMacro macro = StiffMacro::rk4;
    double t_end = 10.0;
    // rk4: the macro step H ((t_end - t0)/H a whole number). dopri5: the output interval
    // (outputs at t0 + k interval from dense output); 0 = every accepted step.
    double macro_step = 1.0 / 32.0;
    double omega = 0.0;                     // the fast frequency [rad/time], required > 0
    double window_periods = 20.0;           // the kernel's support 2 eta, in fast periods
    std::size_t micro_steps_per_period = 6; // h = (2 pi/omega)/N
    bool project_initial = true;            // (P0, Q0) by the kernel average (Sect. 3.2)
    double reproject_every = 0.0;           // > 0: re-project at t0 + k T (rk4: T/H whole)
    // The drift check, with reproject_every = 0: > 0 projects the macro state (debiased, as
    // below) every that many macro steps (rk4) or accepted steps (dopri5) and replaces it when
    // the projection lies more than drift_atol + drift_rtol max|q| away (max norms), or less
    // when the fast oscillation such a drift leaves would move the positions by more through
    // the kernel's residual (residual_fraction() omega^2 (t_end - t0)^2/2 per unit); dopri5
    // then starts again with the step it had. `mdl run` checks every 4 steps against a tenth
    // of its tolerance: the drift off the manifold grows exponentially on some models (a mass
    // hung from an anchor on a fast spring under gravity, about e^(11 t)).
    std::size_t reproject_steps = 0;
    double drift_rtol = 0.0, drift_atol = 0.0;
    // The projection without the window's bias: the kernel average of q(t) is Q + F m2/2 for
    // a slow motion of acceleration F (m2 the kernel's second moment), O(eta^2), which the
    // paper's projection keeps; this one subtracts it, leaving O(eta^4).
    bool debias_projection = false;
    // dopri5 macro-integrator (the paper's ode45 defaults)
    double rtol = 1e-3;
    double atol = 1e-6;
    double initial_step = 0.0; // 0: Hairer's starting-step estimate
    // The largest macro step; 0: a tenth of each initial value problem's interval (t_end - t0,
    // or reproject_every), MATLAB ode45's default MaxStep; infinity: no limit.
    double max_step = 0.0;
    // With macro_step = 0: outputs per accepted step, evenly spaced, the last at its end
    // (ode45's Refine; its default is 4).
    std::size_t refine = 1;
    std::size_t max_steps = 100000; // accepted plus rejected macro steps; 0 = no limit
    SolverOptions solver = {};      // implicit half kick of Verlet for velocity-dependent forces
    // The run's error estimate (error_estimate.hpp; StiffHmmStats::error): the micro part from
    // the force at twice the micro steps per period, at the first macro step and every
    // `estimate_every` steps; the macro part from rk4 step doubling at the same steps (dopri5:
    // its embedded error, every step); the averaging part from the distance between the given
    // initial positions and their projection (the fast oscillation's amplitude). Counted apart
    // from the method's work (ErrorParts).
    bool estimate_error = false;
    std::size_t estimate_every = 8;
};

struct StiffHmmStats {
    std::size_t macro_steps = 0;            // accepted macro steps
    std::size_t rejected_steps = 0;         // dopri5
    std::size_t outputs = 0;                // states handed to the observer
    std::size_t force_estimates = 0;        // averaged forces F(P, Q)
    std::size_t projections = 0;            // initial projection plus re-projections
    double largest_drift = 0.0;             // the most a re-projection moved the positions
    std::size_t drift_checks = 0;           // reproject_steps (their micro steps are counted above)
    std::size_t micro_steps = 0;            // all micro-integration steps
    std::size_t force_evaluations = 0;      // model force evaluations (micro-integrations)
    std::size_t micro_steps_per_window = 0; // per force estimate (forwards plus backwards)
    double micro_step = 0.0;                // h
    double omega = 0.0;
    double seconds = 0.0; // wall time of run_stiff_hmm
    ErrorParts error;     // options.estimate_error
    IntegrationStats integration() const {
        IntegrationStats s;
        s.steps = macro_steps;
        s.rejected = rejected_steps;
        s.outputs = outputs;
        s.force_evaluations = force_evaluations;
        return s;
    }
};

// One micro-integration from (t, q*, p*) over the window, forwards and backwards, and its
// kernel averages: the force F(P*, Q*) (as an acceleration) or the projection (P0, Q0).
class StiffForceEstimator {
public:
    StiffForceEstimator(const Model& model, const StiffHmmOptions& options);
    StiffForceEstimator(const Model&&, const StiffHmmOptions&) = delete;
    ~StiffForceEstimator();
    StiffForceEstimator(StiffForceEstimator&&) noexcept;
    StiffForceEstimator& operator=(StiffForceEstimator&&) = delete;

    // F = int K_eta f(q(t)) dt along the micro-solution from q(0) = Q, p(0) = P.
    void estimate(double t, const Vector& Q, const Vector& P, Vector& F);
    // The same, with the window's bias in F: the slow force F(t) = F + F' t + F'' t^2/2 along
    // the window averages to F + F'' m2/2 (m2, m4 the kernel's moments), and
    // int K (t^2 - m2) f dt = F'' (m4 - m2^2)/2 measures F'' from the same micro-solution; its
    // fast part is filtered by (t^2 - m2) K as by K.
    void estimate(double t, const Vector& Q, const Vector& P, Vector& F, Vector& bias);
    // The kernel's largest response to a fast force of unit amplitude at any frequency of
    // omega/2 or more, sup |int K(t) cos(nu t) dt| on the micro grid: the fraction of the
    // stiff springs' force the average leaves.
    double residual_fraction() const;
    // s.q, s.v <- int K_eta q(t) dt, int K_eta p(t) dt along the micro-solution from s.
    void project(State& s);

    // Velocity Verlet is unstable at omega h >= 2; the default 6 steps per period is 1.05.
    // Larger omega h is refused (unresolved_fast_scale): coupled fast springs oscillate
    // faster than omega itself.
    static constexpr double max_omega_h = 1.5;

    double omega() const;
    double micro_step() const;
    std::size_t steps_per_window() const; // forwards plus backwards
    std::size_t micro_steps() const;
    std::size_t force_evaluations() const;
    std::size_t estimates() const;
    std::size_t projections() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The averaged force as an AccelerationField, for the runtime's Runge-Kutta steppers: the
// macro state is (Q, P) = (q, v) and a = F(P, Q) (depends on P).
class StiffAveragedForce {
public:
    explicit StiffAveragedForce(StiffForceEstimator& estimator) : estimator_(&estimator) {}
    void acceleration(double t, const Vector& q, const Vector& v, const Vector&, Vector& a) {
        estimator_->estimate(t, q, v, a);
    }
    bool velocity_dependent() const { return true; }

private:
    StiffForceEstimator* estimator_;
};

// The macro-integration, one output point at a time.
class StiffHmmIntegrator {
public:
    StiffHmmIntegrator(const Model& model, const StiffHmmOptions& options);
    StiffHmmIntegrator(const Model&&, const StiffHmmOptions&) = delete;
    ~StiffHmmIntegrator();

    std::string_view name() const { return "hmm-stiff"; }
    const Model& model() const { return *model_; }
    // Checks the state and options; projects the initial data (project_initial).
    void start(State& state);
    bool done() const;
    // To the next output point (rk4: t_{n+1}; dopri5: the next output time or accepted step).
    // At a re-projection time the state handed out is the re-projected one.
    void advance(State& state);
    StiffHmmStats stats() const;
    // The error estimate so far (empty unless options.estimate_error).
    ErrorParts error() const;
    const StiffForceEstimator& estimator() const;

private:
    struct Impl;
    const Model* model_;
    std::unique_ptr<Impl> impl_;
};

// Runs the stiff HMM from state.t to options.t_end; the observer (e.g. CsvWriter) sees the
// macro state at every output point, including the (projected) first; finish(state) if it
// has one. The state's velocities are the macro P: the slow velocities, without the O(1)
// fast oscillation of the individual masses.
template <class Observer>
StiffHmmStats run_stiff_hmm(const Model& model, State& state, const StiffHmmOptions& options,
                            Observer&& observer) {
    const auto begin = std::chrono::steady_clock::now();
    StiffHmmIntegrator hmm(model, options);
    hmm.start(state);
    require_finite(model, state, hmm.name());
    report_error_estimate(observer, hmm.error());
    observer(static_cast<const State&>(state));
    while (!hmm.done()) {
        hmm.advance(state);
        require_finite(model, state, hmm.name());
        report_error_estimate(observer, hmm.error());
        observer(static_cast<const State&>(state));
    }
    detail::finish(observer, state);
    StiffHmmStats stats = hmm.stats();
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    return stats;
}

} // namespace mdl::runtime::multiscale
