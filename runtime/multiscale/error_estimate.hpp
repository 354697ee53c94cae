// The running error estimate of a multiscale run (docs/methods.md, "Error estimates"), in the
// parts the theory separates:
//
//  - micro: the micro-integration's error in the averaged force or field, from the same micro
//    problem with h and h/2 (Richardson with the micro method's order p: the error at h is
//    |F_h - F_{h/2}| 2^p/(2^p - 1)), sampled at the first macro step and every few steps;
//  - macro: the macro-integrator's local errors (step doubling, an embedded pair, or the third
//    differences of a second-order macro's positions), summed over the steps;
//  - averaging: the 1/omega (or eps) terms the averaged equation leaves out and the filter's
//    residual (the fast oscillation's amplitude, the unfiltered part of the fast force, the
//    differencing error of the stroboscopic field).
//
// Each part is an estimate of the error it adds to the positions (max norm). An error in a
// rate (a field or an acceleration) is propagated as in free motion: a position rate dq adds
// dq per unit time, an acceleration error da adds a velocity error da per unit time, which
// moves the positions in turn. This is exact for a free particle, pessimistic for motions about
// a stable equilibrium (where such errors stay bounded) and optimistic where the motion
// amplifies errors exponentially; docs/methods.md says when to trust it. HMM's Verlet macro
// also carries its acceleration errors through the linearized averaged motion
// (linearized_error.hpp) and reports the smaller of the two.
#pragma once

#include <cstddef>
#include <utility>

namespace mdl::runtime::multiscale {

// What a run's estimate is made of, in position units; and what estimating it cost beyond the
// method's own work (which the method's statistics count without it).
struct ErrorParts {
    bool estimated = false;
    double micro = 0.0, macro = 0.0, averaging = 0.0;
    std::size_t micro_steps = 0;       // extra micro steps of the estimate
    std::size_t force_evaluations = 0; // extra model force evaluations of the estimate
    double total() const { return micro + macro + averaging; }
};

// Accumulates the parts along the run: position errors added at a time, rates held between
// samples and propagated in free motion.
class ErrorAccumulator {
public:
    enum Part { micro = 0, macro = 1, averaging = 2 };

    // A position error of part p, added once (a macro local error, an offset).
    void add_position(Part p, double e) { parts_[p].position += e; }
    // A velocity error of part p, added once (a macro local error): it moves the positions
    // from now on.
    void add_velocity(Part p, double e) { parts_[p].velocity += e; }
    // The part's error rates from now on: dq in the positions' rates (first-order fields),
    // dv in the accelerations.
    void set_rates(Part p, double dq, double dv) {
        parts_[p].rate_q = dq;
        parts_[p].rate_v = dv;
    }
    // Propagates every part over dt of free motion.
    void advance(double dt) {
        for (Entry& e : parts_) {
            e.position += dt * e.velocity + dt * e.rate_q + 0.5 * dt * dt * e.rate_v;
            e.velocity += dt * e.rate_v;
        }
    }
    double position(Part p) const { return parts_[p].position; }
    // The parts so far (the counts are the caller's).
    ErrorParts parts() const {
        ErrorParts out;
        out.estimated = true;
        out.micro = parts_[micro].position;
        out.macro = parts_[macro].position;
        out.averaging = parts_[averaging].position;
        return out;
    }

private:
    struct Entry {
        double position = 0.0, velocity = 0.0, rate_q = 0.0, rate_v = 0.0;
    };
    Entry parts_[3];
};

// The local errors of an rk4 macro from step doubling (strobo's and hmm-stiff's): a doubled
// pair (one step of 2H beside the two steps of H) measured every few steps; two steps of H
// and one of 2H differ by 2^5 - 2 = 30 local errors. The pair's end adds two local errors,
// and each step until the next pair adds the last one measured.
class Rk4DoublingError {
public:
    // A doubled pair starts with step `first` (counted from 1): it ends with step first + 1.
    void start(std::size_t first) { end_ = first + 1; }
    // After step `step` (counted from 1), once the parts were advanced over it:
    // `difference()` returns the max norms of the positions' and velocities' differences
    // between the two steps of H and the one of 2H, asked only at a pair's end.
    template <class Difference>
    void account(ErrorAccumulator& error, std::size_t step, Difference difference) {
        if (end_ != 0 && step + 1 == end_) {
            return; // the first step of a doubled pair: accounted at its end
        }
        if (end_ != 0 && step == end_) {
            const auto [dq, dv] = difference();
            position_ = dq / 30.0;
            velocity_ = dv / 30.0;
            error.add_position(ErrorAccumulator::macro, 2.0 * position_);
            error.add_velocity(ErrorAccumulator::macro, 2.0 * velocity_);
            end_ = 0;
            return;
        }
        error.add_position(ErrorAccumulator::macro, position_);
        error.add_velocity(ErrorAccumulator::macro, velocity_);
    }

private:
    std::size_t end_ = 0;
    double position_ = 0.0, velocity_ = 0.0;
};

// Richardson's factor 2^p/(2^p - 1): the error at h from the difference of the results at h
// and h/2 of a method of order p.
inline double richardson_factor(int order) {
    const double r = static_cast<double>(1 << order);
    return r / (r - 1.0);
}

} // namespace mdl::runtime::multiscale

namespace mdl::runtime::multiscale {

// Hands the running estimate to an observer that asks for it (`error_estimate(parts)`), before
// each state it sees.
template <class Observer>
void report_error_estimate(Observer& observer, const ErrorParts& parts) {
    if constexpr (requires { observer.error_estimate(parts); }) {
        observer.error_estimate(parts);
    }
}

} // namespace mdl::runtime::multiscale
