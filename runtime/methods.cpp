#include "runtime/methods.hpp"

#include "runtime/integrators/cvode.hpp"
#include "runtime/integrators/ida.hpp"
#include "runtime/names.hpp"
#include "runtime/numerical_failure.hpp"

#include <algorithm>
#include <iterator>
#include <vector>

namespace mdl::runtime {

namespace {

constexpr MethodInfo table[] = {
    {Method::verlet, "verlet", "velocity Verlet, symplectic, order 2", false, false, false, true,
     false},
    {Method::leapfrog, "leapfrog", "leapfrog (drift-kick-drift), symplectic, order 2", false, false,
     false, true, false},
    {Method::stormer, "stormer", "Stormer two-step x'' = a(x), conservative models only, order 2",
     false, false, false, false, false},
    {Method::rk4, "rk4", "classical Runge-Kutta, order 4", false, true, true, true, true},
    {Method::dopri5, "dopri5", "adaptive Dormand-Prince 5(4), rtol/atol, dense output", true, true,
     true, true, true},
    {Method::shake, "shake", "SHAKE, constrained Verlet, order 2", false, true, false, true, false},
    {Method::rattle, "rattle", "RATTLE, constrained Verlet with tangent velocities, order 2", false,
     true, false, true, false},
    {Method::newmark, "newmark", "Newmark average acceleration (trapezoidal), implicit, order 2",
     false, true, false, true, true},
    {Method::galpha, "galpha", "generalized-alpha (Chung-Hulbert, rho_inf), implicit, order 2",
     false, true, false, true, true},
#if MDL_HAVE_SUNDIALS
    // SUNDIALS CVODE (runtime/integrators/cvode.hpp), only in builds that found it.
    {Method::cvode_adams, "cvode-adams",
     "SUNDIALS CVODE Adams-Moulton, orders 1-12, non-stiff, rtol/atol", true, false, true, true,
     true},
    {Method::cvode_bdf, "cvode-bdf",
     "SUNDIALS CVODE BDF, orders 1-5, stiff, Newton with the model's Jacobian, rtol/atol", true,
     true, true, true, true},
    // SUNDIALS IDA (runtime/integrators/ida.hpp): the equations of motion as a DAE.
    {Method::ida, "ida",
     "SUNDIALS IDA BDF, orders 1-5, constraints as a stabilized index-2 DAE, any M(q), "
     "rtol/atol",
     true, true, true, true, true},
#endif
};

// What info() answers for a method this build does not have (cvode-* without SUNDIALS).
constexpr MethodInfo absent_cvode_adams{Method::cvode_adams,
                                        "cvode-adams",
                                        "not available: built without SUNDIALS",
                                        true,
                                        false,
                                        true,
                                        true,
                                        true};
constexpr MethodInfo absent_cvode_bdf{Method::cvode_bdf,
                                      "cvode-bdf",
                                      "not available: built without SUNDIALS",
                                      true,
                                      false,
                                      true,
                                      true,
                                      true};

constexpr MethodInfo absent_ida{
    Method::ida, "ida", "not available: built without SUNDIALS", true, true, true, true, true};

} // namespace

std::span<const MethodInfo> methods() {
    return table;
}

const MethodInfo& info(Method method) {
    const auto* found = std::find_if(std::begin(table), std::end(table),
                                     [&](const MethodInfo& m) { return m.method == method; });
    if (found != std::end(table)) {
        return *found;
    }
    if (method == Method::ida) {
        return absent_ida;
    }
    return method == Method::cvode_adams ? absent_cvode_adams : absent_cvode_bdf;
}

std::optional<Method> find_method(std::string_view name) {
    for (const MethodInfo& m : table) {
        if (m.name == name) {
            return m.method;
        }
    }
    if (name == "velocity-verlet") {
        return Method::verlet;
    }
    if (name == "generalized-alpha") {
        return Method::galpha;
    }
    return std::nullopt;
}

std::string unknown_method_message(std::string_view name) {
    std::string message = "unknown method '" + std::string(name) + "'";
    std::vector<std::string_view> names;
    std::string all;
    for (const MethodInfo& m : table) {
        names.push_back(m.name);
        all += (all.empty() ? "" : ", ") + std::string(m.name);
    }
    const std::string suggestion = closest_name(name, names);
    if (!suggestion.empty()) {
        message += "; did you mean '" + suggestion + "'?";
    }
    return message + " (methods: " + all + ")";
}

void require_events_supported(Method method, const Model& model) {
    const bool cvode = method == Method::cvode_adams || method == Method::cvode_bdf;
    const bool detects = method == Method::rk4 || method == Method::dopri5 ||
                         method == Method::shake || method == Method::rattle ||
                         method == Method::newmark || method == Method::galpha ||
                         (cvode && cvode_available()) || (method == Method::ida && ida_available());
    if (model.has_events() && !detects) {
        throw MethodNotApplicable(
            info(method).name,
            "model '" + model.name() +
                "' has events (when-clauses), which this method does "
                "not detect; methods that do: dopri5, rk4" +
                (cvode_available() ? ", cvode-adams, cvode-bdf" : "") +
                (ida_available() ? ", ida" : "") +
                (model.constrained() ? ", rattle, shake, newmark, galpha" : ", newmark, galpha"));
    }
}

void require_applicable(Method method, const Model& model) {
    const MethodInfo& m = info(method);
    require_events_supported(method, model);
    if (!m.variable_mass) {
        require_constant_diagonal_mass(model, m.name);
    }
    if (!m.first_order_states) {
        require_no_first_order_states(model, m.name);
    }
    if (method == Method::shake || method == Method::rattle) {
        require_constraints(model, m.name);
    } else if (!m.constraints) {
        require_unconstrained(model, m.name);
    }
    if (!m.velocity_dependent) {
        require_velocity_free(model, model.velocity_dependent(), m.name);
    }
}

Method default_method(const Model& model) {
    if (model.has_events()) {
        return Method::dopri5;
    }
    if (!model.mass_constant_diagonal()) {
        return Method::dopri5;
    }
    if (model.constrained()) {
        return Method::rattle;
    }
    if (model.states() > 0 || model.velocity_dependent()) {
        return Method::dopri5;
    }
    return Method::verlet;
}

} // namespace mdl::runtime
