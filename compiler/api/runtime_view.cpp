#include "compiler/api/runtime_view.hpp"

#include "runtime/consistent_start.hpp"

#include <utility>

namespace mdl {

std::vector<runtime::Event> runtime_events(const CompiledModel& compiled) {
    std::vector<runtime::Event> out;
    for (const EventInfo& e : compiled.events()) {
        runtime::Event event;
        event.name = e.name;
        event.clause = e.clause;
        event.first_reinit = e.first_reinit;
        event.terminates = e.terminates;
        event.terminate_message = e.terminate_message;
        for (const EventInfo::Reinit& r : e.reinits) {
            using T = runtime::EventReinit::Target;
            const T target = r.target == EventInfo::Target::position ? T::position
                             : r.target == EventInfo::Target::state  ? T::state
                                                                     : T::velocity;
            event.reinits.push_back({target, static_cast<Eigen::Index>(r.index)});
        }
        out.push_back(std::move(event));
    }
    return out;
}

runtime::Model runtime_model(const CompiledModel& compiled) {
    runtime::Model model(
        compiled.kernels(), {compiled.parameters().begin(), compiled.parameters().end()},
        runtime::ModelNames{compiled.name(), compiled.position_names(), compiled.state_names(),
                            compiled.constraint_names(), compiled.parameter_names(),
                            compiled.vibration_names()});
    model.set_events(runtime_events(compiled));
    return model;
}

runtime::State initial_state(const CompiledModel& compiled, const runtime::Model& model,
                             double start, std::vector<std::string>* notes) {
    runtime::State state = model.zero_state(start);
    auto q0 = compiled.start_positions(), v0 = compiled.start_velocities();
    auto x0 = compiled.start_states();
    state.q = Eigen::Map<const runtime::Vector>(q0.data(), static_cast<Eigen::Index>(q0.size()));
    state.v = Eigen::Map<const runtime::Vector>(v0.data(), static_cast<Eigen::Index>(v0.size()));
    state.x = Eigen::Map<const runtime::Vector>(x0.data(), static_cast<Eigen::Index>(x0.size()));
    // Every constrained method starts on g(q) = 0, G v = 0 (changes returned in `notes`);
    // constraints that cannot be met are a model error located at their declarations.
    try {
        for (auto& line :
             runtime::make_start_consistent(model, state, compiled.start_fixed()).lines()) {
            if (notes != nullptr) {
                notes->push_back(std::move(line));
            }
        }
    } catch (const runtime::InconsistentStart& e) {
        std::vector<int> named = e.unmet();
        named.insert(named.end(), e.redundant().begin(), e.redundant().end());
        const auto& where = compiled.constraint_locations();
        const auto& excerpt = compiled.constraint_excerpts();
        std::string report;
        std::vector<std::string> messages;
        for (std::size_t k = 0; k < named.size(); ++k) {
            const auto i = static_cast<std::size_t>(named[k]);
            messages.push_back(k == 0 ? where[i] + ": error: " + e.what()
                                      : where[i] + ": note: constraint '" +
                                            compiled.constraint_names()[i] + "' is declared here");
            report += messages.back() + "\n" + excerpt[i];
        }
        throw CompileError(report, std::move(messages));
    }
    return state;
}

} // namespace mdl
