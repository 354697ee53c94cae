// Step-size controllers for embedded Runge–Kutta pairs, as in Hairer's DOPRI5 code (Hairer,
// Nørsett & Wanner, Solving ODEs I, Sect. II.4 and the Lund-stabilized PI controller of
// Gustafsson): with err the weighted RMS error of the step (accept when err <= 1) and q the
// order of the embedded method (4 for Dormand–Prince 5(4)),
//   standard: h_new = h * clamp(safety * err^(-1/(q+1)))
//   PI:       h_new = h * clamp(safety * err^(-(1/(q+1) - 0.75 beta)) * err_prev^beta),
//             beta = 0.04,
// the factor clamped to [min_factor, max_factor], and never growing right after a rejection.
#pragma once

#include <algorithm>
#include <cmath>

namespace mdl::runtime {

enum class StepSizeControl { standard, pi };

struct StepSizeLimits {
    double safety = 0.9;
    double min_factor = 0.2; // the step shrinks by at most 5x
    double max_factor = 10.0;
};

class StepSizeController {
public:
    StepSizeController(StepSizeControl kind, int embedded_order, StepSizeLimits limits = {})
        : beta_(kind == StepSizeControl::pi ? 0.04 : 0.0),
          exponent_(1.0 / (embedded_order + 1) - 0.75 * beta_), limits_(limits) {}

    // After an accepted step of size h with error err <= 1: the next step size.
    double accepted(double h, double err) {
        const double fac11 = std::pow(err, exponent_);
        double factor = fac11 / std::pow(err_previous_, beta_) / limits_.safety; // 1/growth
        factor = std::clamp(factor, 1.0 / limits_.max_factor, 1.0 / limits_.min_factor);
        double next = h / factor;
        if (rejected_last_) {
            next = std::abs(next) > std::abs(h) ? h : next;
        }
        err_previous_ = std::max(err, 1e-4);
        rejected_last_ = false;
        return next;
    }

    // After a rejected step (err > 1, or not finite): the smaller size to retry with.
    double rejected(double h, double err) {
        rejected_last_ = true;
        if (!std::isfinite(err)) {
            return h * limits_.min_factor;
        }
        const double fac11 = std::pow(err, exponent_);
        return h / std::min(1.0 / limits_.min_factor, fac11 / limits_.safety);
    }

    void reset() {
        err_previous_ = 1e-4;
        rejected_last_ = false;
    }

private:
    double beta_;
    double exponent_;
    StepSizeLimits limits_;
    double err_previous_ = 1e-4;
    bool rejected_last_ = false;
};

} // namespace mdl::runtime
