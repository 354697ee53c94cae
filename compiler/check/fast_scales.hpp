// The fast time scales of a model for given parameter values: each vibration's phase rate, and
// each spring marked `fast` (its stated omega, else sqrt(k/m) with the lighter end's mass).
#pragma once

#include "check/checked_model.hpp"

#include <span>
#include <vector>

namespace mdl::check {

std::vector<FastScale> fast_scales(const CheckedModel& model, std::span<const double> parameters);

} // namespace mdl::check
