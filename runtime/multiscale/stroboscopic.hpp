// Stroboscopic averaging (Calvo, Chartier, Murua & Sanz-Serna, "A stroboscopic numerical
// method for highly oscillatory problems", Springer LNCSE 82 (2012);
// docs/stroboscopic.md).
//
// The model y' = f(y, t/eps) (y = (q, v, x), the first-order form) is sampled with a
// stroboscope at t0 + k delta, delta = 2 pi/omega the period of the fast vibration. Those
// samples lie on the solution Y(t) of an autonomous equation Y' = F(Y); the macro-integrator
// integrates that equation with steps H >> delta, and every value F(Y*) is the derivative at
// 0 of the period map, by central differences of micro-integrations of the model itself
// started from y(t0) = Y* at the origin t0 (phase theta(t0), never the macro time):
//   order 2: F = (phi(delta) - phi(-delta)) / (2 delta)
//   order 4: F = (-phi(2 delta) + 8 phi(delta) - 8 phi(-delta) + phi(-2 delta)) / (12 delta)
// phi(2 delta) continues the micro-integration that produced phi(delta) (and likewise
// backwards), so one F costs 2 (order 2) or 4 (order 4) periods of micro steps,
// h = delta / micro_steps_per_period.
//
// Macro-integrators (over the packed vector Y = (q, v, x), since F_q is not v in general):
//  - rk4: the classical Runge-Kutta method with fixed H (4 F per step); as in the paper it
//    takes floor((t_end - t0)/H) steps (whole_steps), or shortens the last one to end at t_end.
//  - dopri5: Dormand-Prince 5(4) with error control (rtol, atol; the paper's ode45 remark),
//    FSAL (6 F per accepted step); macro_step > 0 is then an output interval: steps are cut
//    to land on t0 + k macro_step, and the observer sees those points and t_end only.
// Micro-integrators: the runtime's RungeKutta4 (the paper's) or VelocityVerlet for
// unconstrained models; the half-explicit RK3 of Brasey & Hairer (herk3) for constrained ones
// (`automatic`, the default, picks herk3 when the model has constraints and rk4 otherwise).
//
// What the outputs mean: Y(t_n) equals the true solution y(t_n) (up to the method's errors)
// only at stroboscopic times t_n = t0 + k delta, i.e. when H (or the output interval) is a
// whole multiple of delta (stats().stroboscopic_outputs). At other times Y(t) is the smooth
// interpolant of the stroboscopic samples: its positions are within O(eps) of q(t), but its
// velocities miss the O(1) fast oscillation of v (Y_v is the sampled v, not dq/dt averaged).
//
// Constrained models (the DAE variant of the paper's Sect. IV(C)): the micro-integrator is
// the half-explicit Runge-Kutta method of order 3 of Brasey & Hairer (herk3,
// half_explicit_rk.hpp) on the index-2 GGL formulation, which imposes g(q) = 0 and G(q) v = 0
// at every stage, so phi(+-delta), phi(+-2 delta) lie on the constraint manifold
// {g = 0, G v = 0}. The stroboscopic samples of a consistent solution lie on that manifold, so
// the averaged flow leaves it invariant; Y = (q, v, x) is still macro-integrated as an ODE in
// all its components, with F(Y) := F(P(Y)): the micro-integrations start from the projection
// P(Y) of the macro stage (which lies off the manifold by O(H^2); started there, the forward
// and backward integrations would project differently and the difference quotient would
// divide that by delta). With
// `project` (the default) every macro step ends with the standard projection of Y back onto
// the manifold (Hairer, Lubich & Wanner, GNI IV.4; the order of the macro method is kept):
// positions q + M^-1 G(q)^T mu with g = 0 by Newton's method, then velocities projected in
// the mass metric so that G(q) v = 0; the initial state is projected the same way. The output
// state then satisfies g(q) = 0 to the Newton tolerance (solver.constraint_tolerance) and
// G(q) v = 0 to round-off. Its `lambda` holds the multipliers of the oscillatory system at
// (q, v) and the stroboscopic phase theta(t0) (consistent accelerations): at stroboscopic
// times the true constraint forces of the solution there, which include the O(omega) part of
// the vibration's inertial force (they are not averaged multipliers). Unconstrained models
// keep an empty lambda.
//
// The model must have a vibration (or an explicit period); with several vibrations, delta is
// their common period (commensurate rates, common_period.hpp) or the given `period`.
// Slow explicit time: the averaged field depends on t, F(Y, t), and is the difference
// quotient of period maps started at slow time t with the stroboscopic phase theta(t0) (the
// period map of y' = f(y, s, theta), s' = 1 from (Y, t)); the macro stages pass their times.
#pragma once

#include "runtime/integrate.hpp"
#include "runtime/integrators/stepper_support.hpp"
#include "runtime/model.hpp"
#include "runtime/multiscale/error_estimate.hpp"
#include "runtime/state.hpp"

#include <cstddef>
#include <limits>
#include <memory>
#include <numbers>
#include <string_view>

namespace mdl::runtime::multiscale {

enum class StroboscopicMacro { rk4, dopri5 };
// half_explicit_rk3: Brasey & Hairer's order-3 half-explicit RK on the GGL index-2 form
// (constrained models; on an unconstrained one it is the explicit RK3 of the same tableau).
// automatic: half_explicit_rk3 if the model has constraints, else rk4.
enum class StroboscopicMicro { rk4, verlet, half_explicit_rk3, automatic };

std::string_view to_string(StroboscopicMacro macro); // "rk4" / "dopri5"
std::string_view to_string(StroboscopicMicro micro); // "rk4" / "verlet" / "herk3" / "auto"
// Throw std::invalid_argument listing the accepted names.
StroboscopicMacro parse_stroboscopic_macro(std::string_view name);
StroboscopicMicro parse_stroboscopic_micro(std::string_view name);

struct StroboscopicOptions {
    int order = 4; // central differences of order 2 or 4
    StroboscopicMacro macro = StroboscopicMacro::rk4;
    StroboscopicMicro micro = StroboscopicMicro::automatic;
    double t_end = 1.0;
    // rk4: the macro step H. dopri5: the output interval (0: every accepted step).
    double macro_step = std::numbers::pi / 50.0;
    // rk4: floor((t_end - t0)/H) steps (the paper); false: the last step ends at t_end.
    bool whole_steps = true;
    std::size_t micro_steps_per_period = 10; // h = delta / N (the paper: 10 * 2^nu)
    double period = 0.0; // delta; 0: the vibrations' common period (common_period.hpp)
    // dopri5 macro-integrator
    double rtol = 1e-6;
    double atol = 1e-9;
    double initial_step = 0.0; // 0: Hairer's starting-step estimate
    double max_step = std::numeric_limits<double>::infinity();
    std::size_t max_steps = 100000; // accepted plus rejected; 0 = no limit
    // constrained models: project the macro state onto g = 0, G v = 0 after every macro step
    // (and the initial state); false leaves the drift of the macro-integration in the output
    bool project = true;
    // constrained models: the Newton iterations of herk3's stages and of the projection
    SolverOptions solver = {};
    // The run's error estimate (error_estimate.hpp; StroboscopicStats::error): the micro part
    // from the field at twice the micro steps per period, sampled at the first macro step and
    // every `estimate_every` steps; the macro part from rk4 step doubling at the same steps
    // (dopri5: its embedded error, every step); the averaging part from the differencing error
    // of the field (orders 2 and 4 from the same period maps) and, at an output that is not a
    // stroboscopic time, the fast oscillation's amplitude. Counted apart from the method's
    // work (ErrorParts).
    bool estimate_error = false;
    std::size_t estimate_every = 8;
};

// The micro-integrator `micro` stands for with this model (automatic resolved). Throws
// MethodNotApplicable for rk4 or verlet on a constrained model.
StroboscopicMicro resolve_stroboscopic_micro(const Model& model, StroboscopicMicro micro);

struct StroboscopicStats {
    std::size_t macro_steps = 0;           // accepted macro steps
    std::size_t rejected_steps = 0;        // dopri5
    std::size_t outputs = 0;               // states handed to the observer
    std::size_t field_evaluations = 0;     // values F(Y) computed
    std::size_t micro_steps = 0;           // all micro steps (the paper's "microsteps")
    std::size_t force_evaluations = 0;     // model force evaluations in the micro-integrations
    std::size_t micro_steps_per_field = 0; // 2 or 4 periods of micro steps
    double period = 0.0;                   // delta
    double micro_step = 0.0;               // h
    bool stroboscopic_outputs = false;     // every output time is t0 + k delta (within 1e-9)
    StroboscopicMicro micro = StroboscopicMicro::rk4; // the micro-integrator used (resolved)
    // constrained models, over the outputs: max_i |g_i(q)| and max_i |(G(q) v)_i|
    double max_position_residual = 0.0;
    double max_velocity_residual = 0.0;
    // the largest correction max_i |Y_i - P(Y)_i| a projection made (the macro drift); 0
    // when not projecting
    double max_projection = 0.0;
    std::size_t micro_steps_per_period = 0;
    ErrorParts error; // options.estimate_error
    IntegrationStats integration() const {
        IntegrationStats s;
        s.steps = macro_steps;
        s.rejected = rejected_steps;
        s.outputs = outputs;
        s.force_evaluations = force_evaluations;
        return s;
    }
};

// The averaged vector field F(Y) by differences of the period map. Y packs (q, v, x).
class StroboscopicField {
public:
    // t_origin: the time every micro-integration starts from (the run's initial time).
    StroboscopicField(const Model& model, const StroboscopicOptions& options, double t_origin);
    StroboscopicField(const Model&&, const StroboscopicOptions&, double) = delete;
    ~StroboscopicField();
    StroboscopicField(StroboscopicField&&) noexcept;
    StroboscopicField& operator=(StroboscopicField&&) = delete;

    // F(Y, t): the micro-integrations start at slow time t (when the model depends on it) and
    // at the stroboscopic phase theta(t_origin).
    void evaluate(double t, const Vector& Y, Vector& F);

    Eigen::Index size() const; // 2n + k
    void pack(const State& s, Vector& Y) const;
    void unpack(const Vector& Y, State& s) const; // q, v, x (not t)

    // Constrained models. Projects Y onto g(q) = 0, G(q) v = 0 (q + M^-1 G(q)^T mu by Newton,
    // then v in the mass metric); returns max_i |change_i|. t and the macro step H name the
    // time and step in failures.
    double project(Vector& Y, double t, double H);
    // The multipliers of consistent accelerations of the oscillatory model at Y, slow time t
    // and the stroboscopic phase theta(t_origin): the constraint forces of the solution at
    // t = t0 + k delta.
    void multipliers(double t, const Vector& Y, Vector& lambda);
    // max_i |g_i(q)| and max_i |(G(q) v)_i| at Y (0 and 0 for an unconstrained model)
    void residuals(const Vector& Y, double& position, double& velocity);
    StroboscopicMicro micro() const; // resolved
    int micro_order() const;         // 4 (rk4), 3 (herk3), 2 (verlet)
    // The error of the last evaluate()'s F from the differencing, in the positions' rates (dq)
    // and the velocities' (dv): order 2, |F2 - F4| (both from the same period maps); order 4,
    // 1.2 |F2 - F4|^2/|F4|, at most |F2 - F4| (the leading terms d^2/6 D3 and -d^4/30 D5 of the
    // two formulas, D_k the k-th derivative of the averaged flow, with D5 ~ D3 (D3/F)).
    void differencing_error(double& dq, double& dv) const;
    // Measure, in each evaluation, the largest |q(tau) - q(0)| over the first forward period
    // (amplitude()): the fast oscillation's size, with one period of the slow motion.
    void track_amplitude();
    double amplitude() const;

    double period() const;
    double micro_step() const;
    std::size_t steps_per_evaluation() const;
    std::size_t evaluations() const;
    std::size_t micro_steps() const;
    std::size_t force_evaluations() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The macro-integration, one (accepted) macro step or output point at a time.
class StroboscopicIntegrator {
public:
    StroboscopicIntegrator(const Model& model, const StroboscopicOptions& options);
    StroboscopicIntegrator(const Model&&, const StroboscopicOptions&) = delete;

    std::string_view name() const { return "strobo"; }
    const Model& model() const { return *model_; }
    // Checks the state and options; micro-integrations will start at state.t.
    void start(State& state);
    bool done() const { return done_; }
    // To the next output point (rk4: t_{n+1}; dopri5: the next accepted step or output time).
    void advance(State& state);
    StroboscopicStats stats() const;
    // The error estimate so far (empty unless options.estimate_error).
    ErrorParts error() const;
    const StroboscopicField& field() const { return *field_; }

private:
    void rk4_advance(State& s);
    void dopri5_advance(State& s);
    double dopri5_attempt(double h); // stages from Y_ (k1_ = F(Y_)); returns the error norm
    double initial_step();
    void check_step_budget() const;
    bool on_stroboscope(double t) const;
    void sample_error(double t, bool fresh); // the micro and differencing errors at Y_
    std::size_t rk4_sample_every() const;    // the estimate's sampling of an rk4 run
    void start_doubling(double H);           // rk4: one step of 2H from Y_ into Y2H_
    void account_step(double H);             // after a macro step of H: the parts
    void finish_step();    // after a macro step: the projection (constrained models)
    void output(State& s); // Y_ into the state, with lambda and the residuals

    const Model* model_;
    StroboscopicOptions options_;
    std::unique_ptr<StroboscopicField> field_;
    double t0_ = 0.0, t_ = 0.0, t_end_ = 0.0;
    std::size_t steps_ = 0, step_ = 0; // rk4
    bool done_ = true;
    std::size_t rejected_ = 0, outputs_ = 0;
    bool stroboscopic_ = true;
    double max_g_ = 0.0, max_Gv_ = 0.0, max_projection_ = 0.0;
    // dopri5
    double h_ = 0.0;
    std::size_t next_output_ = 1;
    bool k1_valid_ = false;
    double err_previous_ = 1e-4;
    bool rejected_last_ = false;
    Vector Y_, Y1_, Ytmp_, k1_, k2_, k3_, k4_, k5_, k6_, k7_;
    Vector lambda_;
    // the error estimate: the fields at 2N (micro) and at N (step doubling), the parts, the
    // pending doubling (its end step), the last local error per step
    std::unique_ptr<StroboscopicField> fine_, shadow_;
    ErrorAccumulator error_;
    Vector Y2H_, F_fine_, k_shadow_;
    Rk4DoublingError doubling_;
    std::size_t sampled_step_ = 0;
    double amplitude_ = 0.0; // the fast oscillation's, at the last micro sample
};

// Runs stroboscopic averaging from state.t to options.t_end; the observer (e.g. CsvWriter)
// sees the state at every output point, including the first; finish(state) if it has one.
template <class Observer>
StroboscopicStats run_stroboscopic(const Model& model, State& state,
                                   const StroboscopicOptions& options, Observer&& observer) {
    StroboscopicIntegrator strobo(model, options);
    strobo.start(state);
    require_finite(model, state, strobo.name());
    report_error_estimate(observer, strobo.error());
    observer(static_cast<const State&>(state));
    while (!strobo.done()) {
        strobo.advance(state);
        require_finite(model, state, strobo.name());
        report_error_estimate(observer, strobo.error());
        observer(static_cast<const State&>(state));
    }
    detail::finish(observer, state);
    return strobo.stats();
}

} // namespace mdl::runtime::multiscale
