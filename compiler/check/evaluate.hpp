// Numeric evaluation of checked expressions: parameter defaults, start values and the
// summary. (The symbolic stage has its own evaluator for the derived system.)
#pragma once

#include "check/checked_model.hpp"

#include <span>

namespace mdl::check {

struct Values {
    explicit Values(std::span<const double> parameter_values = {}, double at_time = 0)
        : parameters(parameter_values), time(at_time) {}

    std::span<const double> parameters;
    std::span<const double> positions;
    std::span<const double> velocities;
    std::span<const double> states;
    std::span<const double> phases;
    double time = 0;
    const CheckedModel* model = nullptr; // for vibration values
};

double evaluate(const Expr& e, const Values& values);
double apply(Function f, double a, double b = 0);

} // namespace mdl::check
