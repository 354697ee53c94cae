#include "runtime/events/graze_step_limit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mdl::runtime {

double cubic_hermite(double g0, double r0, double g1, double r1, double h, double s) {
    const double d0 = h * r0, d1 = h * r1;
    const double c2 = 3.0 * (g1 - g0) - 2.0 * d0 - d1;
    const double c3 = 2.0 * (g0 - g1) + d0 + d1;
    return g0 + s * (d0 + s * (c2 + s * c3));
}

double hermite_error_constant(double g0, double r0, double g1, double r1, double h, double s,
                              double inside) {
    if (!(h > 0.0) || !(s > 0.0 && s < 1.0)) {
        return 0.0;
    }
    const double p = cubic_hermite(g0, r0, g1, r1, h, s);
    // the indicator's and the cubic's round-off: differences below it are not an error
    const double scale = std::max(
        {std::abs(g0), std::abs(g1), std::abs(inside), std::abs(h * r0), std::abs(h * r1)});
    const double noise = 64.0 * std::numeric_limits<double>::epsilon() * scale;
    const double difference = std::abs(inside - p) - noise;
    if (!(difference > 0.0)) {
        return 0.0;
    }
    const double w = s * (1.0 - s) * h * h;
    return difference / (w * w);
}

namespace {

// The maximum of Q(tau) = g + r tau + c tau^2 / 2 over [0, h]: where.
double predicted_maximum(const GrazePrediction& p, double h) {
    const auto q = [&](double tau) {
        return p.g + tau * (p.rate + 0.5 * p.curvature * tau);
    };
    double best = 0.0;
    if (q(h) > q(best)) {
        best = h;
    }
    if (p.curvature < 0.0) {
        const double vertex = -p.rate / p.curvature;
        if (vertex > 0.0 && vertex < h && q(vertex) > q(best)) {
            best = vertex;
        }
    }
    return best;
}

bool safe(const GrazePrediction& p, double h, double theta) {
    const auto q = [&](double tau) {
        return p.g + tau * (p.rate + 0.5 * p.curvature * tau);
    };
    const auto error = [&](double tau) {
        const double w = tau * (h - tau);
        return p.error * w * w;
    };
    for (const double tau : {predicted_maximum(p, h), 0.5 * h}) {
        if (error(tau) > theta * std::abs(q(tau))) {
            return false;
        }
    }
    return true;
}

} // namespace

double graze_step_limit(const GrazePrediction& p, double proposed, double theta, int halvings) {
    if (!(p.error > 0.0) || !(p.g < 0.0) || !(proposed > 0.0) || !std::isfinite(p.error) ||
        !std::isfinite(p.rate) || !std::isfinite(p.curvature)) {
        return proposed;
    }
    double h = proposed;
    for (int i = 0; i < halvings && !safe(p, h, theta); ++i) {
        h *= 0.5;
    }
    return h;
}

} // namespace mdl::runtime
