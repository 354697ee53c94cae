#include "runtime/events/turning_point.hpp"

#include <algorithm>
#include <cmath>

namespace mdl::runtime {

std::optional<CubicMaximum> cubic_interior_maximum(double g0, double r0, double g1, double r1,
                                                   double h) {
    // p(s) = g0 + d0 s + c2 s^2 + c3 s^3 with d0 = h r0, d1 = h r1
    const double d0 = h * r0, d1 = h * r1;
    const double c2 = 3.0 * (g1 - g0) - 2.0 * d0 - d1;
    const double c3 = 2.0 * (g0 - g1) + d0 + d1;
    // p'(s) = d0 + 2 c2 s + 3 c3 s^2 = 0
    double roots[2];
    int count = 0;
    const double A = 3.0 * c3, B = 2.0 * c2, C = d0;
    const double scale = std::max({std::abs(A), std::abs(B), std::abs(C)});
    if (scale == 0.0 || !std::isfinite(scale)) {
        return std::nullopt;
    }
    if (std::abs(A) <= 1e-14 * scale) {
        if (B != 0.0) {
            roots[count++] = -C / B;
        }
    } else {
        const double disc = B * B - 4.0 * A * C;
        if (disc >= 0.0) {
            // the numerically stable pair of roots
            const double q = -0.5 * (B + std::copysign(std::sqrt(disc), B));
            roots[count++] = q / A;
            if (q != 0.0) {
                roots[count++] = C / q;
            }
        }
    }
    const auto p = [&](double s) {
        return g0 + s * (d0 + s * (c2 + s * c3));
    };
    std::optional<CubicMaximum> best;
    for (int i = 0; i < count; ++i) {
        const double s = roots[i];
        // p''(s) = 2 c2 + 6 c3 s < 0 at a maximum
        if (!(s > 0.0 && s < 1.0) || 2.0 * c2 + 6.0 * c3 * s >= 0.0) {
            continue;
        }
        CubicMaximum m{0.0, 1.0, s, p(s)};
        for (int j = 0; j < count; ++j) {
            const double other = roots[j];
            if (j == i || !(other > 0.0 && other < 1.0)) {
                continue;
            }
            (other < s ? m.lo : m.hi) = other; // the interior minimum bounds the search
        }
        best = m;
    }
    return best;
}

std::optional<double> reach_nonnegative(const std::function<double(double)>& g, double a, double b,
                                        double tol, double& found) {
    const double ratio = 0.5 * (std::sqrt(5.0) - 1.0); // 0.618...
    const double width = b - a;
    double x1 = b - ratio * (b - a), x2 = a + ratio * (b - a);
    double f1 = g(x1);
    if (f1 >= 0.0) {
        found = f1;
        return x1;
    }
    double f2 = g(x2);
    if (f2 >= 0.0) {
        found = f2;
        return x2;
    }
    for (int iteration = 0; iteration < 200 && b - a > tol * width; ++iteration) {
        if (f1 >= f2) { // the maximum is in [a, x2]
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - ratio * (b - a);
            f1 = g(x1);
            if (f1 >= 0.0) {
                found = f1;
                return x1;
            }
        } else { // in [x1, b]
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + ratio * (b - a);
            f2 = g(x2);
            if (f2 >= 0.0) {
                found = f2;
                return x2;
            }
        }
    }
    found = std::max(f1, f2);
    return std::nullopt;
}

} // namespace mdl::runtime
