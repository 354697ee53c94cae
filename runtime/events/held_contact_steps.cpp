#include "runtime/events/held_contact_steps.hpp"

#include "runtime/integrate.hpp"

#include <memory>

namespace mdl::runtime {

MotionAcceleration constrained_motion(const Model& model, std::string_view method) {
    auto force = std::make_shared<ConstrainedModelForce>(model, SolverOptions{}, method);
    return [force](const State& s, Vector& a, Vector& xdot) {
        force->acceleration(s.t, s.q, s.v, s.x, a);
        if (s.x.size() > 0) {
            force->rates(s.t, s.q, s.v, s.x, xdot);
        }
    };
}

HeldContactSteps::HeldContactSteps(const Model& model, std::string_view method)
    : model_(&model), method_(method), hermite_(model) {
    if (model.constrained()) {
        constrained_.emplace(model, ConstrainedModelForce(model, SolverOptions{}, method));
        hermite_.set_acceleration(constrained_motion(model, method));
    } else {
        free_.emplace(model);
    }
    at_ = [this](double t, State& out) {
        hermite_(t, out);
    };
}

bool HeldContactSteps::step(const State& from, double span, double t_end, State& end) {
    const double h = 1e-3 * span;
    const bool last = t_end - from.t <= 1.01 * h;
    end = from;
    try {
        if (constrained_) {
            constrained_->step(end, last ? t_end - from.t : h);
        } else {
            free_->step(end, last ? t_end - from.t : h);
        }
    } catch (const NumericalFailure& failure) {
        throw failure.in_method(method_);
    }
    end.t = last ? t_end : from.t + h;
    ++steps_;
    require_finite(*model_, end, method_);
    hermite_.fit(from, end);
    return last;
}

} // namespace mdl::runtime
