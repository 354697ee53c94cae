// mdl._mdl's equilibrium and modes (mdl/modes.hpp): `_modes(model, at, search,
// tolerance, max_iterations)`, which python/mdl/__init__.py wraps as mdl.Model.modes().
#pragma once

#include <pybind11/pybind11.h>

void register_modes(pybind11::module_& m);
