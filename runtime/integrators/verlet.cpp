#include "runtime/integrators/verlet.hpp"

namespace mdl::runtime {

template class VelocityVerlet<ModelForce>;

} // namespace mdl::runtime
