// mdl reproduce caraxis: the car axis problem (an index-3 DAE with a time-dependent
// constraint) against the IVP Test Set's reference solution at t = 3
// (reproduce/reproduce_car_axis.hpp).
#pragma once

#include <string>

namespace mdl::cli {

// Prints the table to stdout and a summary line to stderr; 0 when every method's eight
// positions and velocities are within its accepted error of the reference and the constraints
// hold to 1e-9, else 1.
int reproduce_car_axis(const std::string& models_dir);

} // namespace mdl::cli
