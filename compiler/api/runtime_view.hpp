// From a compiled model to what the runtime integrates: the runtime's model view (kernels,
// current parameters, names, events) and the start state.
#pragma once

#include "mdl/compiled_model.hpp"
#include "runtime/model.hpp"
#include "runtime/state.hpp"

#include <string>
#include <vector>

namespace mdl {

runtime::Model runtime_model(const CompiledModel& compiled);
// The compiled model's events (when-clauses) as the runtime takes them.
std::vector<runtime::Event> runtime_events(const CompiledModel& compiled);
// The start state on the constraints (runtime/consistent_start.hpp): the changes of start
// values are appended to `notes`, one line each ("consistent start: changed 'b.y' from 0.5 to
// 0.4987 (by -0.0013)"), for the caller to show (the library prints nothing); without `notes`
// they are dropped. Throws CompileError locating constraints that cannot be met.
runtime::State initial_state(const CompiledModel& compiled, const runtime::Model& model,
                             double start, std::vector<std::string>* notes = nullptr);

} // namespace mdl
