// The classical fourth-order Runge-Kutta method with a fixed step, written for the tests'
// independent references (tests/api/error_estimate_test.cpp, tests/api/rheonomic_test.cpp):
// separate from the library's integrators, so a reference does not share their code.
#pragma once

#include <array>
#include <cstddef>

namespace mdl::test {

// y' = rate(t, y) from (0, y) over `steps` steps of size h; returns y(steps h). rate(double t,
// const std::array<double, N>& y) returns a std::array<double, N>.
template <std::size_t N, class Rate>
std::array<double, N> classical_rk4(Rate&& rate, std::array<double, N> y, double h, long steps) {
    using Y = std::array<double, N>;
    const auto plus = [](const Y& a, double c, const Y& b) {
        Y out;
        for (std::size_t j = 0; j < N; ++j) {
            out[j] = a[j] + c * b[j];
        }
        return out;
    };
    for (long i = 0; i < steps; ++i) {
        const double t = static_cast<double>(i) * h;
        const Y k1 = rate(t, y);
        const Y k2 = rate(t + 0.5 * h, plus(y, 0.5 * h, k1));
        const Y k3 = rate(t + 0.5 * h, plus(y, 0.5 * h, k2));
        const Y k4 = rate(t + h, plus(y, h, k3));
        for (std::size_t j = 0; j < N; ++j) {
            y[j] += h / 6.0 * (k1[j] + 2.0 * k2[j] + 2.0 * k3[j] + k4[j]);
        }
    }
    return y;
}

} // namespace mdl::test
