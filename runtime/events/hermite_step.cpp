#include "runtime/events/hermite_step.hpp"

namespace mdl::runtime {

HermiteStep::HermiteStep(const Model& model)
    : model_(&model), a_(model.zero_state()), b_(model.zero_state()),
      acc_a_(Vector::Zero(model.positions())), acc_b_(acc_a_),
      xdot_a_(Vector::Zero(model.states())), xdot_b_(xdot_a_),
      theta_(Vector::Zero(model.vibrations())) {}

void HermiteStep::slope(const State& s, Vector& acc, Vector& xdot) {
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
    // the cubic Hermite basis on [0, 1]
    const double h00 = (1.0 + 2.0 * s) * (1.0 - s) * (1.0 - s);
    const double h10 = s * (1.0 - s) * (1.0 - s);
    const double h01 = s * s * (3.0 - 2.0 * s);
    const double h11 = s * s * (s - 1.0);
    out.t = t;
    out.q = h00 * a_.q + h10 * h * a_.v + h01 * b_.q + h11 * h * b_.v;
    out.v = h00 * a_.v + h10 * h * acc_a_ + h01 * b_.v + h11 * h * acc_b_;
    out.x = h00 * a_.x + h10 * h * xdot_a_ + h01 * b_.x + h11 * h * xdot_b_;
    out.lambda = b_.lambda;
}

} // namespace mdl::runtime
