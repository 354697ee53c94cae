// The common period of a model's vibrations, for the multiscale methods whose theory needs
// one fast period (HMM's simple filter and window, the stroboscope of stroboscopic
// averaging).
//
// Vibrations i = 1..r have phases theta_i = omega_i t + c_i. They share a period T when every
// rate is a whole multiple of one fundamental rate omega_0 = 2 pi/T: omega_i = k_i omega_0.
// The rates are commensurate when every ratio |omega_i|/|omega_1| is a fraction p/q with a
// small denominator (q <= max_denominator, found by continued fractions, to a relative 1e-9);
// then omega_0 = |omega_1|/lcm(q_i). Incommensurate rates (omega and sqrt(2) omega) have no
// common period: the motion is quasi-periodic and the methods that need one refuse the model.
// A user who knows better gives the period (`--period`): it is accepted when every
// omega_i T/(2 pi) is a whole number to a relative 1e-6.
#pragma once

#include "runtime/model.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mdl::runtime::multiscale {

struct CommonPeriod {
    double period = 0.0;         // T
    double omega = 0.0;          // omega_0 = 2 pi/T, the fundamental rate
    std::vector<long> multiples; // k_i = |omega_i|/omega_0, one per vibration
    long fastest = 0;            // max k_i: the fastest vibration's rate is fastest * omega_0
};

// The largest denominator (and so the largest number of periods of the slowest vibration in
// the common period) accepted without --period.
constexpr long max_period_denominator = 64;

// The common period of the rates, or an empty optional with the reason in `why`.
std::optional<CommonPeriod> find_common_period(const std::vector<double>& rates,
                                               const std::vector<std::string>& names,
                                               double period_override, std::string& why);

// The model's common period; throws MethodNotApplicable(method, why) when there is none
// (no vibration, a zero or non-finite rate, incommensurate rates, an override that is not a
// common period).
CommonPeriod common_period(const Model& model, std::string_view method,
                           double period_override = 0.0);

} // namespace mdl::runtime::multiscale
