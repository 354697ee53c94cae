// mdl reproduce andrews: Andrews' squeezing mechanism against the IVP Test Set's reference
// angles at t = 0.03 (reproduce/reproduce_andrews.hpp).
#pragma once

#include <string>

namespace mdl::cli {

// Prints the table to stdout and a summary line to stderr; 0 when every angle of every
// method is within 1e-6 relative of the reference and the constraints hold to 1e-8, else 1.
int reproduce_andrews(const std::string& models_dir);

} // namespace mdl::cli
