// The EventTracker's members for a Model Exchange FMU (event_tracker.hpp): the importer takes
// the steps and locates the sign changes of what the FMU reports as its event indicators; the
// tracker decides, with the rules of every other front door, what fires there, what comes to
// rest and what is released.
#include "runtime/events/event_tracker.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mdl::runtime {

void EventTracker::accept(const State& s) {
    if (!started_) {
        start(s);
        return;
    }
    begin_step(s);
    for (std::size_t k = 0; k < offset_.size(); ++k) {
        if (g_begin_[static_cast<Eigen::Index>(k)] < 0.0) {
            offset_[k] = 0.0;
        }
    }
}

std::optional<EventOutcome> EventTracker::at_event(const State& s) {
    if (!started_) {
        start(s);
        return std::nullopt;
    }
    State at = s;
    project(at);
    // a held contact whose free motion leaves the surface
    for (std::size_t k = 0; k < holds_.size(); ++k) {
        if (holds_[k].active && curvature(at, k) < 0.0) {
            EventOutcome out;
            out.before = at;
            out.after = at;
            out.label = "release: " + events_[k].name;
            holds_[k].active = false;
            ++counts_.releases[k];
            begin_step(at);
            armed_[k] = true; // on the surface, leaving it: the next approach fires
            return out;
        }
    }
    indicators(at, g_end_);
    std::vector<std::size_t> fired, simultaneous;
    for (std::size_t k = 0; k < events_.size(); ++k) {
        if (!armed_[k] || holds_[k].active ||
            g_end_[static_cast<Eigen::Index>(k)] - offset_[k] < 0.0) {
            continue;
        }
        simultaneous.push_back(k);
        rearm_after_[k] = at.t;
        const bool clause_taken = std::any_of(fired.begin(), fired.end(), [&](std::size_t j) {
            return events_[j].clause == events_[k].clause;
        });
        if (!clause_taken) {
            fired.push_back(k);
        }
    }
    if (fired.empty()) {
        begin_step(at);
        return std::nullopt;
    }
    EventOutcome out = fire(fired, simultaneous, at);
    // The importer stopped just past the surface: a bounce leaves the indicator >= 0 there,
    // heading away. Such an event stays armed, its watched function shifted below the
    // indicator by (just over) the indicator there until it is seen negative (accept()), so
    // the next approach is a sign change however short the flight, located at the same depth
    // (a larger shift would let each bounce start deeper, and gain energy; docs/events.md).
    for (std::size_t k : simultaneous) {
        const double g = indicator(out.after, k);
        if (!holds_[k].active && g >= 0.0 && rate(out.after, k) < 0.0) {
            armed_[k] = true;
            offset_[k] = std::nextafter(g, std::numeric_limits<double>::infinity());
        }
    }
    return out;
}

void EventTracker::watched(const State& s, Vector& z) const {
    indicators(s, z);
    for (std::size_t k = 0; k < offset_.size(); ++k) {
        z[static_cast<Eigen::Index>(k)] -= offset_[k];
    }
    if (!holding()) {
        return;
    }
    State at = s;
    project(at);
    for (std::size_t k = 0; k < holds_.size(); ++k) {
        if (holds_[k].active) {
            z[static_cast<Eigen::Index>(k)] = curvature(at, k);
        }
    }
}

void EventTracker::held_derivatives(const State& s, Vector& v, Vector& a, Vector& xdot) const {
    State at = s;
    project(at);
    acceleration(at, a, xdot);
    v = at.v;
    for (std::size_t k = 0; k < holds_.size(); ++k) {
        if (!holds_[k].active) {
            continue;
        }
        // g_k'' is affine in the held position's acceleration, with slope dg_k/dq_p
        const Eigen::Index p = holds_[k].position;
        const double slope = indicator_slope(at, k, p);
        if (slope != 0.0 && std::isfinite(slope)) {
            a[p] -= curvature(at, k) / slope;
        }
    }
}

} // namespace mdl::runtime
