// Filters (kernels) of the heterogeneous multiscale methods: the averaged force is a weighted
// time average of micro-forces sampled on a micro-integration grid,
//
//   F = integral_{-eta/2}^{eta/2} K_eta(t) f(t) dt,   K_eta(t) = (2/eta) K(2 t/eta),
//
// with an even kernel K of unit mass on (-1, 1) (hmm-mechanical-vibrations, eqs. 2.11-2.13,
// 2.15-2.16). Three kernels:
//
//  - exponential: K(xi) = C exp(5/(xi^2 - 1)), C computed numerically so that K has unit mass
//    (Engquist & Tsai); window eta = a given number of fast periods (40 in Tables 2.1-2.2,
//    20 in the stiff-spring HMM of hmm-stiff-constrained);
//  - simple: K = 1/2 over exactly one fast period (eq. 2.16): it filters even (cosine)
//    oscillations down by omega^-2 and needs the period to be known exactly.
//  - spline: the quadratic B-spline B3 = B * B * B, B the one-period box of the simple filter,
//    on a window of exactly three fast periods. Sampled with a whole number of micro steps per
//    period it removes every harmonic of the period exactly (its Fourier transform is
//    sinc^3, zero at every nonzero harmonic, and by Poisson's summation formula so is the
//    trapezoidal sum), and it divides slowly modulated oscillations of either parity by
//    omega^3 (B3 is C^1). The averaged acceleration it gives is the second difference, with
//    step one period, of the one-period means of the micro-solution's position at -T, 0, T:
//    the acceleration of the averaged motion to O(1/omega^2), where the simple filter's
//    (v(T/2) - v(-T/2))/T keeps an O(1/omega) term from the fast oscillation's slowly
//    changing amplitude (runtime/multiscale/hmm.hpp, HmmOptions::offset_correction).
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

enum class FilterKind { exponential, simple, spline };

std::string_view to_string(FilterKind kind);
// "exp" / "exponential" / "simple" / "spline"; std::invalid_argument otherwise.
FilterKind parse_filter_kind(std::string_view name);

class Filter {
public:
    // K(xi) = C exp(5/(xi^2 - 1)) on a window of `window_periods` fast periods (> 0).
    static Filter exponential(double window_periods = 40.0);
    // K = 1/2 on a window of exactly one fast period.
    static Filter simple();
    // The quadratic B-spline (three one-period boxes convolved) on exactly three periods.
    static Filter spline();
    // By kind; window_periods <= 0 takes the kind's default (40 for exponential, 1 for
    // simple, 3 for spline; simple and spline accept no other window).
    static Filter make(FilterKind kind, double window_periods = 0.0);

    FilterKind kind() const { return kind_; }
    // eta measured in fast periods 2 pi/omega
    double window_periods() const { return window_periods_; }
    // The unit-mass kernel K(xi) on (-1, 1), zero outside.
    double kernel(double xi) const;
    // The normalizing constant C of the exponential kernel (1/2 for simple, K(0) = 9/8 for
    // spline).
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
