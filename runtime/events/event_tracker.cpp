#include "runtime/events/event_tracker.hpp"

#include "runtime/events/graze_step_limit.hpp"
#include "runtime/events/turning_point.hpp"
#include "runtime/numerical_failure.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace mdl::runtime {

namespace {

// Steps of the finite differences along the motion: central first differences (truncation
// ~ delta^2, round-off ~ eps/delta) and second differences (round-off ~ eps/delta^2).
constexpr double rate_delta = 1e-7;
constexpr double curvature_delta = 1e-4;
// Points of a step at which a held contact is tested for release.
constexpr int release_samples = 64;

} // namespace

EventTracker::EventTracker(const Model& model, std::string_view method, EventOptions options)
    : model_(&model), method_(method), options_(options), events_(model.events()),
      armed_(events_.size(), false),
      last_fired_(events_.size(), -std::numeric_limits<double>::infinity()),
      approach_scale_(events_.size(), 0.0),
      rearm_after_(events_.size(), -std::numeric_limits<double>::infinity()),
      holds_(events_.size()), offset_(events_.size(), 0.0),
      g_begin_(Vector::Zero(static_cast<Eigen::Index>(events_.size()))), g_end_(g_begin_),
      r_begin_(g_begin_), r_end_(g_begin_), curvature_(g_begin_),
      error_constant_(events_.size(), 0.0), work_(model.zero_state()), g_work_(g_begin_),
      theta_(Vector::Zero(model.vibrations())),
      reinit_values_(Vector::Zero(static_cast<Eigen::Index>(model.kernels().n_reinits))) {
    counts_.fired.assign(events_.size(), 0);
    counts_.rests.assign(events_.size(), 0);
    counts_.releases.assign(events_.size(), 0);
    counts_.projections.assign(events_.size(), 0);
}

void EventTracker::indicators(const State& s, Vector& g) const {
    model_->phases(s.t, theta_);
    model_->event_indicators(s.t, s.q, s.v, s.x, theta_, g);
}

double EventTracker::indicator(const State& s, std::size_t k) const {
    indicators(s, g_work_);
    return g_work_[static_cast<Eigen::Index>(k)];
}

void EventTracker::acceleration(const State& s, Vector& a, Vector& xdot) const {
    a.resize(s.q.size());
    xdot.resize(s.x.size());
    if (acceleration_) {
        acceleration_(s, a, xdot);
        return;
    }
    model_->phases(s.t, theta_);
    if (s.q.size() > 0) {
        model_->acceleration(s.t, s.q, s.v, s.x, theta_, a);
    }
    if (s.x.size() > 0) {
        model_->rates(s.t, s.q, s.v, s.x, theta_, xdot);
    }
}

// g at the points t -+ delta of the Taylor expansion of the motion through s.
namespace {
struct Shifted {
    double minus, plus;
};
} // namespace

void EventTracker::rates(const State& s, Vector& r) const {
    if (model_->has_event_rates()) {
        // compiled: grad_q g . v + g_t, exact whatever M(q) and the constraints
        r.resize(static_cast<Eigen::Index>(events_.size()));
        model_->phases(s.t, theta_);
        model_->event_rates(s.t, s.q, s.v, s.x, theta_, r);
        return;
    }
    Vector a, xdot;
    acceleration(s, a, xdot);
    const double d = rate_delta * std::max(1.0, std::abs(s.t));
    const auto at = [&](double sign, Vector& g) {
        work_.t = s.t + sign * d;
        work_.q = s.q + sign * d * s.v + 0.5 * d * d * a;
        work_.v = s.v + sign * d * a;
        work_.x = s.x + sign * d * xdot;
        indicators(work_, g);
    };
    Vector minus(g_work_.size());
    at(-1.0, minus);
    at(1.0, r);
    r = (r - minus) / (2.0 * d);
}

double EventTracker::rate(const State& s, std::size_t k) const {
    Vector r(static_cast<Eigen::Index>(events_.size()));
    rates(s, r);
    return r[static_cast<Eigen::Index>(k)];
}

double EventTracker::curvature(const State& s, std::size_t k) const {
    Vector a, xdot;
    acceleration(s, a, xdot);
    const double d = curvature_delta;
    const double g0 = indicator(s, k);
    const auto at = [&](double sign) {
        work_.t = s.t + sign * d;
        work_.q = s.q + sign * d * s.v + 0.5 * d * d * a;
        work_.v = s.v + sign * d * a;
        work_.x = s.x + sign * d * xdot;
        return indicator(work_, k);
    };
    const Shifted g{at(-1.0), at(1.0)};
    return (g.plus - 2.0 * g0 + g.minus) / (d * d);
}

double EventTracker::indicator_slope(State& s, std::size_t k, Eigen::Index p) const {
    const double q = s.q[p], h = 1e-7 * std::max(1.0, std::abs(q));
    s.q[p] = q + h;
    const double up = indicator(s, k);
    s.q[p] = q - h;
    const double down = indicator(s, k);
    s.q[p] = q;
    return (up - down) / (2.0 * h);
}

void EventTracker::project_onto(State& s, std::size_t k, Eigen::Index p) const {
    if (model_->constrained()) {
        project_constrained_contact(s, k);
        return;
    }
    for (int iteration = 0; iteration < 20; ++iteration) {
        const double g = indicator(s, k);
        const double slope = indicator_slope(s, k, p);
        if (slope == 0.0 || !std::isfinite(slope)) {
            break;
        }
        const double dq = g / slope;
        s.q[p] -= dq;
        if (std::abs(dq) <= 1e-15 * std::max(1.0, std::abs(s.q[p]))) {
            break;
        }
    }
    // dg/dt is affine in the held velocity
    const double r0 = rate(s, k);
    s.v[p] += 1.0;
    const double slope = rate(s, k) - r0;
    s.v[p] -= 1.0;
    if (slope != 0.0 && std::isfinite(slope)) {
        s.v[p] -= r0 / slope;
    }
}

void EventTracker::project(State& s) const {
    for (std::size_t k = 0; k < holds_.size(); ++k) {
        if (holds_[k].active) {
            project_onto(s, k, holds_[k].position);
        }
    }
}

bool EventTracker::holding() const {
    return std::any_of(holds_.begin(), holds_.end(), [](const Hold& h) { return h.active; });
}

void EventTracker::begin_step(const State& s) {
    indicators(s, g_begin_);
    rates(s, r_begin_);
    rearm(s.t);
}

void EventTracker::next_step(const State& end) {
    g_begin_.swap(g_end_);
    r_begin_.swap(r_end_);
    rearm(end.t);
}

void EventTracker::rearm(double t) {
    t_begin_ = t;
    for (std::size_t k = 0; k < events_.size(); ++k) {
        if (g_begin_[static_cast<Eigen::Index>(k)] < 0.0 && t > rearm_after_[k]) {
            armed_[k] = true;
        }
    }
}

void EventTracker::start(const State& s) {
    if (s.q.size() != work_.q.size() || s.v.size() != work_.v.size() ||
        s.x.size() != work_.x.size()) {
        throw std::invalid_argument("events: the state does not match the model");
    }
    std::fill(armed_.begin(), armed_.end(), false);
    started_ = true;
    begin_step(s);
}

void EventTracker::resume(const State& s) {
    if (!started_) {
        start(s);
        return;
    }
    begin_step(s);
}

std::optional<std::pair<double, double>> EventTracker::reach(std::size_t k, double tb,
                                                             const Interpolant& at) {
    const auto i = static_cast<Eigen::Index>(k);
    const double ta = t_begin_, h = tb - ta;
    const double ga = g_begin_[i], gb = g_end_[i];
    if (ga < 0.0 && h > 0.0) {
        // an interior maximum of g: g' turning from > 0 to < 0, or the cubic of g and g' at
        // both ends showing one; searched on the interpolant itself
        if (const auto m = cubic_interior_maximum(ga, r_begin_[i], gb, r_end_[i], h)) {
            const auto g = [&](double t) {
                at(t, work_);
                project(work_);
                return indicator(work_, k);
            };
            double found = 0.0;
            if (const auto t = reach_nonnegative(g, ta + m->lo * h, ta + m->hi * h,
                                                 options_.time_tolerance, found)) {
                if (*t < tb) {
                    return std::make_pair(*t, found);
                }
            }
        }
    }
    if (gb >= 0.0) {
        return std::make_pair(tb, gb);
    }
    return std::nullopt;
}

std::pair<double, double> EventTracker::locate(std::size_t k, double ta, double tb, double fb_in,
                                               const Interpolant& at) {
    const auto g = [&](double t) {
        at(t, work_);
        project(work_);
        return indicator(work_, k);
    };
    double a = ta, b = tb;
    double fa = g_begin_[static_cast<Eigen::Index>(k)];
    double fb = fb_in;
    if (!(fa < 0.0)) {
        // armed on the surface (a contact just released): the first sampled point where the
        // motion has left it starts the bracket
        bool found = false;
        for (int j = 1; j <= 60 && !found; ++j) {
            const double t = ta + (tb - ta) * std::ldexp(1.0, -j);
            const double ft = g(t);
            if (ft < 0.0) {
                a = t;
                fa = ft;
                found = true;
            }
        }
        if (!found) {
            return {tb, tb};
        }
    }
    const double tol = options_.time_tolerance * std::max({std::abs(ta), std::abs(tb), tb - ta});
    int side = 0;
    double width = b - a;
    for (int iteration = 0; iteration < 400 && b - a > tol; ++iteration) {
        double c = b - fb * (b - a) / (fb - fa); // regula falsi
        if (iteration % 4 == 3) {
            if (b - a > 0.5 * width) {
                c = 0.5 * (a + b); // the Illinois steps stalled: bisect
            }
            width = b - a;
        }
        const double margin = 0.25 * tol;
        if (!(c > a + margin && c < b - margin)) {
            c = std::clamp(c, a + margin, b - margin);
            if (!(c > a && c < b)) {
                c = 0.5 * (a + b);
            }
        }
        const double fc = g(c);
        if (fc >= 0.0) {
            b = c;
            fb = fc;
            if (side == 1) {
                fa *= 0.5; // Illinois: halve the stale end's value
            }
            side = 1;
        } else {
            a = c;
            fa = fc;
            if (side == -1) {
                fb *= 0.5;
            }
            side = -1;
        }
    }
    return {a, b};
}

bool EventTracker::approaching(std::size_t k, double t_hi) const {
    // The state at the step's start moves away from the surface (g < 0, g' < 0): g cannot
    // reach zero within the time tolerance after it with bounded accelerations. Such a sign
    // change is the integrator moving the state across the surface by its own error right
    // after an event left it there (ida's Newton on the constraints moves positions by its
    // tolerance), not a crossing: the event stays armed for the real approach.
    // (Without that option such a re-crossing is the Zeno test's: a ball chattering on a
    // table comes to rest by it.)
    if (!options_.restart_moves_positions) {
        return true;
    }
    const double window = 10.0 * options_.time_tolerance * std::max(1.0, std::abs(t_begin_));
    return !(t_hi - t_begin_ <= window && r_begin_[static_cast<Eigen::Index>(k)] < 0.0);
}

std::optional<EventOutcome> EventTracker::release_in(State& end, const Interpolant& at) {
    std::optional<std::pair<double, std::size_t>> earliest;
    for (std::size_t k = 0; k < holds_.size(); ++k) {
        if (!holds_[k].active) {
            continue;
        }
        const Eigen::Index p = holds_[k].position;
        const auto leaves = [&](double t) {
            at(t, work_);
            State s = work_;
            project_onto(s, k, p);
            return curvature(s, k) < 0.0;
        };
        // the first of release_samples points of the step where the free motion leaves
        double a = t_begin_, b = end.t;
        bool found = false;
        for (int i = 0; i <= release_samples && !found; ++i) {
            const double t = i == release_samples
                                 ? end.t
                                 : t_begin_ + (end.t - t_begin_) * static_cast<double>(i) /
                                                  static_cast<double>(release_samples);
            if (leaves(t)) {
                b = t;
                found = true;
            } else {
                a = t;
            }
        }
        if (!found) {
            continue;
        }
        if (a < b) {
            const double tol =
                options_.time_tolerance * std::max({std::abs(a), std::abs(b), b - a});
            for (int iteration = 0; iteration < 200 && b - a > tol; ++iteration) {
                const double c = 0.5 * (a + b);
                (leaves(c) ? b : a) = c;
            }
        } else {
            b = a;
        }
        if (!earliest || b < earliest->first) {
            earliest = std::make_pair(b, k);
        }
    }
    if (!earliest) {
        return std::nullopt;
    }
    const std::size_t k = earliest->second;
    EventOutcome out;
    at(earliest->first, out.after);
    out.after.lambda = end.lambda;
    project(out.after);
    out.before = out.after;
    out.label = "release: " + events_[k].name;
    holds_[k].active = false;
    ++counts_.releases[k];
    begin_step(out.after);
    armed_[k] = true; // on the surface, leaving it: the next approach fires
    return out;
}

std::optional<EventOutcome> EventTracker::step(State& end, const Interpolant& at) {
    if (holding()) {
        if (auto released = release_in(end, at)) {
            return released;
        }
        project(end);
    }
    indicators(end, g_end_);
    rates(end, r_end_);
    std::vector<std::size_t> crossed;
    std::vector<std::pair<double, double>> brackets;
    std::size_t first = 0;
    for (std::size_t k = 0; k < events_.size(); ++k) {
        if (!armed_[k] || holds_[k].active) {
            continue;
        }
        if (const auto reached = reach(k, end.t, at)) {
            const auto bracket = locate(k, t_begin_, reached->first, reached->second, at);
            if (!approaching(k, bracket.second)) {
                continue; // g >= 0 reached moving away: the integrator's noise, not a crossing
            }
            crossed.push_back(k);
            brackets.push_back(bracket);
            if (brackets.back().first < brackets[first].first) {
                first = brackets.size() - 1;
            }
        }
    }
    if (crossed.empty()) {
        measure_step(end.t, at);
        next_step(end);
        return std::nullopt;
    }
    if (brackets[first].first >= end.t) {
        // no sign change found inside the step (a contact released on the surface and not
        // left by the samples): nothing fires, the condition now holds
        for (std::size_t k : crossed) {
            armed_[k] = false;
        }
        next_step(end);
        return std::nullopt;
    }
    const double t_event = brackets[first].first;
    const double t_limit = brackets[first].second;
    // simultaneous: crossings whose bracket begins before the earliest one ends; of the
    // branches of one when-clause, the first
    std::vector<std::size_t> fired, simultaneous;
    for (std::size_t i = 0; i < crossed.size(); ++i) {
        if (brackets[i].first > t_limit) {
            continue;
        }
        const std::size_t k = crossed[i];
        simultaneous.push_back(k);
        const bool clause_taken = std::any_of(fired.begin(), fired.end(), [&](std::size_t j) {
            return events_[j].clause == events_[k].clause;
        });
        if (!clause_taken) {
            fired.push_back(k);
        }
    }
    State before = end;
    at(t_event, before);
    before.lambda = end.lambda;
    project(before);
    for (std::size_t k : simultaneous) {
        rearm_after_[k] = t_limit; // seen negative before its crossing: not a new approach
    }
    return fire(fired, simultaneous, before);
}

void EventTracker::measure_step(double tb, const Interpolant& at) {
    const double h = tb - t_begin_;
    if (!options_.limit_graze_steps || !(h > 0.0) || events_.empty()) {
        return;
    }
    curvature_ = (r_end_ - r_begin_) / h;
    std::fill(error_constant_.begin(), error_constant_.end(), 0.0);
    Vector inside(g_begin_.size());
    for (const double s : {0.25, 0.5, 0.75}) {
        at(t_begin_ + s * h, work_);
        project(work_);
        indicators(work_, inside);
        for (std::size_t k = 0; k < events_.size(); ++k) {
            const auto i = static_cast<Eigen::Index>(k);
            error_constant_[k] = std::max(
                error_constant_[k], hermite_error_constant(g_begin_[i], r_begin_[i], g_end_[i],
                                                           r_end_[i], h, s, inside[i]));
        }
    }
}

double EventTracker::step_limit(double proposed) const {
    if (!options_.limit_graze_steps) {
        return proposed;
    }
    double h = proposed;
    for (std::size_t k = 0; k < events_.size(); ++k) {
        const auto i = static_cast<Eigen::Index>(k);
        if (!armed_[k] || holds_[k].active) {
            continue;
        }
        const GrazePrediction p{g_begin_[i], r_begin_[i], curvature_[i], error_constant_[k]};
        h = std::min(h, graze_step_limit(p, proposed));
    }
    return h;
}

EventOutcome EventTracker::fire(const std::vector<std::size_t>& fired,
                                const std::vector<std::size_t>& simultaneous, const State& before) {
    EventOutcome out;
    out.before = before;
    out.after = before;
    out.fired = fired;
    model_->phases(before.t, theta_);
    model_->event_reinits(before.t, before.q, before.v, before.x, theta_, reinit_values_);
    for (std::size_t k : fired) {
        const Event& e = events_[k];
        for (std::size_t j = 0; j < e.reinits.size(); ++j) {
            const double value = reinit_values_[static_cast<Eigen::Index>(e.first_reinit + j)];
            const EventReinit& r = e.reinits[j];
            switch (r.target) {
            case EventReinit::Target::position:
                out.after.q[r.index] = value;
                break;
            case EventReinit::Target::velocity:
                out.after.v[r.index] = value;
                break;
            case EventReinit::Target::state:
                out.after.x[r.index] = value;
                break;
            }
        }
        out.label += (out.label.empty() ? "" : "; ") + e.name;
        ++counts_.fired[k];
        if (e.terminates && !out.terminate) {
            out.terminate = true;
            out.message = e.terminate_message;
        }
    }
    if (model_->constrained() && (out.after.v - before.v).cwiseAbs().maxCoeff() > 0.0) {
        out.impulse = project_impulse(out.after);
        for (std::size_t k : fired) {
            ++counts_.projections[k];
        }
        counts_.largest_projection = std::max(counts_.largest_projection, out.impulse);
    }
    // resting: a velocity reinit of a position the indicator depends on, and the motion
    // barely leaves the surface (or the event fired again within the time tolerance)
    for (std::size_t k : fired) {
        const Event& e = events_[k];
        Eigen::Index held = -1;
        for (const EventReinit& r : e.reinits) {
            if (r.target != EventReinit::Target::velocity || held >= 0) {
                continue;
            }
            State probe = before;
            if (indicator_slope(probe, k, r.index) != 0.0) {
                held = r.index;
            }
        }
        const double t = before.t;
        const double tol = 10.0 * options_.time_tolerance * std::max(1.0, std::abs(t));
        const bool zeno = t - last_fired_[k] <= tol;
        last_fired_[k] = t;
        if (held < 0) {
            if (zeno) {
                throw NumericalFailure(
                    FailureKind::too_many_steps, method_, t, "event '" + e.name + "'",
                    "the event fired again within " + format_number(tol) +
                        " (events accumulate, Zeno behaviour) and reinits no velocity of a "
                        "position its condition depends on, so the contact cannot be held");
            }
            continue;
        }
        const double approach = rate(before, k);
        approach_scale_[k] = std::max(approach_scale_[k], std::abs(approach));
        const double leave = rate(out.after, k);
        if (zeno || leave > -options_.rest_tolerance * approach_scale_[k]) {
            project_onto(out.after, k, held);
            holds_[k] = {true, held};
            ++counts_.rests[k];
            out.label += " (rest)";
        }
    }
    begin_step(out.after);
    // The event happened just before its crossing: an event of this instant stays armed only
    // if the reinits turned its indicator away (a bounce); one still heading for its crossing
    // (an elsewhen not taken, a condition the reinits did not affect) is re-armed once its
    // indicator is seen negative at a later step, so it does not fire twice at one instant.
    for (std::size_t k : simultaneous) {
        armed_[k] = !holds_[k].active && g_begin_[static_cast<Eigen::Index>(k)] < 0.0 &&
                    rate(out.after, k) < 0.0;
    }
    return out;
}

} // namespace mdl::runtime
