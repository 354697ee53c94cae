// The Runge–Kutta methods see a model as the first-order system y = (q, v, x),
// y' = (v, a(t, q, v, x), rates(t, q, v, x)); the three parts are kept as separate vectors
// so that the force is evaluated on contiguous positions and velocities without copies.
#pragma once

#include "runtime/integrators/stepper_support.hpp"
#include "runtime/model.hpp"
#include "runtime/model_force.hpp"
#include "runtime/state.hpp"

#include <stdexcept>
#include <string>
#include <string_view>

namespace mdl::runtime {

// A field for constrained models (ConstrainedModelForce): the accelerations keep g'' = 0, and
// after every step the method hands it the new state to project onto g = 0, G v = 0.
template <class F>
concept ProjectingField = requires(F& f, State& s) {
    f.project(s);
};

} // namespace mdl::runtime

namespace mdl::runtime::detail {

// Constructors: a field that does not project integrates unconstrained models only.
template <AccelerationField Force>
void require_constraint_handling(const Model& model, std::string_view method) {
    if constexpr (!ProjectingField<Force>) {
        require_unconstrained(model, method);
    }
}

// After an accepted step.
template <AccelerationField Force>
void finish_step(Force& force, State& s) {
    if constexpr (ProjectingField<Force>) {
        force.project(s);
    }
}

// A point (q, v, x) or a slope (dq, dv, dx) = (v, a, x') of the first-order system.
struct Phase {
    Vector q, v, x;
    void resize(const Model& model) {
        q = Vector::Zero(model.positions());
        v = Vector::Zero(model.positions());
        x = Vector::Zero(model.states());
    }
};

template <AccelerationField Force>
void require_rates(const Model& model, std::string_view method) {
    if constexpr (!RatesField<Force>) {
        if (model.states() > 0) {
            throw std::invalid_argument(std::string(method) +
                                        ": this force field has no rates for the model's "
                                        "first-order states");
        }
    }
}

// slope = y'(t, y)
template <AccelerationField Force>
void evaluate_slope(Force& force, double t, const Vector& q, const Vector& v, const Vector& x,
                    Phase& slope) {
    slope.q = v;
    force.acceleration(t, q, v, x, slope.v);
    if constexpr (RatesField<Force>) {
        if (x.size() > 0) {
            force.rates(t, q, v, x, slope.x);
        }
    }
}

} // namespace mdl::runtime::detail
