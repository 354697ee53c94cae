// The Runge–Kutta methods see a model as the first-order system y = (q, v, x),
// y' = (v, a(t, q, v, x), rates(t, q, v, x)); the three parts are kept as separate vectors
// so that the force is evaluated on contiguous positions and velocities without copies.
#pragma once

#include "runtime/model.hpp"
#include "runtime/model_force.hpp"

#include <stdexcept>
#include <string>
#include <string_view>

namespace mdl::runtime::detail {

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
