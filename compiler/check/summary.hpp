// A human-readable summary of a checked model, printed by `mdl check`.
#pragma once

#include "check/checked_model.hpp"

#include <string>

namespace mdl::check {

std::string summary(const CheckedModel& model);
// An expression in the model's own names, for summaries and messages.
std::string to_source(const Expr& e, const CheckedModel& model);

} // namespace mdl::check
