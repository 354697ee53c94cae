// fmi2DoStep of an FMU exported with a multiscale method (hmm, hmm-shake, hmm-rattle,
// hmm-stiff, strobo): one macro-integrator for the whole simulation, from the start time to the
// stop time, as `mdl run` runs it (the integrators of runtime/multiscale with the options the
// export resolved as `mdl run` does: mdl_fmu_multiscale).
//
// How a communication step maps onto macro steps: the macro-integrator's output points are the
// grid t0 + k H (H the macro step; for a dopri5 macro, the output interval) and the stop time.
// A communication point t + h must be one of them: fmi2DoStep then takes the macro steps from t
// to t + h, so the FMU's values at the communication points are `mdl run`'s rows at the same
// times, to the last bit. Any other communication point is refused before anything changes
// (check), naming h and H. The stop time is fmi2SetupExperiment's, or the default experiment's
// when the importer gives none (the macro-integrator needs its end: HMM takes whole macro steps
// to it, strobo's last rk4 step ends on it, the dopri5 macros bound their steps by it); no
// communication point lies beyond it.
#pragma once

#include "runtime/fmi/fmu_model.h"
#include "runtime/model.hpp"
#include "runtime/multiscale/hmm.hpp"
#include "runtime/multiscale/stiff_hmm.hpp"
#include "runtime/multiscale/stroboscopic.hpp"
#include "runtime/state.hpp"

#include <string>
#include <string_view>
#include <variant>

namespace mdl::runtime::fmi {

// strobo, hmm*: a method whose FMU steps with MultiscaleStep.
bool multiscale_method(std::string_view method);

class MultiscaleStep {
public:
    // Throws std::invalid_argument for an unknown method or settings the integrator refuses,
    // MethodNotApplicable when it cannot integrate the model. The model must outlive this.
    MultiscaleStep(const Model& model, const mdl_fmu_model& description, double stop);

    // The macro-integrator starts from `state` (the true state at its time: HMM replaces the
    // velocities by the averaged ones, hmm-stiff projects onto the slow manifold, strobo
    // projects a constrained state onto the manifold).
    void start(State& state);
    // Empty when t_end is an output point after the state's time; else why not (naming the
    // communication step h = t_end - t, the macro step H and the method).
    std::string check(double t, double t_end) const;
    // Macro steps to t_end (check(t, t_end) must be empty). Throws NumericalFailure.
    void advance(State& state, double t_end);
    double macro_step() const { return macro_step_; }
    double stop() const { return stop_; }

private:
    double tolerance() const;
    const Model* model_;
    std::string method_;
    double t0_ = 0.0, stop_ = 0.0, macro_step_ = 0.0;
    std::variant<std::monostate, multiscale::HmmIntegrator, multiscale::StroboscopicIntegrator,
                 multiscale::StiffHmmIntegrator>
        integrator_;
};

} // namespace mdl::runtime::fmi
