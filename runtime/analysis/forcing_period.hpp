// The period of a model's forcing, for periodic orbits and their monodromy matrices:
// - vibrations only: their common period (runtime/multiscale/common_period.hpp; a given
//   period is accepted when it is a common period of the vibrations);
// - explicit `time` in the force (cos(Omega*time)): the period cannot be read from the
//   model, so it must be given;
// - neither (autonomous): 0 unless given, and then the period is an unknown of the orbit
//   (the given value is its first guess).
#pragma once

#include "runtime/model.hpp"

#include <string_view>

namespace mdl::runtime::analysis {

// Whether the model's force depends on time (explicitly or through vibrations).
bool forced(const Model& model);

// The period as above; throws MethodNotApplicable(method, reason) when a forced model's
// period cannot be found (no common period, explicit time without `period`).
double forcing_period(const Model& model, std::string_view method, double period = 0.0);

} // namespace mdl::runtime::analysis
