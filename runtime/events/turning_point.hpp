// Crossings that enter and leave an event's condition within one step (grazing): the indicator
// g is negative at both ends of the step but reaches zero between them. Such a crossing has a
// local maximum of g inside the step, which shows in the indicator's rate g' at the ends: it
// turns from g' > 0 to g' < 0 (one turning point), or the cubic Hermite interpolant of g and
// g' at both ends has an interior maximum (a minimum and a maximum inside the step, g' of the
// same sign at both ends). The maximum is then found on the step's own interpolant (the
// method's dense output) by golden-section search, and the crossing is bracketed between the
// start of the step and the first point where g >= 0 (docs/events.md, "Detection").
#pragma once

#include <functional>
#include <optional>

namespace mdl::runtime {

// The interval of [0, 1] in which the cubic with p(0) = g0, p'(0) = h r0, p(1) = g1,
// p'(1) = h r1 has its interior local maximum, bounded by its interior local minimum or by the
// ends; nullopt when it has none inside.
struct CubicMaximum {
    double lo = 0.0, hi = 1.0; // where to search, fractions of the step
    double at = 0.5;           // the cubic's maximum
    double value = 0.0;        // its value
};
std::optional<CubicMaximum> cubic_interior_maximum(double g0, double r0, double g1, double r1,
                                                   double h);

// The first point of [a, b] at which g >= 0 found by golden-section search for the maximum of
// g on [a, b] (g unimodal there), stopping at the first such point; nullopt when the maximum,
// located to a relative width `tol` of the interval, stays negative. `found` receives g there.
std::optional<double> reach_nonnegative(const std::function<double(double)>& g, double a, double b,
                                        double tol, double& found);

} // namespace mdl::runtime
