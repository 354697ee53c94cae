// What `mdl export --fmu` puts into an FMU, decided once from the compiled model and the
// export flags: the variables with their value references, causality, variability and start
// values, the integration method and its settings, the default experiment, and the kernels'
// object code. modelDescription.xml (fmu_model_description.hpp) and the C description linked
// into the shared object (fmu_model_source.hpp) are both written from it, so they agree.
#pragma once

#include "declared_descriptions.hpp"
#include "mdl/compiled_model.hpp"
#include "mdl/export.hpp"
#include "mdl/simulation_settings.hpp"
#include "runtime/fmi/fmu_model.h"

#include <optional>
#include <string>
#include <vector>

namespace mdl::exporting {

struct FmuVariable {
    std::string name;
    std::string description;
    unsigned value_reference = 0;
    std::string causality;   // output, parameter, local
    std::string variability; // continuous, tunable, constant
    double start = 0.0;
    // the derivatives of the continuous states (Model Exchange): initial calculated, no start
    bool calculated = false;
    std::size_t derivative_of = 0; // 1-based index of the variable this is the derivative of
};

struct FmuContents {
    std::string model_name;
    std::string model_identifier; // a C identifier: the shared object's name
    std::string description;
    std::string guid; // from a hash of the object code and this description
    // Real variables in value-reference order: positions, velocities, states (outputs), the
    // parameters, then the accelerations and state rates (fmu_model.h lists the ranges).
    std::vector<FmuVariable> variables;
    // the unit of each variable ("m", "rad/s"; "" where not known): unit= and <UnitDefinitions>
    std::vector<std::string> units;
    std::size_t positions = 0, states = 0, outputs = 0, parameters = 0;
    // Model Exchange too (unconstrained models: an ODE in the continuous states q, v, x)
    bool model_exchange = false;
    // fmi2GetDirectionalDerivative of the derivatives by the states, from the symbolic force
    // Jacobians: unconstrained, no first-order states, constant diagonal mass
    bool directional_derivatives = false;
    std::vector<bool> parameter_tunable; // per parameter: else fixed at export
    std::vector<bool> start_fixed;       // per position: its start value is fixed = true
    std::vector<std::string> constraint_names, vibration_names; // for messages
    std::vector<EventInfo> events; // when-clauses: Co-Simulation with rk4 or dopri5
    // the integration
    std::string method;
    bool adaptive = false;
    double step = 0.0; // fixed step, or a multiscale method's macro step H; 0 for dopri5
    // a multiscale method's settings as `mdl run` resolves them (hmm*, strobo)
    std::optional<mdl_fmu_multiscale> multiscale;
    double rtol = 1e-6, atol = 1e-9, rho_inf = 0.9, constraint_tolerance = 1e-12;
    // the default experiment
    double start_time = 0.0, stop_time = 1.0;
    std::optional<double> communication_step; // DefaultExperiment stepSize
    // the kernels: a position-independent object defining <prefix>_kernels
    std::string object_code;
    std::string kernel_prefix;
};

// Throws std::invalid_argument naming the flag for settings an FMU cannot run (cvode-*, a step
// that is not positive, a multiscale method's setting `mdl run` refuses) and
// runtime::MethodNotApplicable when the method cannot integrate the model.
FmuContents fmu_contents(const CompiledModel& compiled, const ExportSettings& settings,
                         const DeclaredDescriptions& descriptions);

// The methods an FMU runs (every method but SUNDIALS' cvode-* and ida), as a list for
// messages: "verlet, leapfrog, ..., hmm, hmm-shake, hmm-rattle, hmm-stiff, strobo".
std::string fmu_methods();

} // namespace mdl::exporting
