// The step limit near a graze (docs/events.md, "The step near a graze"): a crossing that
// enters and leaves an event's condition within a step is seen from the cubic Hermite
// interpolant of the indicator g and its rate g' at the step's ends (turning_point.hpp). That
// cubic differs from g along the step by its interpolation error, which vanishes at the ends
// and is largest inside:
//     g(ta + tau) - p(tau) ~ K tau^2 (h - tau)^2,    K = |g''''| / 24
// (the remainder of Hermite interpolation). Where g is near zero with a small rate, a maximum
// of g above zero can hide below a cubic that stays negative. The tracker measures K on each
// step (the cubic of the step's ends against g on the step's own interpolant, at interior
// points), and before the next step predicts g from the end of the last one by its Taylor
// polynomial Q(tau) = g + g' tau + g'' tau^2 / 2, g'' from the rates at both ends of the last
// step. The next step h is limited so that the error stays below a fraction `theta` of the
// distance of the prediction from zero where the error can hide a crossing: at the predicted
// maximum tau* of Q over [0, h] and at the middle of the step,
//     K tau^2 (h - tau)^2 <= theta |Q(tau)|,
// halving h until it holds.
#pragma once

namespace mdl::runtime {

// The value at s in [0, 1] of the cubic with p(0) = g0, p'(0) = h r0, p(1) = g1, p'(1) = h r1.
double cubic_hermite(double g0, double r0, double g1, double r1, double h, double s);

// The interpolation error constant K of the step [ta, ta + h] from g on the step's
// interpolant at the fraction s of the step (`inside`) and the cubic of the ends:
// |inside - p(s)| / (s^2 (1 - s)^2 h^4), less the indicator's round-off; 0 when none shows.
double hermite_error_constant(double g0, double r0, double g1, double r1, double h, double s,
                              double inside);

struct GrazePrediction {
    double g = 0.0;         // the indicator at the start of the next step (< 0)
    double rate = 0.0;      // its rate there
    double curvature = 0.0; // its second derivative there, from the last step's rates
    double error = 0.0;     // K, the last step's interpolation error constant
};

// The longest step not above `proposed` that keeps the interpolation error below theta times
// the predicted distance from zero (above), after at most `halvings` halvings.
double graze_step_limit(const GrazePrediction& p, double proposed, double theta = 0.25,
                        int halvings = 30);

} // namespace mdl::runtime
