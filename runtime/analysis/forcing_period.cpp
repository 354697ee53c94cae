#include "runtime/analysis/forcing_period.hpp"

#include "runtime/multiscale/common_period.hpp"
#include "runtime/numerical_failure.hpp"

#include <cmath>

namespace mdl::runtime::analysis {

bool forced(const Model& model) {
    return model.time_dependent() || model.vibrations() > 0;
}

double forcing_period(const Model& model, std::string_view method, double period) {
    if (period != 0.0 && !(period > 0.0 && std::isfinite(period))) {
        throw MethodNotApplicable(method, "the period must be positive and finite, got " +
                                              format_number(period));
    }
    if (!forced(model)) {
        return period;
    }
    if (model.time_dependent() && period == 0.0) {
        throw MethodNotApplicable(method,
                                  "the force depends on time explicitly, so its period cannot be "
                                  "read from the model: give it (--period), or write the drive as "
                                  "a vibration (vibration d(theta = Omega*time) = cos(theta))");
    }
    if (model.vibrations() > 0) {
        return multiscale::common_period(model, method, period).period;
    }
    return period;
}

} // namespace mdl::runtime::analysis
