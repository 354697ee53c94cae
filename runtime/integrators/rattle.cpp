#include "runtime/integrators/rattle.hpp"

namespace mdl::runtime {

template class Rattle<ModelForce>;

} // namespace mdl::runtime
