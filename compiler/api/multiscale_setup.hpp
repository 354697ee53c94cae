// The options of a multiscale method (hmm, hmm-shake, hmm-rattle, hmm-stiff, strobo) resolved
// exactly as `mdl run` resolves them (simulate.cpp): the flags of SimulationSettings, else the
// model's annotation(experiment(...)), else the method's defaults, checked with the messages of
// `mdl run`. `mdl export --fmu` writes these options into the FMU, so that fmi2DoStep runs the
// method with the settings `mdl run` would use (docs/fmi.md).
#pragma once

#include "mdl/compiled_model.hpp"
#include "mdl/simulation_settings.hpp"
#include "runtime/multiscale/hmm.hpp"
#include "runtime/multiscale/stiff_hmm.hpp"
#include "runtime/multiscale/stroboscopic.hpp"

#include <string>
#include <string_view>
#include <variant>

namespace mdl {

struct MultiscaleSetup {
    std::string method; // hmm, hmm-shake, hmm-rattle, hmm-stiff, strobo
    double start = 0.0, stop = 1.0;
    std::variant<runtime::multiscale::HmmOptions, runtime::multiscale::StroboscopicOptions,
                 runtime::multiscale::StiffHmmOptions>
        options;
    std::string omega_source; // hmm-stiff: where its fast frequency came from
};

// strobo and hmm*: the methods the settings below describe.
bool is_multiscale_method(std::string_view method);

// The options `mdl run --method METHOD` would run with (t_end: the stop time). Throws
// std::invalid_argument naming the option (as `mdl run` does) for a bad or inapplicable setting.
MultiscaleSetup multiscale_setup(const SimulationSettings& settings, const CompiledModel& compiled,
                                 const std::string& method);

} // namespace mdl
