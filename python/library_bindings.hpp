// The Python module's export, sweep and warning-handler functions (python/library_bindings.cpp).
#pragma once

#include "mdl/simulation_settings.hpp"

#include <pybind11/pybind11.h>

namespace mdl::python {

// `settings_of` turns keyword arguments named as `mdl run`'s options into settings (module.cpp).
using SettingsOf = SimulationSettings (*)(const pybind11::kwargs& options);

void register_library_bindings(pybind11::module_& m, SettingsOf settings_of);

} // namespace mdl::python
