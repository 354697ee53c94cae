// The drivers of the methods of `mdl run`, one file each (simulate.cpp dispatches to them):
// each resolves its settings, runs the method into the host's Output and writes its summary.
#pragma once

#include "compiler/api/simulation_driver.hpp"
#include "runtime/multiscale/hmm.hpp"
#include "runtime/multiscale/stiff_hmm.hpp"
#include "runtime/multiscale/stroboscopic.hpp"

#include <string>

namespace mdl::simulation {

// The classical methods (runtime/run.hpp): classical_run.cpp.
SimulationStatistics run_classical(const SimulationSettings& o, const CompiledModel& compiled,
                                   const runtime::Model& model, const std::string& method_name,
                                   const Output& output);

// hmm, hmm-shake, hmm-rattle: hmm_run.cpp.
runtime::multiscale::HmmOptions hmm_options(const SimulationSettings& o,
                                            const CompiledModel& compiled,
                                            const std::string& method, SimulationStatistics& r);
SimulationStatistics run_hmm(const SimulationSettings& o, const CompiledModel& compiled,
                             const runtime::Model& model, const std::string& method,
                             const Output& output);

// strobo: strobo_run.cpp.
runtime::multiscale::StroboscopicOptions
strobo_options(const SimulationSettings& o, const CompiledModel& compiled, SimulationStatistics& r);
SimulationStatistics run_strobo(const SimulationSettings& o, const CompiledModel& compiled,
                                const runtime::Model& model, const Output& output);

// hmm-stiff: stiff_hmm_run.cpp.
runtime::multiscale::StiffHmmOptions stiff_hmm_options(const SimulationSettings& o,
                                                       const CompiledModel& compiled,
                                                       SimulationStatistics& r,
                                                       std::string& omega_source);
SimulationStatistics run_stiff_hmm(const SimulationSettings& o, const CompiledModel& compiled,
                                   const runtime::Model& model, const Output& output);

} // namespace mdl::simulation
