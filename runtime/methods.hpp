// The classical methods by name, for `mdl run --method NAME` and the experiment annotation:
// what each one accepts, and run(), which builds the stepper for a model and drives it.
#pragma once

#include "runtime/integrators/dopri5.hpp"
#include "runtime/integrators/stepper_support.hpp"
#include "runtime/model.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace mdl::runtime {

// cvode_adams, cvode_bdf and ida exist only in builds with SUNDIALS
// (runtime/integrators/cvode.hpp, ida.hpp): methods() lists them only then.
enum class Method {
    verlet,
    leapfrog,
    stormer,
    rk4,
    dopri5,
    shake,
    rattle,
    newmark,
    galpha,
    cvode_adams,
    cvode_bdf,
    ida
};

struct MethodInfo {
    Method method;
    std::string_view name;    // as typed on the command line
    std::string_view summary; // one line for --help
    bool adaptive;            // step size chosen by error control
    bool constraints;         // integrates constrained models (and only those: shake, rattle)
    bool first_order_states;  // integrates first-order states
    bool velocity_dependent;  // accepts forces depending on velocity
    bool variable_mass;       // solves M(q) a = f (kinetic energy), not only constant diagonal M
};

std::span<const MethodInfo> methods();
const MethodInfo& info(Method method);
std::optional<Method> find_method(std::string_view name);
// "unknown method 'rk5'; did you mean 'rk4'? (methods: verlet, leapfrog, ...)"
std::string unknown_method_message(std::string_view name);

// Throws MethodNotApplicable when the method cannot integrate the model, with the reason
// and the methods that can.
void require_applicable(Method method, const Model& model);
// A model with events runs with dopri5, rk4, cvode-*, ida and the fixed-step methods newmark,
// galpha, shake and rattle (events/event_driver.hpp); any other method throws
// MethodNotApplicable naming them.
void require_events_supported(Method method, const Model& model);

// A sensible method for a model: dopri5 when the mass matrix is not constant and diagonal,
// rattle when constrained, dopri5 with first-order states or velocity-dependent forces,
// verlet otherwise.
Method default_method(const Model& model);

struct RunSettings {
    Method method = Method::verlet;
    double stop_time = 1.0;
    // Fixed-step methods: the step. dopri5, cvode-*: the output interval (0: every accepted
    // step).
    double step = 1e-3;
    // Adaptive methods: dopri5's options; cvode-* take rtol, atol, initial_step, max_step and
    // max_steps from here.
    Dopri5Options adaptive = {};
    double rho_inf = 0.9;           // galpha
    SolverOptions solver = {};      // Newton and fixed-point tolerances
    bool project_velocities = true; // newmark/galpha on constrained models
};

} // namespace mdl::runtime
