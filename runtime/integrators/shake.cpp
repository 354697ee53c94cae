#include "runtime/integrators/shake.hpp"

namespace mdl::runtime {

template class Shake<ModelForce>;

} // namespace mdl::runtime
