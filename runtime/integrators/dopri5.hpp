// Dormand–Prince 5(4) (Dormand & Prince 1980; Hairer, Nørsett & Wanner, Solving ODEs I,
// Sect. II.5, Table 5.2) on the first-order form y = (q, v, x): seven stages, the last one
// at the new point (FSAL, six force evaluations per step), local extrapolation (the
// solution is the 5th-order one), error estimated against the embedded 4th-order solution:
//   err = sqrt(1/N sum_i (yerr_i / (atol + rtol max(|y0_i|, |y1_i|)))^2),
// and Hairer's continuous extension of order 4 for output between steps (dense output).
// try_step() accepts or rejects a step and proposes the next size (StepSizeController);
// step() takes a fixed step without control. integrate_adaptive() drives it. Constrained
// models with ConstrainedModelForce: index-1 accelerations, the state projected onto g = 0,
// G v = 0 after each accepted step and the next step started from the projected state's
// slope (eight evaluations per step instead of six).
#pragma once

#include "runtime/integrators/constrained_acceleration.hpp"
#include "runtime/integrators/first_order_form.hpp"
#include "runtime/integrators/step_size_control.hpp"
#include "runtime/integrators/stepper_support.hpp"

#include <cmath>
#include <concepts>
#include <cstddef>
#include <limits>
#include <string_view>

namespace mdl::runtime {

struct Dopri5Options {
    double rtol = 1e-6;
    double atol = 1e-9;
    StepSizeControl control = StepSizeControl::pi;
    StepSizeLimits limits = {};
    double initial_step = 0.0; // 0: Hairer's starting-step estimate
    double max_step = std::numeric_limits<double>::infinity();
    std::size_t max_steps = 0; // accepted plus rejected steps; 0 = no limit
};

template <AccelerationField Force = ModelForce>
class Dopri5 {
public:
    // A member template, so that the explicit instantiation for ConstrainedModelForce
    // (dopri5.cpp) does not instantiate it: clang 14 would, requires-clause or not.
    template <class F = Force>
    requires std::same_as<F, ModelForce> explicit Dopri5(const Model& model,
                                                         Dopri5Options options = {})
        : Dopri5(model, ModelForce(model), options) {}
    Dopri5(const Model& model, Force force, Dopri5Options options = {})
        : model_(&model), force_(std::move(force)), options_(options),
          controller_(options.control, 4, options.limits) {
        detail::require_constraint_handling<Force>(model, name());
        detail::require_rates<Force>(model, name());
        for (detail::Phase* p : {&k1_, &k2_, &k3_, &k4_, &k5_, &k6_, &k7_, &y_, &error_, &r1_, &r2_,
                                 &r3_, &r4_, &r5_}) {
            p->resize(model);
        }
    }

    // The stepper keeps a pointer to the model, which must outlive it.
    Dopri5(const Model&&, Dopri5Options = {}) = delete;
    Dopri5(const Model&&, Force, Dopri5Options = {}) = delete;

    std::string_view name() const { return "dopri5"; }
    const Model& model() const { return *model_; }
    Force& force() { return force_; }
    const Dopri5Options& options() const { return options_; }
    // A new initial value problem with these options (multiscale drivers that restart the
    // macro-integration after a projection): the step-size history and the FSAL slope are
    // dropped, the work vectors kept (no allocation).
    void restart(const Dopri5Options& options) {
        options_ = options;
        controller_ = StepSizeController(options.control, 4, options.limits);
        memory_.forget();
    }

    // One step of size h without error control (observed-order tests, fixed macro steps).
    void step(State& s, double h) {
        attempt(s, h);
        accept(s, h);
    }

    // One controlled attempt. Accepted: s advanced to t + h, h set to the proposed next size,
    // returns true. Rejected: s unchanged, h set to the smaller retry size, returns false.
    // Throws NumericalFailure(step_size_underflow) when h is negligible against t, naming
    // the variable whose error forced the step down (non_finite if it became NaN/Inf).
    bool try_step(State& s, double& h) {
        const double floor = 10.0 * std::numeric_limits<double>::epsilon() * std::abs(s.t);
        if (!(std::abs(h) > floor) || std::abs(h) < std::numeric_limits<double>::min()) {
            throw_underflow(s, h);
        }
        const double err = attempt(s, h);
        last_error_ = err;
        if (err <= 1.0) {
            const double next = controller_.accepted(h, err);
            accept(s, h);
            h = limit(next);
            ++accepted_;
            return true;
        }
        h = limit(controller_.rejected(h, err));
        ++rejected_;
        return false;
    }

    // Hairer's starting step (Solving ODEs I, Sect. II.4, "Starting step size"): h with
    // |h| ||y'|| ~ 0.01 ||y||, corrected so that h^5 max(||y'||, ||y''||) ~ 0.01, in the
    // tolerance-weighted norm; towards t_end.
    double initial_step(const State& s, double t_end) {
        if (options_.initial_step > 0.0) {
            return std::copysign(std::min(options_.initial_step, options_.max_step), t_end - s.t);
        }
        detail::evaluate_slope(force_, s.t, s.q, s.v, s.x, k1_);
        memory_.remember(s);
        double dnf = 0.0, dny = 0.0;
        for_each_component(s, [&](double y0, double, double f0) {
            const double sk = options_.atol + options_.rtol * std::abs(y0);
            dnf += (f0 / sk) * (f0 / sk);
            dny += (y0 / sk) * (y0 / sk);
        });
        double h = (dnf <= 1e-10 || dny <= 1e-10) ? 1e-6 : std::sqrt(dny / dnf) * 0.01;
        h = std::min(h, options_.max_step);
        h = std::copysign(h, t_end - s.t);
        // explicit Euler step, slope there
        y_.q = s.q + h * k1_.q;
        y_.v = s.v + h * k1_.v;
        y_.x = s.x + h * k1_.x;
        detail::evaluate_slope(force_, s.t + h, y_.q, y_.v, y_.x, k2_);
        double der2 = 0.0;
        for_each_component(s, [&](double y0, double f1, double f0) {
            const double sk = options_.atol + options_.rtol * std::abs(y0);
            der2 += ((f1 - f0) / sk) * ((f1 - f0) / sk);
        });
        der2 = std::sqrt(der2) / std::abs(h);
        const double der12 = std::max(der2, std::sqrt(dnf));
        const double h1 =
            der12 <= 1e-15 ? std::max(1e-6, std::abs(h) * 1e-3) : std::pow(0.01 / der12, 0.2);
        return std::copysign(std::min({100.0 * std::abs(h), h1, options_.max_step}), t_end - s.t);
    }

    // Dense output: the state at t within the last step [t_n, t_{n+1}] (Hairer's contd5).
    void interpolate(double t, State& out) const {
        const double theta = (t - step_begin_) / step_size_;
        const double theta1 = 1.0 - theta;
        const auto eval = [&](const Vector& a, const Vector& b, const Vector& c, const Vector& d,
                              const Vector& e, Vector& y) {
            y = a + theta * (b + theta1 * (c + theta * (d + theta1 * e)));
        };
        eval(r1_.q, r2_.q, r3_.q, r4_.q, r5_.q, out.q);
        eval(r1_.v, r2_.v, r3_.v, r4_.v, r5_.v, out.v);
        eval(r1_.x, r2_.x, r3_.x, r4_.x, r5_.x, out.x);
        out.t = t;
    }

    double step_begin() const { return step_begin_; }
    double step_end() const { return step_begin_ + step_size_; }
    double last_error() const { return last_error_; }
    std::size_t accepted_steps() const { return accepted_; }
    std::size_t rejected_steps() const { return rejected_; }

private:
    // Butcher tableau (Hairer's dopri5.f)
    static constexpr double c2 = 0.2, c3 = 0.3, c4 = 0.8, c5 = 8.0 / 9.0;
    static constexpr double a21 = 0.2, a31 = 3.0 / 40.0, a32 = 9.0 / 40.0, a41 = 44.0 / 45.0,
                            a42 = -56.0 / 15.0, a43 = 32.0 / 9.0, a51 = 19372.0 / 6561.0,
                            a52 = -25360.0 / 2187.0, a53 = 64448.0 / 6561.0, a54 = -212.0 / 729.0,
                            a61 = 9017.0 / 3168.0, a62 = -355.0 / 33.0, a63 = 46732.0 / 5247.0,
                            a64 = 49.0 / 176.0, a65 = -5103.0 / 18656.0, a71 = 35.0 / 384.0,
                            a73 = 500.0 / 1113.0, a74 = 125.0 / 192.0, a75 = -2187.0 / 6784.0,
                            a76 = 11.0 / 84.0;
    // error coefficients: 5th-order weights minus the embedded 4th-order ones
    static constexpr double e1 = 71.0 / 57600.0, e3 = -71.0 / 16695.0, e4 = 71.0 / 1920.0,
                            e5 = -17253.0 / 339200.0, e6 = 22.0 / 525.0, e7 = -1.0 / 40.0;
    // continuous extension
    static constexpr double d1 = -12715105075.0 / 11282082432.0, d3 = 87487479700.0 / 32700410799.0,
                            d4 = -10690763975.0 / 1880347072.0,
                            d5 = 701980252875.0 / 199316789632.0, d6 = -1453857185.0 / 822651844.0,
                            d7 = 69997945.0 / 29380423.0;

    // f(y0 component, y1 component, slope component) over q, v, x of s and y_/k slopes
    template <class F>
    void for_each_component(const State& s, F&& f) const {
        for (Eigen::Index i = 0; i < s.q.size(); ++i) {
            f(s.q[i], k2_.q[i], k1_.q[i]);
        }
        for (Eigen::Index i = 0; i < s.v.size(); ++i) {
            f(s.v[i], k2_.v[i], k1_.v[i]);
        }
        for (Eigen::Index i = 0; i < s.x.size(); ++i) {
            f(s.x[i], k2_.x[i], k1_.x[i]);
        }
    }

    // Stages 2..7 from s; y_ = the 5th-order solution, error_ = its error estimate.
    // Returns the weighted RMS error (NaN when a value is not finite).
    double attempt(const State& s, double h) {
        if (!memory_.continues(s)) {
            detail::evaluate_slope(force_, s.t, s.q, s.v, s.x, k1_);
            memory_.remember(s);
        }
        const double t = s.t;
        combine(s, h,
                [](const Vector& k1, const Vector&, const Vector&, const Vector&, const Vector&,
                   const Vector&) { return a21 * k1; });
        detail::evaluate_slope(force_, t + c2 * h, y_.q, y_.v, y_.x, k2_);
        combine(s, h,
                [](const Vector& k1, const Vector& k2, const Vector&, const Vector&, const Vector&,
                   const Vector&) { return a31 * k1 + a32 * k2; });
        detail::evaluate_slope(force_, t + c3 * h, y_.q, y_.v, y_.x, k3_);
        combine(s, h,
                [](const Vector& k1, const Vector& k2, const Vector& k3, const Vector&,
                   const Vector&, const Vector&) { return a41 * k1 + a42 * k2 + a43 * k3; });
        detail::evaluate_slope(force_, t + c4 * h, y_.q, y_.v, y_.x, k4_);
        combine(s, h,
                [](const Vector& k1, const Vector& k2, const Vector& k3, const Vector& k4,
                   const Vector&,
                   const Vector&) { return a51 * k1 + a52 * k2 + a53 * k3 + a54 * k4; });
        detail::evaluate_slope(force_, t + c5 * h, y_.q, y_.v, y_.x, k5_);
        combine(s, h,
                [](const Vector& k1, const Vector& k2, const Vector& k3, const Vector& k4,
                   const Vector& k5,
                   const Vector&) { return a61 * k1 + a62 * k2 + a63 * k3 + a64 * k4 + a65 * k5; });
        detail::evaluate_slope(force_, t + h, y_.q, y_.v, y_.x, k6_);
        combine(s, h,
                [](const Vector& k1, const Vector&, const Vector& k3, const Vector& k4,
                   const Vector& k5, const Vector& k6) {
                    return a71 * k1 + a73 * k3 + a74 * k4 + a75 * k5 + a76 * k6;
                });
        detail::evaluate_slope(force_, t + h, y_.q, y_.v, y_.x, k7_);

        double sum = 0.0;
        Eigen::Index count = 0;
        const auto part = [&](const Vector& y0, const Vector& y1, const Vector& k1,
                              const Vector& k3, const Vector& k4, const Vector& k5,
                              const Vector& k6, const Vector& k7, Vector& err) {
            err = h * (e1 * k1 + e3 * k3 + e4 * k4 + e5 * k5 + e6 * k6 + e7 * k7);
            for (Eigen::Index i = 0; i < err.size(); ++i) {
                const double sk =
                    options_.atol + options_.rtol * std::max(std::abs(y0[i]), std::abs(y1[i]));
                err[i] /= sk; // weighted error, kept for the underflow message
                sum += err[i] * err[i];
            }
            count += err.size();
        };
        part(s.q, y_.q, k1_.q, k3_.q, k4_.q, k5_.q, k6_.q, k7_.q, error_.q);
        part(s.v, y_.v, k1_.v, k3_.v, k4_.v, k5_.v, k6_.v, k7_.v, error_.v);
        part(s.x, y_.x, k1_.x, k3_.x, k4_.x, k5_.x, k6_.x, k7_.x, error_.x);
        return std::sqrt(sum / static_cast<double>(count));
    }

    // y_ = s + h * combination(k1..k6), part by part
    template <class C>
    void combine(const State& s, double h, C&& c) {
        y_.q = s.q + h * c(k1_.q, k2_.q, k3_.q, k4_.q, k5_.q, k6_.q);
        y_.v = s.v + h * c(k1_.v, k2_.v, k3_.v, k4_.v, k5_.v, k6_.v);
        y_.x = s.x + h * c(k1_.x, k2_.x, k3_.x, k4_.x, k5_.x, k6_.x);
    }

    // Prepares dense output over [t, t + h], moves s to the new point, k7 becomes k1 (FSAL).
    void accept(State& s, double h) {
        const auto part = [&](const Vector& y0, const Vector& y1, const Vector& k1,
                              const Vector& k3, const Vector& k4, const Vector& k5,
                              const Vector& k6, const Vector& k7, Vector& r1, Vector& r2,
                              Vector& r3, Vector& r4, Vector& r5) {
            r1 = y0;
            r2 = y1 - y0;
            r3 = h * k1 - r2;
            r4 = r2 - h * k7 - r3;
            r5 = h * (d1 * k1 + d3 * k3 + d4 * k4 + d5 * k5 + d6 * k6 + d7 * k7);
        };
        part(s.q, y_.q, k1_.q, k3_.q, k4_.q, k5_.q, k6_.q, k7_.q, r1_.q, r2_.q, r3_.q, r4_.q,
             r5_.q);
        part(s.v, y_.v, k1_.v, k3_.v, k4_.v, k5_.v, k6_.v, k7_.v, r1_.v, r2_.v, r3_.v, r4_.v,
             r5_.v);
        part(s.x, y_.x, k1_.x, k3_.x, k4_.x, k5_.x, k6_.x, k7_.x, r1_.x, r2_.x, r3_.x, r4_.x,
             r5_.x);
        step_begin_ = s.t;
        step_size_ = h;
        s.q = y_.q;
        s.v = y_.v;
        s.x = y_.x;
        s.t += h;
        std::swap(k1_, k7_);
        if constexpr (ProjectingField<Force>) {
            // the projected state starts the next step: its slope replaces the FSAL one
            detail::finish_step(force_, s);
            detail::evaluate_slope(force_, s.t, s.q, s.v, s.x, k1_);
        }
        memory_.remember(s);
    }

    double limit(double h) const {
        return std::abs(h) > options_.max_step ? std::copysign(options_.max_step, h) : h;
    }

    [[noreturn]] void throw_underflow(const State& s, double h) const;

    const Model* model_;
    Force force_;
    Dopri5Options options_;
    StepSizeController controller_;
    detail::Phase k1_, k2_, k3_, k4_, k5_, k6_, k7_, y_, error_;
    detail::Phase r1_, r2_, r3_, r4_, r5_; // dense output coefficients
    double step_begin_ = 0.0, step_size_ = 0.0;
    double last_error_ = 0.0;
    std::size_t accepted_ = 0, rejected_ = 0;
    detail::StepMemory memory_;
};

namespace detail {
// The variable with the largest weighted error of the last attempt, for messages.
[[noreturn]] void throw_dopri5_underflow(const Model& model, std::string_view method,
                                         const State& s, double h, const Phase& weighted_error);
} // namespace detail

template <AccelerationField Force>
void Dopri5<Force>::throw_underflow(const State& s, double h) const {
    detail::throw_dopri5_underflow(*model_, name(), s, h, error_);
}

extern template class Dopri5<ModelForce>;
extern template class Dopri5<ConstrainedModelForce>;

} // namespace mdl::runtime
