#include "check/fast_scales.hpp"

#include "check/evaluate.hpp"

#include <algorithm>
#include <cmath>

namespace mdl::check {

std::vector<FastScale> fast_scales(const CheckedModel& model, std::span<const double> parameters) {
    std::vector<FastScale> out;
    auto at = [&](const ExprPtr& e, double t = 0) {
        return evaluate(*e, Values(parameters, t));
    };
    for (const auto& v : model.vibrations) {
        // The phase is affine in time (checked), so its rate is phase(1) - phase(0).
        out.push_back({"vibration " + v.name, std::fabs(at(v.phase, 1.0) - at(v.phase, 0.0))});
    }
    for (const auto& s : model.springs) {
        if (!s.fast) {
            continue;
        }
        double omega = 0;
        if (s.fast_omega) {
            omega = at(s.fast_omega);
        } else {
            // sqrt(k/m) with the lighter end: the stiffest reading of the spring's scale.
            double lightest = INFINITY;
            for (const Endpoint& e : {s.a, s.b}) {
                if (!e.is_anchor) {
                    lightest = std::min(lightest, at(model.bodies[e.index].mass));
                }
            }
            omega = std::sqrt(at(s.stiffness) / lightest);
        }
        out.push_back({"spring " + s.name, omega});
    }
    return out;
}

} // namespace mdl::check
