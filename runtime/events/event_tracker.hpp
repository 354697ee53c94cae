// Event detection and handling along a run (docs/events.md), independent of the integrator:
// the drivers (event_driver.hpp) hand it each step as an interpolant of the state over the
// step; it finds the first crossing of an indicator from below, applies the reinits there,
// and holds a contact that has come to rest.
//
// Rules (documented in docs/events.md):
// - An event fires when its indicator g (>= 0 where its condition holds) goes from g < 0 to
//   g >= 0: edge-triggered, as Modelica's when. A condition true at the start does not fire.
// - A crossing is seen from g at both ends of the step (a sign change) or, when g is negative
//   at both, from its rate g' there: an interior maximum of g (g' turning from > 0 to < 0, or
//   the cubic Hermite interpolant of g and g' showing one) is searched on the step's
//   interpolant, and a maximum >= 0 is a crossing that enters and leaves the condition within
//   the step (grazing; turning_point.hpp). The crossing is bracketed by Illinois' regula falsi
//   on the interpolant to [t_lo, t_hi], t_hi - t_lo <= 1e-12 max(|t|, step). The event happens at
//   t_lo, where the condition does not yet hold, so a reinit that leaves the state "on the surface"
//   leaves it on the side it came from: the next approach is again a sign change from below (never
//   lost), and the event cannot re-fire at once (its indicator is still negative).
// - Events crossing within the bracket of the earliest fire at the same instant, in source
//   order; of the branches of one when-clause only the first fires (elsewhen). Every reinit
//   value is computed from the state before the event (pre), then applied in source order.
// - Resting: when an event's reinits leave the indicator's rate above -rest_tolerance times
//   the largest approach rate of that event so far (the ball barely bounces), or it fires
//   again within the time tolerance, and it reinits a velocity whose position the indicator
//   depends on, the contact is held: after every step that position is projected onto g = 0
//   and its velocity onto dg/dt = 0. It is released when the second derivative of g along the
//   free motion turns negative (the contact force changes sign), located by bisection.
#pragma once

#include "runtime/events/hermite_step.hpp"
#include "runtime/model.hpp"
#include "runtime/state.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mdl::runtime {

struct EventOptions {
    double time_tolerance = 1e-12; // relative width of the bracket of a crossing
    double rest_tolerance = 1e-6;  // relative rate below which a contact comes to rest
    // The integrator moves positions by its tolerance at a restart (ida's Newton on the
    // constraints): a sign change within the time tolerance of an event, the state moving
    // away, is that error, not a new crossing (nor Zeno behaviour).
    bool restart_moves_positions = false;
    // Limit the next step where an indicator is near zero with a small rate, so that the
    // interpolation error of the step cannot hide a graze (graze_step_limit.hpp, step_limit).
    bool limit_graze_steps = true;
};

// Counts per event, for the run summary.
struct EventCounts {
    std::vector<std::size_t> fired;    // per event
    std::vector<std::size_t> rests;    // contacts held
    std::vector<std::size_t> releases; // contacts released
    // impacts on a constrained model whose velocity was projected onto G v = 0, and the
    // largest velocity change that projection made
    std::vector<std::size_t> projections;
    double largest_projection = 0.0;
};

// What happened in a step: rows to write and the state the integrator restarts from.
struct EventOutcome {
    State before;           // the state at the event, before the reinits
    State after;            // after them: the integrator restarts from here
    std::string label;      // the CSV's event column: "b.y <= 0", "rest: b.y <= 0", ...
    bool terminate = false; // a terminate() fired: the run ends at `after`
    std::string message;    // its message
    std::vector<std::size_t> fired;
    double impulse = 0.0; // constrained models: the largest velocity change of the projection
};

// The state at time t within the current step.
using Interpolant = std::function<void(double t, State& out)>;

// What the drivers of SUNDIALS' methods (cvode-*, ida) hand each event's rows to: the state
// before and after its reinits, with the event's name.
using EventObserver = std::function<void(const State&, std::string_view label)>;

class EventTracker {
public:
    EventTracker(const Model& model, std::string_view method, EventOptions options = {});

    // The run starts at s: indicators there decide which events are armed.
    void start(const State& s);
    // The run goes on from s after a pause (an FMU's next fmi2DoStep): as start() the first
    // time; afterwards the armed events, the held contacts and the last firing times are kept,
    // so a contact at rest stays held and an event just fired does not fire again.
    void resume(const State& s);

    // The step from the last accepted state to `end`. Returns the outcome of the earliest
    // event or contact release in it (the run continues from outcome.after, the rest of the
    // step is discarded); else nullopt, after projecting `end` onto a held contact.
    std::optional<EventOutcome> step(State& end, const Interpolant& at);

    // The longest next step from the last accepted state, not above `proposed`, whose
    // interpolation error cannot hide a graze of an armed event (graze_step_limit.hpp).
    double step_limit(double proposed) const;

    // A state observed inside an accepted step (dense output) onto the held contacts.
    void project(State& s) const;

    // Model Exchange (an FMU's importer integrates and locates sign changes of the watched
    // functions itself; importer_events.cpp), with the rules above:
    // - the importer completed a step at s: it starts the next one (re-arming as step() does);
    void accept(const State& s);
    // - the importer stopped at s in event mode: the armed events whose indicator is >= 0 at s
    //   fire, a held contact whose free motion leaves the surface there is released;
    std::optional<EventOutcome> at_event(const State& s);
    // - what the importer watches for sign changes: g_k, or while contact k is held the
    //   second derivative of g_k along the free motion (turning negative: the release);
    void watched(const State& s, Vector& z) const;
    // - the state's derivatives (v, a, x') while contacts are held: at s projected onto them,
    //   each held position's acceleration the one that keeps g_k'' = 0.
    void held_derivatives(const State& s, Vector& v, Vector& a, Vector& xdot) const;

    // The accelerations the rates and the release test use (MotionAcceleration above).
    void set_acceleration(MotionAcceleration field) { acceleration_ = std::move(field); }

    const EventCounts& counts() const { return counts_; }
    std::size_t events() const { return events_.size(); }
    bool holding() const;

private:
    struct Hold {
        bool active = false;
        Eigen::Index position = -1; // the position held on g = 0
    };

    void indicators(const State& s, Vector& g) const;
    double indicator(const State& s, std::size_t k) const;
    // dg_k/dq_p at s by a central difference (s is restored).
    double indicator_slope(State& s, std::size_t k, Eigen::Index p) const;
    // The time derivatives of every g_k along the motion from s: the compiled event_rate
    // kernel (grad_q g . v + g_t) when the model has it, else central differences of the
    // indicators along the motion's Taylor expansion (dg/dt = grad g . (v, a, x') + dg/dt).
    void rates(const State& s, Vector& r) const;
    double rate(const State& s, std::size_t k) const;
    // The second time derivative of g_k along the free motion from s.
    double curvature(const State& s, std::size_t k) const;
    void acceleration(const State& s, Vector& a, Vector& xdot) const;
    // s moved onto g_k = 0, dg_k/dt = 0 through position p and its velocity (a constrained
    // model: project_constrained_contact).
    void project_onto(State& s, std::size_t k, Eigen::Index p) const;
    // The first point of the step where g_k >= 0 (an end or an interior maximum), with g_k
    // there; nullopt when g_k stays negative.
    std::optional<std::pair<double, double>> reach(std::size_t k, double tb, const Interpolant& at);
    // The bracket [t_lo, t_hi] of g_k's crossing from below in [ta, tb], g_k(tb) = fb >= 0.
    std::pair<double, double> locate(std::size_t k, double ta, double tb, double fb,
                                     const Interpolant& at);
    std::optional<EventOutcome> release_in(State& end, const Interpolant& at);
    // With restart_moves_positions: false for a sign change reached within the time tolerance
    // of the step's start while g_k' < 0 there (the state moving away).
    bool approaching(std::size_t k, double t_hi) const;
    // A constrained model: s.v onto G(q) v + g_t = 0 in the mass metric (the impulsive
    // constraint reactions of an impact); the largest velocity change.
    double project_impulse(State& s) const;
    // A constrained model: s onto the constraints and the held contact g_k = 0 together, its
    // velocity onto their rates = 0, in the mass metric (the contact as one more constraint).
    void project_constrained_contact(State& s, std::size_t k) const;
    // W J^T (J W J^T)^-1 r, W = M^-1; NumericalFailure saying `what` when J W J^T is singular.
    Vector metric_correction(const State& s, const Matrix& J, const Vector& r,
                             const std::string& what) const;
    // G(t, q) and g_t of the constraints at s.
    void constraint_rows(const State& s, Matrix& G, Vector& g_t) const;
    EventOutcome fire(const std::vector<std::size_t>& fired,
                      const std::vector<std::size_t>& simultaneous, const State& before);
    // The indicators and rates at s start the next step; next_step: those of the step's end.
    void begin_step(const State& s);
    void next_step(const State& end);
    void rearm(double t);
    // The step's interpolation error constants and the indicators' second derivatives at its
    // end, for step_limit (before next_step).
    void measure_step(double tb, const Interpolant& at);

    const Model* model_;
    bool started_ = false;
    std::string method_;
    EventOptions options_;
    const std::vector<Event>& events_;
    std::vector<bool> armed_;
    std::vector<double> last_fired_;
    std::vector<double> approach_scale_;
    std::vector<double> rearm_after_; // end of the bracket of its last crossing
    std::vector<Hold> holds_;
    // Model Exchange: what the watched function of an event is below its indicator, from a
    // bounce located just past the surface until the indicator is seen negative (a hysteresis
    // of the location's depth: the importer sees the next approach as a sign change, as the
    // event at the bracket's lower end does for step())
    std::vector<double> offset_;
    MotionAcceleration acceleration_;
    Vector g_begin_, g_end_, r_begin_, r_end_; // indicators and their rates at the step's ends
    double t_begin_ = 0.0;
    Vector curvature_;                   // g'' at the last step's end, from its rates
    std::vector<double> error_constant_; // the last step's K of the cubic of g and g'
    mutable State work_;
    mutable Vector g_work_, theta_, reinit_values_;
    EventCounts counts_;
};

} // namespace mdl::runtime
