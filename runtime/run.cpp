// run() for the RunObserver interface (run.hpp): the one instantiation of the stepping loops
// that every caller of run() shares.
#include "runtime/run.hpp"

#include "runtime/run_inline.hpp"

namespace mdl::runtime {

IntegrationStats run(const Model& model, State& state, const RunSettings& settings,
                     RunObserver& observer) {
    return run_inline(model, state, settings, observer);
}

} // namespace mdl::runtime
