// Filters (kernels) of the heterogeneous multiscale methods: the averaged force is a weighted
// time average of micro-forces sampled on a micro-integration grid,
//
//   F = integral_{-eta/2}^{eta/2} K_eta(t) f(t) dt,   K_eta(t) = (2/eta) K(2 t/eta),
//
// with an even kernel K of unit mass on (-1, 1) (hmm-mechanical-vibrations, eqs. 2.11-2.13,
// 2.15-2.16). Two kernels:
//
//  - exponential: K(xi) = C exp(5/(xi^2 - 1)), C computed numerically so that K has unit mass
//    (Engquist & Tsai); window eta = a given number of fast periods (40 in Tables 2.1-2.2,
//    20 in the stiff-spring HMM of hmm-stiff-constrained);
//  - simple: K = 1/2 over exactly one fast period (eq. 2.16): it filters even (cosine)
//    oscillations down by omega^-2 and needs the period to be known exactly.
//
// The integral is the trapezoidal rule on the micro grid t_k = k h. A filter hands out the
// quadrature weights, for a full window (samples k = -n..n, the window is [-n h, n h]) or for
// a half window (samples k = 0..n, integrand even in t: F = 2 integral_0^{eta/2} K_eta f dt).
// The weights depend only on n, so a method computes them once per run.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mdl::runtime::multiscale {

enum class FilterKind { exponential, simple };

std::string_view to_string(FilterKind kind);
// "exp" / "exponential" / "simple"; std::invalid_argument otherwise.
FilterKind parse_filter_kind(std::string_view name);

class Filter {
public:
    // K(xi) = C exp(5/(xi^2 - 1)) on a window of `window_periods` fast periods (> 0).
    static Filter exponential(double window_periods = 40.0);
    // K = 1/2 on a window of exactly one fast period.
    static Filter simple();
    // By kind; window_periods <= 0 takes the kind's default (40 for exponential, 1 for
    // simple; simple accepts no other window).
    static Filter make(FilterKind kind, double window_periods = 0.0);

    FilterKind kind() const { return kind_; }
    // eta measured in fast periods 2 pi/omega
    double window_periods() const { return window_periods_; }
    // The unit-mass kernel K(xi) on (-1, 1), zero outside.
    double kernel(double xi) const;
    // The normalizing constant C of the exponential kernel (1/2 for simple).
    double normalization() const { return c_; }

    // Trapezoidal weights for samples at t_k = k h, k = 0..n, with n h = eta/2, of an even
    // integrand: F ~ sum_k w[k] f(t_k) = 2 integral_0^{eta/2} K_eta(t) f(t) dt. n >= 1.
    std::vector<double> half_window_weights(std::size_t n) const;
    // Trapezoidal weights for samples t_k = k h, k = -n..n (w[k + n]), n h = eta/2.
    std::vector<double> full_window_weights(std::size_t n) const;

private:
    Filter(FilterKind kind, double window_periods, double c)
        : kind_(kind), window_periods_(window_periods), c_(c) {}
    FilterKind kind_;
    double window_periods_;
    double c_;
};

// C with integral_{-1}^{1} C exp(5/(xi^2 - 1)) dxi = 1, computed once by quadrature.
double exponential_kernel_constant();

} // namespace mdl::runtime::multiscale
