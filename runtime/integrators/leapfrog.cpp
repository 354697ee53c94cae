#include "runtime/integrators/leapfrog.hpp"

namespace mdl::runtime {

template class Leapfrog<ModelForce>;

} // namespace mdl::runtime
