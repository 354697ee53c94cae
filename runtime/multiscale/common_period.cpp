#include "runtime/multiscale/common_period.hpp"

#include "runtime/numerical_failure.hpp"

#include <cmath>
#include <numbers>
#include <numeric>

namespace mdl::runtime::multiscale {

namespace {

// The fraction p/q closest to x with q <= max_q among the continued-fraction convergents,
// accepted when |x - p/q| <= tol x.
std::optional<std::pair<long, long>> small_fraction(double x, long max_q, double tol) {
    long p0 = 0, q0 = 1, p1 = 1, q1 = 0;
    double rest = x;
    for (int i = 0; i < 64; ++i) {
        const double a = std::floor(rest);
        if (a > 1e12) {
            break;
        }
        const long ai = static_cast<long>(a);
        const long p2 = ai * p1 + p0, q2 = ai * q1 + q0;
        if (q2 > max_q) {
            break;
        }
        if (std::abs(x - static_cast<double>(p2) / static_cast<double>(q2)) <= tol * x) {
            return std::make_pair(p2, q2);
        }
        p0 = p1;
        q0 = q1;
        p1 = p2;
        q1 = q2;
        const double frac = rest - a;
        if (frac <= 0.0) {
            break;
        }
        rest = 1.0 / frac;
    }
    return std::nullopt;
}

std::string name_of(const std::vector<std::string>& names, std::size_t i) {
    return i < names.size() ? "'" + names[i] + "'" : "number " + std::to_string(i + 1);
}

} // namespace

std::optional<CommonPeriod> find_common_period(const std::vector<double>& rates,
                                               const std::vector<std::string>& names,
                                               double period_override, std::string& why) {
    constexpr double two_pi = 2.0 * std::numbers::pi;
    if (rates.empty()) {
        why = "the model has no vibration";
        return std::nullopt;
    }
    for (std::size_t i = 0; i < rates.size(); ++i) {
        if (!(std::abs(rates[i]) > 0.0) || !std::isfinite(rates[i])) {
            why = "the phase rate of vibration " + name_of(names, i) + " is " +
                  format_number(rates[i]) + "; a vibration needs a nonzero finite rate";
            return std::nullopt;
        }
    }
    CommonPeriod cp;
    if (period_override != 0.0) {
        if (!(period_override > 0.0) || !std::isfinite(period_override)) {
            why = "the period must be positive and finite, got " + format_number(period_override);
            return std::nullopt;
        }
        cp.period = period_override;
        cp.omega = two_pi / period_override;
        for (std::size_t i = 0; i < rates.size(); ++i) {
            const double k = std::abs(rates[i]) / cp.omega;
            if (!(k >= 0.5) || std::abs(k - std::round(k)) > 1e-6 * k) {
                why = "the period " + format_number(period_override) +
                      " is not a whole number "
                      "of periods of vibration " +
                      name_of(names, i) + " (" + format_number(k) + " of them)";
                return std::nullopt;
            }
            cp.multiples.push_back(std::lround(k));
        }
    } else {
        const double base = std::abs(rates[0]);
        long denominator = 1;
        std::vector<std::pair<long, long>> fractions;
        for (std::size_t i = 0; i < rates.size(); ++i) {
            const auto f = small_fraction(std::abs(rates[i]) / base, max_period_denominator, 1e-9);
            if (!f) {
                why = "the vibrations " + name_of(names, 0) + " (omega = " + format_number(base) +
                      ") and " + name_of(names, i) +
                      " (omega = " + format_number(std::abs(rates[i])) +
                      ") have incommensurate rates: the forcing is quasi-periodic, with no common "
                      "period (give one with --period if you know it)";
                return std::nullopt;
            }
            fractions.push_back(*f);
            denominator = std::lcm(denominator, f->second);
            if (denominator > max_period_denominator) {
                why = "the vibrations' common period is more than " +
                      std::to_string(max_period_denominator) + " periods of vibration " +
                      name_of(names, 0) + " (give it with --period if you want it)";
                return std::nullopt;
            }
        }
        cp.omega = base / static_cast<double>(denominator);
        cp.period = two_pi / cp.omega;
        for (const auto& [p, q] : fractions) {
            cp.multiples.push_back(p * (denominator / q));
        }
    }
    for (long k : cp.multiples) {
        cp.fastest = std::max(cp.fastest, k);
    }
    return cp;
}

CommonPeriod common_period(const Model& model, std::string_view method, double period_override) {
    Vector omega = Vector::Zero(model.vibrations());
    if (model.vibrations() > 0) {
        model.phase_rates(omega);
    }
    const std::vector<double> rates(omega.data(), omega.data() + omega.size());
    std::string why;
    auto cp = find_common_period(rates, model.names().vibrations, period_override, why);
    if (!cp) {
        throw MethodNotApplicable(method, why);
    }
    return *cp;
}

} // namespace mdl::runtime::multiscale
