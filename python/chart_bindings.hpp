// Stability charts in the Python module (python/chart_bindings.cpp).
#pragma once

#include <pybind11/pybind11.h>

// mdl._mdl._stability_chart and the class mdl.StabilityChart.
void register_chart_bindings(pybind11::module_& m);
