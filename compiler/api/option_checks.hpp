// Checks of a simulation option's value shared by the settings' validation and the drivers
// (simulate.cpp): the message names the option as the command line spells it.
#pragma once

#include <optional>
#include <string>

namespace mdl {

// Shortest round-trip text of a double, as messages write numbers.
std::string option_number(double value);

// An option's value that must be a positive finite number.
void require_positive(const char* option, const std::optional<double>& value, const char* what);

} // namespace mdl
