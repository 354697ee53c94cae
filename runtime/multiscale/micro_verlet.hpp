// The micro-integration of the multiscale force estimators (HMM, stiff-spring HMM): velocity
// Verlet from a start point over a window of n steps, each grid point handed to the caller's
// filter accumulation as it is reached. This loop is where those methods spend their time, so
// it calls the compiled force kernel through its pointer on plain arrays: no virtual call, no
// std::function, no Eigen temporaries, no allocation, and no per-step check of whether the
// state continues the previous step (VelocityVerlet's StepMemory compares and copies q, v and
// x every step). The arithmetic is VelocityVerlet's for velocity-independent forces, operation
// for operation, so results are bit-identical to stepping VelocityVerlet<ModelForce>:
//
//   v += h/2 a;  q += h v;  t += h;  a = M^-1 f(t, q, v, theta(t));  v += h/2 a
//
// (sweep_both runs the forward and the backward trajectory of a full window side by side.)
// with theta(t) = theta0 + omega (t - t0) from a phase origin, or the model's phases.
// Velocity-dependent forces need Verlet's implicit half kick: callers use VelocityVerlet then
// (supported() is false).
#pragma once

#include "runtime/model.hpp"
#include "runtime/state.hpp"

#include <cstddef>

namespace mdl::runtime::multiscale {

class MicroVerlet {
public:
    explicit MicroVerlet(const Model& model);
    explicit MicroVerlet(const Model&&) = delete; // keeps a pointer: the model must outlive it
    MicroVerlet(const MicroVerlet&) = delete;     // the kernels' arguments point into it
    MicroVerlet& operator=(const MicroVerlet&) = delete;

    // The fused loop applies: no velocity-dependent force, no first-order states, no
    // constraints, and a constant diagonal mass (it multiplies by M^-1 entry by entry).
    static bool supported(const Model& model);

    // Phases theta0 + omega (t - t0) (the asynchronous HMM's micro-integrations start at phase
    // 0 whatever the macro time), or the model's own theta(t).
    // With an origin the kernels see the time t + time_offset (ModelForce::set_phase_origin).
    void set_phase_origin(double t0, const Vector& theta0, double time_offset = 0.0);
    void use_model_phases() {
        phase_origin_set_ = false;
        time_offset_ = 0.0;
    }

    // Starts at (t, q, v) and evaluates the acceleration there (one force evaluation).
    void start(double t, const Vector& q, const Vector& v);
    // The start point, for the centre sample.
    const double* start_q() const { return start_.q.data(); }
    const double* start_v() const { return start_.v.data(); }
    const double* start_acceleration() const { return start_.a.data(); }

    // `steps` Verlet steps of size h (negative: backwards) from the start point;
    // sample(k, q, v, a) sees step k = 1..steps with the positions, velocities and
    // acceleration there (arrays of n doubles, valid during the call).
    template <class Sample>
    void sweep(double h, std::size_t steps, Sample&& sample) {
        Point& p = forward_;
        p.begin(*this);
        for (std::size_t k = 1; k <= steps; ++k) {
            p.step(*this, h);
            sample(k, p.q_data(), p.v_data(), p.a_data());
        }
        evaluations_ += steps;
    }

    // Both directions at once, `steps` steps of h forwards and backwards from the start point,
    // interleaved: the two micro-integrations are independent, so the processor overlaps one's
    // force evaluation with the other's (a single Verlet trajectory is a chain in which every
    // step waits for the previous force). Each trajectory is computed exactly as by sweep();
    // sample(k, direction, q, v, a) sees step k of the forward (direction +1) and then of the
    // backward (-1) trajectory.
    template <class Sample>
    void sweep_both(double h, std::size_t steps, Sample&& sample) {
        Point& f = forward_;
        Point& b = backward_;
        f.begin(*this);
        b.begin(*this);
        for (std::size_t k = 1; k <= steps; ++k) {
            f.kick_drift(h);
            b.kick_drift(-h);
            evaluate(f, f.t + h);
            evaluate(b, b.t - h);
            f.finish_kick(*this, h);
            b.finish_kick(*this, -h);
            sample(k, 1.0, f.q_data(), f.v_data(), f.a_data());
            sample(k, -1.0, b.q_data(), b.v_data(), b.a_data());
        }
        evaluations_ += 2 * steps;
    }

    // Force evaluations so far (start points and steps).
    std::size_t evaluations() const { return evaluations_; }

private:
    // A moving point of a micro-integration: the kernels' inputs and output.
    struct Point {
        double t = 0.0;
        Vector q, v, a, theta;
        mdl_kernel_args args{};

        const double* q_data() const { return q.data(); }
        const double* v_data() const { return v.data(); }
        const double* a_data() const { return a.data(); }

        void begin(const MicroVerlet& m) {
            t = m.start_.t;
            q = m.start_.q;
            v = m.start_.v;
            a = m.start_.a;
        }
        void kick_drift(double h) {
            const auto n = static_cast<std::size_t>(q.size());
            const double half = 0.5 * h;
            double* qd = q.data();
            double* vd = v.data();
            const double* ad = a.data();
            for (std::size_t i = 0; i < n; ++i) {
                vd[i] += half * ad[i];
                qd[i] += h * vd[i];
            }
        }
        void finish_kick(const MicroVerlet& m, double h) {
            const auto n = static_cast<std::size_t>(q.size());
            const double half = 0.5 * h;
            double* vd = v.data();
            double* ad = a.data();
            const double* inverse_mass = m.model_->inverse_mass().data();
            for (std::size_t i = 0; i < n; ++i) {
                ad[i] *= inverse_mass[i];
                vd[i] += half * ad[i];
            }
        }
        void step(MicroVerlet& m, double h) {
            kick_drift(h);
            m.evaluate(*this, t + h);
            finish_kick(m, h);
        }
    };

    // t <- t1 and a <- f(t1, q, v, theta(t1)), not yet divided by the mass.
    void evaluate(Point& p, double t1) {
        p.t = t1;
        p.args.t = t1 + time_offset_;
        if (has_phases_) {
            if (phase_origin_set_) {
                const auto r = static_cast<std::size_t>(p.theta.size());
                double* theta = p.theta.data();
                for (std::size_t j = 0; j < r; ++j) {
                    theta[j] = theta0_.data()[j] + omega_.data()[j] * (t1 - t_origin_);
                }
            } else {
                phase_kernel_(&p.args, p.theta.data());
            }
        }
        force_kernel_(&p.args, p.a.data());
    }
    void bind(Point& p); // sizes the point and points its args at its arrays

    const Model* model_;
    mdl_kernel force_kernel_;
    mdl_kernel phase_kernel_;
    bool has_phases_;
    bool phase_origin_set_ = false;
    double time_offset_ = 0.0;
    double t_origin_ = 0.0;
    Vector theta0_, omega_;
    Point start_;              // the start point, its acceleration M^-1 f
    Point forward_, backward_; // the moving points
    std::size_t evaluations_ = 0;
};

} // namespace mdl::runtime::multiscale
