#include "runtime/multiscale/filters.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace mdl::runtime::multiscale {

namespace {

double exponential_shape(double xi) {
    const double d = xi * xi - 1.0;
    return d < 0.0 ? std::exp(5.0 / d) : 0.0;
}

// B3(s) = (B * B * B)(s), B the box of unit width and mass, s in periods; K(xi) = 3/2 B3(3 xi/2)
// on the three-period window.
double spline_kernel(double xi) {
    const double s = 1.5 * std::abs(xi);
    if (s <= 0.5) {
        return 1.5 * (0.75 - s * s);
    }
    if (s < 1.5) {
        return 0.75 * (1.5 - s) * (1.5 - s);
    }
    return 0.0;
}

} // namespace

std::string_view to_string(FilterKind kind) {
    switch (kind) {
    case FilterKind::exponential:
        return "exp";
    case FilterKind::simple:
        return "simple";
    case FilterKind::spline:
        return "spline";
    }
    return "simple";
}

FilterKind parse_filter_kind(std::string_view name) {
    if (name == "exp" || name == "exponential") {
        return FilterKind::exponential;
    }
    if (name == "simple") {
        return FilterKind::simple;
    }
    if (name == "spline") {
        return FilterKind::spline;
    }
    throw std::invalid_argument("unknown filter '" + std::string(name) +
                                "' (expected exp, simple or spline)");
}

double exponential_kernel_constant() {
    // The integrand is smooth with every derivative vanishing at +-1: the trapezoidal rule
    // converges faster than any power; 2^16 panels give the constant to round-off.
    static const double c = [] {
        const int panels = 1 << 16;
        const double dx = 2.0 / panels;
        double sum = 0.0;
        for (int i = 1; i < panels; ++i) {
            sum += exponential_shape(-1.0 + i * dx);
        }
        return 1.0 / (sum * dx);
    }();
    return c;
}

Filter Filter::exponential(double window_periods) {
    if (!(window_periods > 0.0) || !std::isfinite(window_periods)) {
        throw std::invalid_argument("the exponential filter's window must be a positive number "
                                    "of periods");
    }
    return Filter(FilterKind::exponential, window_periods, exponential_kernel_constant());
}

Filter Filter::simple() {
    return Filter(FilterKind::simple, 1.0, 0.5);
}

Filter Filter::spline() {
    return Filter(FilterKind::spline, 3.0, spline_kernel(0.0));
}

Filter Filter::make(FilterKind kind, double window_periods) {
    if (kind == FilterKind::spline) {
        if (window_periods > 0.0 && window_periods != 3.0) {
            throw std::invalid_argument("the spline filter averages over exactly three periods "
                                        "(--window 3)");
        }
        return spline();
    }
    if (kind == FilterKind::simple) {
        if (window_periods > 0.0 && window_periods != 1.0) {
            throw std::invalid_argument("simple filtering averages over exactly one period "
                                        "(--window 1)");
        }
        return simple();
    }
    return exponential(window_periods > 0.0 ? window_periods : 40.0);
}

double Filter::kernel(double xi) const {
    if (kind_ == FilterKind::spline) {
        return spline_kernel(xi);
    }
    if (!(std::abs(xi) < 1.0)) {
        return kind_ == FilterKind::simple && std::abs(xi) == 1.0 ? 0.5 : 0.0;
    }
    return kind_ == FilterKind::simple ? 0.5 : c_ * exponential_shape(xi);
}

std::vector<double> Filter::half_window_weights(std::size_t n) const {
    if (n == 0) {
        throw std::invalid_argument("a filter window needs at least one micro step");
    }
    // K_eta(t_k) h = (2/eta) K(k/n) (eta/(2n)) = K(k/n)/n; doubled for the half window
    std::vector<double> w(n + 1);
    const double nn = static_cast<double>(n);
    for (std::size_t k = 0; k <= n; ++k) {
        const double trapezoid = (k == 0 || k == n) ? 0.5 : 1.0;
        w[k] = 2.0 * trapezoid * kernel(static_cast<double>(k) / nn) / nn;
    }
    return w;
}

std::vector<double> Filter::full_window_weights(std::size_t n) const {
    if (n == 0) {
        throw std::invalid_argument("a filter window needs at least one micro step");
    }
    std::vector<double> w(2 * n + 1);
    const double nn = static_cast<double>(n);
    for (std::size_t i = 0; i <= 2 * n; ++i) {
        const double k = static_cast<double>(i) - nn;
        const double trapezoid = (i == 0 || i == 2 * n) ? 0.5 : 1.0;
        w[i] = trapezoid * kernel(k / nn) / nn;
    }
    return w;
}

} // namespace mdl::runtime::multiscale
