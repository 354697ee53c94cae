#include "runtime/events/hermite_step.hpp"

namespace mdl::runtime {

HermiteStep::HermiteStep(const Model& model)
    : model_(&model), a_(model.zero_state()), b_(model.zero_state()),
      acc_a_(Vector::Zero(model.positions())), acc_b_(acc_a_),
      xdot_a_(Vector::Zero(model.states())), xdot_b_(xdot_a_),
      theta_(Vector::Zero(model.vibrations())) {}

void HermiteStep::slope(const State& s, Vector& acc, Vector& xdot) {
    if (acceleration_) {
        acceleration_(s, acc, xdot);
        return;
    }
    model_->phases(s.t, theta_);
    if (s.q.size() > 0) {
        model_->acceleration(s.t, s.q, s.v, s.x, theta_, acc);
    }
    if (s.x.size() > 0) {
        model_->rates(s.t, s.q, s.v, s.x, theta_, xdot);
    }
}

void HermiteStep::fit(const State& a, const State& b) {
    a_ = a;
    b_ = b;
    slope(a_, acc_a_, xdot_a_);
    slope(b_, acc_b_, xdot_b_);
}

void HermiteStep::operator()(double t, State& out) const {
    const double h = b_.t - a_.t;
    const double s = h != 0.0 ? (t - a_.t) / h : 0.0;
    // the quintic Hermite basis on [0, 1] for q (values, first and second derivatives at
    // both ends) and its derivative for v
    const double s2 = s * s, s3 = s2 * s, s4 = s3 * s, s5 = s4 * s;
    const double p0 = 1.0 - 10.0 * s3 + 15.0 * s4 - 6.0 * s5, p1 = 1.0 - p0;
    const double d0 = s - 6.0 * s3 + 8.0 * s4 - 3.0 * s5;
    const double d1 = -4.0 * s3 + 7.0 * s4 - 3.0 * s5;
    const double c0 = 0.5 * s2 - 1.5 * s3 + 1.5 * s4 - 0.5 * s5;
    const double c1 = 0.5 * s3 - s4 + 0.5 * s5;
    const double dp1 = 30.0 * s2 - 60.0 * s3 + 30.0 * s4; // d/ds of p1 (p0' = -p1')
    const double dd0 = 1.0 - 18.0 * s2 + 32.0 * s3 - 15.0 * s4;
    const double dd1 = -12.0 * s2 + 28.0 * s3 - 15.0 * s4;
    const double dc0 = s - 4.5 * s2 + 6.0 * s3 - 2.5 * s4;
    const double dc1 = 1.5 * s2 - 4.0 * s3 + 2.5 * s4;
    out.t = t;
    out.q =
        p0 * a_.q + p1 * b_.q + h * (d0 * a_.v + d1 * b_.v) + h * h * (c0 * acc_a_ + c1 * acc_b_);
    if (h != 0.0) {
        out.v =
            (dp1 / h) * (b_.q - a_.q) + dd0 * a_.v + dd1 * b_.v + h * (dc0 * acc_a_ + dc1 * acc_b_);
    } else {
        out.v = a_.v;
    }
    // the cubic Hermite basis on [0, 1] for x
    const double h00 = (1.0 + 2.0 * s) * (1.0 - s) * (1.0 - s);
    const double h10 = s * (1.0 - s) * (1.0 - s);
    const double h01 = s * s * (3.0 - 2.0 * s);
    const double h11 = s * s * (s - 1.0);
    out.x = h00 * a_.x + h10 * h * xdot_a_ + h01 * b_.x + h11 * h * xdot_b_;
    out.lambda = b_.lambda;
}

} // namespace mdl::runtime
