#include "simulation_setup.hpp"

#include "runtime/consistent_start.hpp"

#include <iostream>

namespace mdl::cli {

runtime::Model runtime_model(const CompiledModel& compiled) {
    return runtime::Model(
        compiled.kernels(), {compiled.parameters().begin(), compiled.parameters().end()},
        runtime::ModelNames{compiled.name(), compiled.position_names(), compiled.state_names(),
                            compiled.constraint_names(), compiled.parameter_names(),
                            compiled.vibration_names()});
}

runtime::State initial_state(const CompiledModel& compiled, const runtime::Model& model,
                             double start) {
    runtime::State state = model.zero_state(start);
    auto q0 = compiled.start_positions(), v0 = compiled.start_velocities();
    auto x0 = compiled.start_states();
    state.q = Eigen::Map<const runtime::Vector>(q0.data(), static_cast<Eigen::Index>(q0.size()));
    state.v = Eigen::Map<const runtime::Vector>(v0.data(), static_cast<Eigen::Index>(v0.size()));
    state.x = Eigen::Map<const runtime::Vector>(x0.data(), static_cast<Eigen::Index>(x0.size()));
    // Every constrained method starts on g(q) = 0, G v = 0 (changes reported on stderr).
    for (const auto& line :
         runtime::make_start_consistent(model, state, compiled.start_fixed()).lines()) {
        std::cerr << line << "\n";
    }
    return state;
}

} // namespace mdl::cli
