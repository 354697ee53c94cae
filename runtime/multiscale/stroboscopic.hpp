// Stroboscopic averaging (Calvo, Chartier, Murua & Sanz-Serna, "A stroboscopic numerical
// method for highly oscillatory problems", papers/stroboscopic-averaging.txt; docs/stroboscopic.md).
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
// Micro-integrators: the runtime's RungeKutta4 (the paper's) or VelocityVerlet.
//
// What the outputs mean: Y(t_n) equals the true solution y(t_n) (up to the method's errors)
// only at stroboscopic times t_n = t0 + k delta, i.e. when H (or the output interval) is a
// whole multiple of delta (stats().stroboscopic_outputs). At other times Y(t) is the smooth
// interpolant of the stroboscopic samples: its positions are within O(eps) of q(t), but its
// velocities miss the O(1) fast oscillation of v (Y_v is the sampled v, not dq/dt averaged).
//
// The model must be unconstrained (the DAE variant is not implemented here) and have a
// vibration; with several vibrations their rates must agree or `period` must be given.
#pragma once

#include "runtime/integrate.hpp"
#include "runtime/model.hpp"
#include "runtime/state.hpp"

#include <cstddef>
#include <limits>
#include <memory>
#include <numbers>
#include <string_view>

namespace mdl::runtime::multiscale {

enum class StroboscopicMacro { rk4, dopri5 };
enum class StroboscopicMicro { rk4, verlet };

std::string_view to_string(StroboscopicMacro macro); // "rk4" / "dopri5"
std::string_view to_string(StroboscopicMicro micro); // "rk4" / "verlet"
// Throw std::invalid_argument listing the accepted names.
StroboscopicMacro parse_stroboscopic_macro(std::string_view name);
StroboscopicMicro parse_stroboscopic_micro(std::string_view name);

struct StroboscopicOptions {
    int order = 4; // central differences of order 2 or 4
    StroboscopicMacro macro = StroboscopicMacro::rk4;
    StroboscopicMicro micro = StroboscopicMicro::rk4;
    double t_end = 1.0;
    // rk4: the macro step H. dopri5: the output interval (0: every accepted step).
    double macro_step = std::numbers::pi / 50.0;
    // rk4: floor((t_end - t0)/H) steps (the paper); false: the last step ends at t_end.
    bool whole_steps = true;
    std::size_t micro_steps_per_period = 10; // h = delta / N (the paper: 10 * 2^nu)
    double period = 0.0;                     // delta; 0: 2 pi/omega of `vibration`
    std::size_t vibration = 0;
    // dopri5 macro-integrator
    double rtol = 1e-6;
    double atol = 1e-9;
    double initial_step = 0.0; // 0: Hairer's starting-step estimate
    double max_step = std::numeric_limits<double>::infinity();
    std::size_t max_steps = 100000; // accepted plus rejected; 0 = no limit
};

struct StroboscopicStats {
    std::size_t macro_steps = 0;          // accepted macro steps
    std::size_t rejected_steps = 0;       // dopri5
    std::size_t outputs = 0;              // states handed to the observer
    std::size_t field_evaluations = 0;    // values F(Y) computed
    std::size_t micro_steps = 0;          // all micro steps (the paper's "microsteps")
    std::size_t force_evaluations = 0;    // model force evaluations in the micro-integrations
    std::size_t micro_steps_per_field = 0; // 2 or 4 periods of micro steps
    double period = 0.0;                  // delta
    double micro_step = 0.0;              // h
    bool stroboscopic_outputs = false;    // every output time is t0 + k delta (within 1e-9)
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

    void evaluate(const Vector& Y, Vector& F);

    Eigen::Index size() const; // 2n + k
    void pack(const State& s, Vector& Y) const;
    void unpack(const Vector& Y, State& s) const; // q, v, x (not t)

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
    const StroboscopicField& field() const { return *field_; }

private:
    void rk4_advance(State& s);
    void dopri5_advance(State& s);
    double dopri5_attempt(double h); // stages from Y_ (k1_ = F(Y_)); returns the error norm
    double initial_step();
    void check_step_budget() const;
    bool on_stroboscope(double t) const;

    const Model* model_;
    StroboscopicOptions options_;
    std::unique_ptr<StroboscopicField> field_;
    double t0_ = 0.0, t_ = 0.0, t_end_ = 0.0;
    std::size_t steps_ = 0, step_ = 0; // rk4
    bool done_ = true;
    std::size_t rejected_ = 0, outputs_ = 0;
    bool stroboscopic_ = true;
    // dopri5
    double h_ = 0.0;
    std::size_t next_output_ = 1;
    bool k1_valid_ = false;
    double err_previous_ = 1e-4;
    bool rejected_last_ = false;
    Vector Y_, Y1_, Ytmp_, k1_, k2_, k3_, k4_, k5_, k6_, k7_;
};

// Runs stroboscopic averaging from state.t to options.t_end; the observer (e.g. CsvWriter)
// sees the state at every output point, including the first; finish(state) if it has one.
template <class Observer>
StroboscopicStats run_stroboscopic(const Model& model, State& state,
                                   const StroboscopicOptions& options, Observer&& observer) {
    StroboscopicIntegrator strobo(model, options);
    strobo.start(state);
    require_finite(model, state, strobo.name());
    observer(static_cast<const State&>(state));
    while (!strobo.done()) {
        strobo.advance(state);
        require_finite(model, state, strobo.name());
        observer(static_cast<const State&>(state));
    }
    detail::finish(observer, state);
    return strobo.stats();
}

} // namespace mdl::runtime::multiscale
