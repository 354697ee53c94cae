// From a compiled model to what the runtime integrates: the runtime's model view (kernels,
// current parameters, names) and the start state.
#pragma once

#include "mdl/compiled_model.hpp"
#include "runtime/model.hpp"
#include "runtime/state.hpp"

namespace mdl {

runtime::Model runtime_model(const CompiledModel& compiled);
runtime::State initial_state(const CompiledModel& compiled, const runtime::Model& model,
                             double start);

} // namespace mdl
