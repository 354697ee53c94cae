#include "runtime/multiscale/micro_verlet.hpp"

#include <stdexcept>

namespace mdl::runtime::multiscale {

bool MicroVerlet::supported(const Model& model) {
    return !model.velocity_dependent() && model.states() == 0 && !model.constrained() &&
           model.mass_constant_diagonal();
}

MicroVerlet::MicroVerlet(const Model& model)
    : model_(&model), force_kernel_(model.kernels().force), phase_kernel_(model.kernels().phase),
      has_phases_(model.vibrations() > 0), theta0_(Vector::Zero(model.vibrations())),
      omega_(theta0_) {
    if (!supported(model)) {
        throw std::logic_error("MicroVerlet: the model's force depends on the velocity, or it "
                               "has first-order states or constraints");
    }
    if (force_kernel_ == nullptr) {
        throw std::logic_error("MicroVerlet: the model has no positions");
    }
    bind(start_);
    bind(forward_);
    bind(backward_);
}

void MicroVerlet::bind(Point& p) {
    p.q = Vector::Zero(model_->positions());
    p.v = p.q;
    p.a = p.q;
    p.theta = Vector::Zero(model_->vibrations());
    p.args.q = p.q.data();
    p.args.v = p.v.data();
    p.args.x = nullptr;
    p.args.theta = has_phases_ ? p.theta.data() : nullptr;
    p.args.p = model_->parameters().empty() ? nullptr : model_->parameters().data();
}

void MicroVerlet::set_phase_origin(double t0, const Vector& theta0, double time_offset) {
    model_->phase_rates(omega_); // parameters may have changed since construction
    t_origin_ = t0;
    time_offset_ = time_offset;
    theta0_ = theta0;
    phase_origin_set_ = true;
}

void MicroVerlet::start(double t, const Vector& q, const Vector& v) {
    // parameters may have changed since construction (Model::set_parameter)
    const double* parameters = model_->parameters().empty() ? nullptr : model_->parameters().data();
    start_.args.p = forward_.args.p = backward_.args.p = parameters;
    start_.q = q;
    start_.v = v;
    evaluate(start_, t);
    start_.a.array() *= model_->inverse_mass().array();
    ++evaluations_;
}

} // namespace mdl::runtime::multiscale
