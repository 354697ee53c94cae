// The FMI 2.0 functions of an mdl FMU (Co-Simulation; Model Exchange too for unconstrained
// models): C entry points that check their arguments, hand the call to the instance
// (fmu_instance.hpp) and never let an exception escape. Every function of the standard is
// exported; those of FMU states and input/output derivatives, and directional derivatives of
// models with constraints, first-order states or M(q), return fmi2Error with a logged "not
// supported" (modelDescription.xml says so: canGetAndSetFMUstate="false",
// providesDirectionalDerivative, maxOutputDerivativeOrder="0").
#include "runtime/fmi/fmi2_abi.h"
#include "runtime/fmi/fmu_instance.hpp"
#include "runtime/fmi/fmu_model.h"

#include "abi/kernel_abi.h"

#include <cstring>
#include <exception>
#include <new>
#include <string>

using mdl::runtime::fmi::FmuInstance;
using mdl::runtime::fmi::Phase;

// The FMU exports these symbols only (mdl export links with a version script).
#define MDL_FMI_EXPORT extern "C"

namespace {

FmuInstance* instance(fmi2Component c) {
    return static_cast<FmuInstance*>(c);
}

// Runs `call` for the instance `c`, turning an escaping exception into fmi2Error (an
// allocation failure is fmi2Fatal: nothing can be trusted any more).
template <class Call>
fmi2Status guarded(fmi2Component c, const char* function, Call&& call) {
    if (c == nullptr) {
        return fmi2Error; // no instance, no logger
    }
    try {
        return call(*instance(c));
    } catch (const std::bad_alloc&) {
        instance(c)->log_error(function, "out of memory");
        return fmi2Fatal;
    } catch (const std::exception& e) {
        instance(c)->log_error(function, e.what());
        return fmi2Error;
    } catch (...) {
        instance(c)->log_error(function, "unexpected error");
        return fmi2Error;
    }
}

fmi2Status not_supported(fmi2Component c, const char* function, const char* what) {
    return guarded(c, function, [&](FmuInstance& fmu) {
        fmu.log_error(function, std::string("not supported: ") + what);
        return fmi2Error;
    });
}

// The statuses an asynchronous doStep would report: mdl's doStep always finishes before it
// returns (canRunAsynchronuously="false").
const char* const no_pending_step =
    "no step is pending: fmi2DoStep finishes before it returns, so there is no status to ask";

} // namespace

MDL_FMI_EXPORT const char* fmi2GetTypesPlatform(void) {
    return fmi2TypesPlatform;
}

MDL_FMI_EXPORT const char* fmi2GetVersion(void) {
    return fmi2Version;
}

MDL_FMI_EXPORT fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn,
                                              size_t nCategories, const fmi2String categories[]) {
    return guarded(c, "fmi2SetDebugLogging", [&](FmuInstance& fmu) {
        for (size_t i = 0; i < nCategories; ++i) {
            const char* category = categories != nullptr ? categories[i] : nullptr;
            if (category == nullptr ||
                (std::strcmp(category, "logError") != 0 && std::strcmp(category, "logInfo") != 0)) {
                fmu.log_error("fmi2SetDebugLogging",
                              std::string("unknown log category '") +
                                  (category != nullptr ? category : "(null)") +
                                  "' (categories: logError, logInfo)");
                return fmi2Error;
            }
        }
        fmu.set_logging(loggingOn != fmi2False);
        return fmi2OK;
    });
}

MDL_FMI_EXPORT fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType,
                                             fmi2String fmuGUID, fmi2String fmuResourceLocation,
                                             const fmi2CallbackFunctions* functions,
                                             fmi2Boolean visible, fmi2Boolean loggingOn) {
    (void)fmuResourceLocation; // the FMU has no resources
    (void)visible;             // and no user interface
    if (functions == nullptr) {
        return nullptr; // no logger to say why
    }
    const char* name = instanceName != nullptr ? instanceName : "";
    const auto fail = [&](const std::string& message) -> fmi2Component {
        if (functions->logger != nullptr) {
            functions->logger(functions->componentEnvironment, name, fmi2Error, "logError",
                              "fmi2Instantiate: %s", message.c_str());
        }
        return nullptr;
    };
    try {
        if (instanceName == nullptr || instanceName[0] == '\0') {
            return fail("the instance name must not be empty");
        }
        const bool model_exchange = fmuType == fmi2ModelExchange;
        if (model_exchange && mdl_fmu.kernels->n_constraints != 0) {
            return fail("this FMU implements Co-Simulation only: its model has constraints (a "
                        "DAE), and Model Exchange is for ODEs");
        }
        if (!model_exchange && fmuType != fmi2CoSimulation) {
            return fail("unknown fmuType " + std::to_string(static_cast<int>(fmuType)));
        }
        if (fmuGUID == nullptr || std::strcmp(fmuGUID, mdl_fmu.guid) != 0) {
            return fail(std::string("the GUID '") + (fmuGUID != nullptr ? fmuGUID : "(null)") +
                        "' is not this FMU's '" + mdl_fmu.guid +
                        "' (a modelDescription.xml of another FMU?)");
        }
        return new FmuInstance(mdl_fmu, name, *functions, loggingOn != fmi2False, model_exchange);
    } catch (const std::exception& e) {
        return fail(e.what());
    }
}

MDL_FMI_EXPORT void fmi2FreeInstance(fmi2Component c) {
    delete instance(c);
}

MDL_FMI_EXPORT fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined,
                                              fmi2Real tolerance, fmi2Real startTime,
                                              fmi2Boolean stopTimeDefined, fmi2Real stopTime) {
    return guarded(c, "fmi2SetupExperiment", [&](FmuInstance& fmu) {
        return fmu.setup_experiment(toleranceDefined != fmi2False, tolerance, startTime,
                                    stopTimeDefined != fmi2False, stopTime);
    });
}

MDL_FMI_EXPORT fmi2Status fmi2EnterInitializationMode(fmi2Component c) {
    return guarded(c, "fmi2EnterInitializationMode",
                   [](FmuInstance& fmu) { return fmu.enter_initialization(); });
}

MDL_FMI_EXPORT fmi2Status fmi2ExitInitializationMode(fmi2Component c) {
    return guarded(c, "fmi2ExitInitializationMode",
                   [](FmuInstance& fmu) { return fmu.exit_initialization(); });
}

MDL_FMI_EXPORT fmi2Status fmi2Terminate(fmi2Component c) {
    return guarded(c, "fmi2Terminate", [](FmuInstance& fmu) { return fmu.terminate(); });
}

MDL_FMI_EXPORT fmi2Status fmi2Reset(fmi2Component c) {
    return guarded(c, "fmi2Reset", [](FmuInstance& fmu) { return fmu.reset(); });
}

MDL_FMI_EXPORT fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                      fmi2Real value[]) {
    return guarded(c, "fmi2GetReal",
                   [&](FmuInstance& fmu) { return fmu.get_real(vr, nvr, value); });
}

MDL_FMI_EXPORT fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                      const fmi2Real value[]) {
    return guarded(c, "fmi2SetReal",
                   [&](FmuInstance& fmu) { return fmu.set_real(vr, nvr, value); });
}

// The FMU has Real variables only: any Integer, Boolean or String value reference is unknown.
namespace {
fmi2Status no_variables(fmi2Component c, const char* function, const char* type, size_t nvr) {
    return guarded(c, function, [&](FmuInstance& fmu) {
        if (nvr == 0) {
            return fmi2OK;
        }
        fmu.log_error(function, std::string("the FMU has no ") + type + " variables");
        return fmi2Error;
    });
}
} // namespace

MDL_FMI_EXPORT fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference[], size_t nvr,
                                         fmi2Integer[]) {
    return no_variables(c, "fmi2GetInteger", "Integer", nvr);
}
MDL_FMI_EXPORT fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference[], size_t nvr,
                                         fmi2Boolean[]) {
    return no_variables(c, "fmi2GetBoolean", "Boolean", nvr);
}
MDL_FMI_EXPORT fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference[], size_t nvr,
                                        fmi2String[]) {
    return no_variables(c, "fmi2GetString", "String", nvr);
}
MDL_FMI_EXPORT fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference[], size_t nvr,
                                         const fmi2Integer[]) {
    return no_variables(c, "fmi2SetInteger", "Integer", nvr);
}
MDL_FMI_EXPORT fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference[], size_t nvr,
                                         const fmi2Boolean[]) {
    return no_variables(c, "fmi2SetBoolean", "Boolean", nvr);
}
MDL_FMI_EXPORT fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference[], size_t nvr,
                                        const fmi2String[]) {
    return no_variables(c, "fmi2SetString", "String", nvr);
}

MDL_FMI_EXPORT fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate*) {
    return not_supported(c, "fmi2GetFMUstate", "FMU states (canGetAndSetFMUstate is false)");
}
MDL_FMI_EXPORT fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate) {
    return not_supported(c, "fmi2SetFMUstate", "FMU states (canGetAndSetFMUstate is false)");
}
MDL_FMI_EXPORT fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate*) {
    return not_supported(c, "fmi2FreeFMUstate", "FMU states (canGetAndSetFMUstate is false)");
}
MDL_FMI_EXPORT fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate, size_t*) {
    return not_supported(c, "fmi2SerializedFMUstateSize",
                         "serialized FMU states (canSerializeFMUstate is false)");
}
MDL_FMI_EXPORT fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate, fmi2Byte[], size_t) {
    return not_supported(c, "fmi2SerializeFMUstate",
                         "serialized FMU states (canSerializeFMUstate is false)");
}
MDL_FMI_EXPORT fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte[], size_t,
                                                  fmi2FMUstate*) {
    return not_supported(c, "fmi2DeSerializeFMUstate",
                         "serialized FMU states (canSerializeFMUstate is false)");
}
MDL_FMI_EXPORT fmi2Status fmi2GetDirectionalDerivative(fmi2Component c,
                                                       const fmi2ValueReference vUnknown_ref[],
                                                       size_t nUnknown,
                                                       const fmi2ValueReference vKnown_ref[],
                                                       size_t nKnown, const fmi2Real dvKnown[],
                                                       fmi2Real dvUnknown[]) {
    return guarded(c, "fmi2GetDirectionalDerivative", [&](FmuInstance& fmu) {
        return fmu.directional_derivative(vUnknown_ref, nUnknown, vKnown_ref, nKnown, dvKnown,
                                          dvUnknown);
    });
}

// Model Exchange (unconstrained models): the continuous states (q, v, x) and their derivatives
// (v, a, x'); no event indicators, no discrete states.
MDL_FMI_EXPORT fmi2Status fmi2EnterEventMode(fmi2Component c) {
    return guarded(c, "fmi2EnterEventMode",
                   [](FmuInstance& fmu) { return fmu.enter_event_mode(); });
}
MDL_FMI_EXPORT fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo* eventInfo) {
    return guarded(c, "fmi2NewDiscreteStates",
                   [&](FmuInstance& fmu) { return fmu.new_discrete_states(eventInfo); });
}
MDL_FMI_EXPORT fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c) {
    return guarded(c, "fmi2EnterContinuousTimeMode",
                   [](FmuInstance& fmu) { return fmu.enter_continuous_time_mode(); });
}
MDL_FMI_EXPORT fmi2Status fmi2CompletedIntegratorStep(fmi2Component c, fmi2Boolean,
                                                      fmi2Boolean* enterEventMode,
                                                      fmi2Boolean* terminateSimulation) {
    return guarded(c, "fmi2CompletedIntegratorStep", [&](FmuInstance& fmu) {
        return fmu.completed_integrator_step(enterEventMode, terminateSimulation);
    });
}
MDL_FMI_EXPORT fmi2Status fmi2SetTime(fmi2Component c, fmi2Real time) {
    return guarded(c, "fmi2SetTime", [&](FmuInstance& fmu) { return fmu.set_time(time); });
}
MDL_FMI_EXPORT fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t nx) {
    return guarded(c, "fmi2SetContinuousStates",
                   [&](FmuInstance& fmu) { return fmu.set_continuous_states(x, nx); });
}
MDL_FMI_EXPORT fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real derivatives[], size_t nx) {
    return guarded(c, "fmi2GetDerivatives",
                   [&](FmuInstance& fmu) { return fmu.get_derivatives(derivatives, nx); });
}
MDL_FMI_EXPORT fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real indicators[],
                                                 size_t ni) {
    return guarded(c, "fmi2GetEventIndicators",
                   [&](FmuInstance& fmu) { return fmu.get_event_indicators(indicators, ni); });
}
MDL_FMI_EXPORT fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t nx) {
    return guarded(c, "fmi2GetContinuousStates",
                   [&](FmuInstance& fmu) { return fmu.get_continuous_states(x, nx); });
}
MDL_FMI_EXPORT fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x_nominal[],
                                                            size_t nx) {
    return guarded(c, "fmi2GetNominalsOfContinuousStates",
                   [&](FmuInstance& fmu) { return fmu.get_nominals(x_nominal, nx); });
}

// Co-Simulation
MDL_FMI_EXPORT fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference[],
                                                      size_t, const fmi2Integer[],
                                                      const fmi2Real[]) {
    return not_supported(c, "fmi2SetRealInputDerivatives",
                         "input derivatives (the FMU has no inputs; canInterpolateInputs is "
                         "false)");
}
MDL_FMI_EXPORT fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference[],
                                                       size_t, const fmi2Integer[], fmi2Real[]) {
    return not_supported(c, "fmi2GetRealOutputDerivatives",
                         "output derivatives (maxOutputDerivativeOrder is 0)");
}

MDL_FMI_EXPORT fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint,
                                     fmi2Real communicationStepSize,
                                     fmi2Boolean noSetFMUStatePriorToCurrentPoint) {
    (void)noSetFMUStatePriorToCurrentPoint; // no FMU states to keep
    return guarded(c, "fmi2DoStep", [&](FmuInstance& fmu) {
        return fmu.do_step(currentCommunicationPoint, communicationStepSize);
    });
}

MDL_FMI_EXPORT fmi2Status fmi2CancelStep(fmi2Component c) {
    return guarded(c, "fmi2CancelStep", [](FmuInstance& fmu) {
        fmu.log_error("fmi2CancelStep", no_pending_step);
        return fmi2Error;
    });
}

namespace {
// The status functions are allowed once stepping started (section 4.2.4).
bool status_allowed(FmuInstance& fmu, const char* function) {
    return fmu.allowed(function, {Phase::step_complete, Phase::terminated, Phase::error});
}
} // namespace

MDL_FMI_EXPORT fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind, fmi2Status*) {
    return guarded(c, "fmi2GetStatus", [](FmuInstance& fmu) {
        if (status_allowed(fmu, "fmi2GetStatus")) {
            fmu.log_error("fmi2GetStatus", no_pending_step);
        }
        return fmi2Discard;
    });
}

MDL_FMI_EXPORT fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s,
                                            fmi2Real* value) {
    return guarded(c, "fmi2GetRealStatus", [&](FmuInstance& fmu) {
        if (!status_allowed(fmu, "fmi2GetRealStatus")) {
            return fmi2Error;
        }
        if (s != fmi2LastSuccessfulTime || value == nullptr) {
            fmu.log_error("fmi2GetRealStatus", "only fmi2LastSuccessfulTime is a Real status");
            return fmi2Discard;
        }
        *value = fmu.time(); // the end of the last step that succeeded
        return fmi2OK;
    });
}

MDL_FMI_EXPORT fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind,
                                               fmi2Integer*) {
    return guarded(c, "fmi2GetIntegerStatus", [](FmuInstance& fmu) {
        if (!status_allowed(fmu, "fmi2GetIntegerStatus")) {
            return fmi2Error;
        }
        fmu.log_error("fmi2GetIntegerStatus", "FMI 2.0 defines no Integer status");
        return fmi2Discard;
    });
}

MDL_FMI_EXPORT fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s,
                                               fmi2Boolean* value) {
    return guarded(c, "fmi2GetBooleanStatus", [&](FmuInstance& fmu) {
        if (!status_allowed(fmu, "fmi2GetBooleanStatus")) {
            return fmi2Error;
        }
        if (s != fmi2Terminated || value == nullptr) {
            fmu.log_error("fmi2GetBooleanStatus", "only fmi2Terminated is a Boolean status");
            return fmi2Discard;
        }
        *value = fmi2False; // the FMU never asks to end the simulation early
        return fmi2OK;
    });
}

MDL_FMI_EXPORT fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind, fmi2String*) {
    return guarded(c, "fmi2GetStringStatus", [](FmuInstance& fmu) {
        if (status_allowed(fmu, "fmi2GetStringStatus")) {
            fmu.log_error("fmi2GetStringStatus", no_pending_step);
        }
        return fmi2Discard;
    });
}
