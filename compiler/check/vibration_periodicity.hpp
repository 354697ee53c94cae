// Whether a vibration's value is 2 pi-periodic in its phase, as every multiscale method
// assumes (it averages over one fast period; docs/language.md, `vibration`).
//
// Proved symbolically where the form shows it: an expression free of the phase; sin, cos or
// tan of an integer multiple of the phase plus a constant (k theta + c, k a whole number with
// the parameters' default values); and anything built from periodic parts by arithmetic and
// functions (cos(theta)^2, exp(sin(theta)), sqrt(2 + cos(3*theta))). Otherwise checked
// numerically: f(theta + 2 pi) == f(theta) at eight irregular phases, to 1e-9 of the largest
// |f| seen. `= theta`, `= cos(theta/2)` and `= sin(theta)*theta` fail both.
#pragma once

#include "check/checked_model.hpp"

#include <span>

namespace mdl::check {

struct Periodicity {
    bool periodic = true;
    bool proved = true; // symbolically; false: by the numeric check (or it failed)
    // where the numeric check failed: f(phase) and f(phase + 2 pi)
    double phase = 0.0, value = 0.0, shifted = 0.0;
};

// `value` is a vibration's value in terms of Expr::Kind::phase of vibration `index`; the
// parameters at their default values.
Periodicity vibration_periodicity(const Expr& value, std::uint32_t index,
                                  std::span<const double> parameters);

} // namespace mdl::check
