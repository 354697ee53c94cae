// A ball on a sinusoidally vibrating table (models/vibrating_table.mdl) by its exact impact
// map, independently of mdl, for the tests that check mdl's events on it (tests/api/events_test,
// tests/cli/sweep_test).
#pragma once

#include <cmath>
#include <cstddef>
#include <numbers>
#include <vector>

namespace impact_map {

// A ball on a table s(t) = A sin(omega t + phi0), restitution e (models/vibrating_table.mdl),
// by its exact impact map, independently of mdl: from an impact at t with take-off velocity v
// the ball flies on its parabola; the next impact is the first zero of y(u) - s(u) after t,
// found by a scan in steps of T/4000 and bisection; there v+ = (1 + e) s'(u) - e v-.
struct Table {
    double g = 9.81, e = 0.5, omega = 2.0 * std::numbers::pi * 10.0, Gamma = 1.2, phi0 = 0.0;
    double A() const { return Gamma * g / (omega * omega); }
    double T() const { return 2.0 * std::numbers::pi / omega; }
    double s(double t) const { return A() * std::sin(omega * t + phi0); }
    double ds(double t) const { return A() * omega * std::cos(omega * t + phi0); }
    // the table's phase omega t + phi0 in [0, 2 pi)
    double phase(double t) const {
        const double p = std::fmod(omega * t + phi0, 2.0 * std::numbers::pi);
        return p < 0 ? p + 2.0 * std::numbers::pi : p;
    }

    std::vector<double> impact_times(double v0, std::size_t count) const {
        std::vector<double> times;
        double t = 0.0, y = s(0.0), v = v0;
        while (times.size() < count) {
            const auto gap = [&](double u) {
                return y + v * (u - t) - 0.5 * g * (u - t) * (u - t) - s(u);
            };
            const double h = T() / 4000.0;
            double a = t, b = t + h;
            while (gap(b) > 0.0) {
                a = b;
                b += h;
            }
            for (int i = 0; i < 200 && b - a > 1e-15 * b; ++i) {
                const double c = 0.5 * (a + b);
                (gap(c) > 0.0 ? a : b) = c;
            }
            const double v_before = v - g * (b - t);
            t = b;
            y = s(t);
            v = (1.0 + e) * ds(t) - e * v_before;
            times.push_back(t);
        }
        return times;
    }
};

} // namespace impact_map
