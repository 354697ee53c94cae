// Suggestions for mistyped names ("did you mean 'omega'?"), for parameters and methods.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mdl::runtime {

// The closest candidate by edit distance, or "" when none is within a third of the length.
std::string closest_name(std::string_view name, const std::vector<std::string_view>& candidates);

} // namespace mdl::runtime
