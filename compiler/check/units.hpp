// Dimensional analysis of a checked model (docs/language.md, "Units"). Units are declared as
// in Modelica, `parameter Real l(unit = "m") = 0.2`, `coordinate q(unit = "rad")`,
// `Real x(unit = "m/s")`, `vibration a(theta = omega*time, unit = "m/s2") = ...`; bodies,
// springs, dampers, potentials, forces and gravity have units of their own (kg, m, m/s, N/m,
// J, N, m/s2, ...). A model that declares a unit anywhere (or any model under `--units`) is
// checked: every expression's unit is inferred, sums, relations, branches and the sides of
// equations must agree, functions take dimensionless arguments, and each inconsistency is a
// located error. Quantities without a declared unit take the one their use determines.
#pragma once

#include "check/checked_model.hpp"
#include "parse/ast.hpp"
#include "source/diagnostics.hpp"

namespace mdl::check {

struct UnitOptions {
    // Check the model even if it declares no unit, and warn about every parameter, coordinate,
    // state and vibration whose unit nothing determines (mdl check --units).
    bool require = false;
};

// Reads the declared units of `flat` (the model `model` was checked from), checks every
// expression of `model` and fills the `unit` fields of its quantities. False after errors.
bool check_units(const ast::Model& flat, CheckedModel& model, source::Diagnostics& diagnostics,
                 const UnitOptions& options = {});

} // namespace mdl::check
