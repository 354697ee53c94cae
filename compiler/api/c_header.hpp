// The C header that goes with an ahead-of-time object (codegen/object_file.hpp): self-contained
// (it carries the kernel ABI of kernel_abi.h), it declares the object's symbols and describes
// the model as compiled — sizes, names, parameter values and start state — so that a host
// without mdl can call the kernels. Internal to the API library.
#pragma once

#include <string>
#include <vector>

namespace mdl::api {

struct HeaderModel {
    std::string model;  // the model's name
    std::string source; // the file it came from
    std::string prefix; // of the object's symbols
    std::string triple, cpu;
    std::vector<std::string> kernels; // names of the kernels with outputs ("force", ...)
    std::vector<std::string> positions, velocities, states, constraints, vibrations, parameters;
    std::vector<double> parameter_values, start_positions, start_velocities, start_states;
};

std::string c_header(const HeaderModel& model);

} // namespace mdl::api
