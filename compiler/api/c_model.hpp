// What the C API's opaque handles hold (mdl.h): shared by its files.
#pragma once

#include "mdl/compiled_model.hpp"
#include "mdl/simulation_settings.hpp"

#include <cstdlib>
#include <cstring>

struct mdl_model {
    mdl::CompiledModel model;
};

struct mdl_settings {
    mdl::SimulationSettings settings;
};

namespace mdl::c_api {

// A copy of `message` allocated with malloc into *error (nothing when error is NULL).
inline void store(char** error, const char* message) {
    if (error == nullptr) {
        return;
    }
    std::size_t n = std::strlen(message) + 1;
    *error = static_cast<char*>(std::malloc(n));
    if (*error != nullptr) {
        std::memcpy(*error, message, n);
    }
}

} // namespace mdl::c_api
