#include "runtime/integrators/stormer.hpp"

namespace mdl::runtime {

template class Stormer<ModelForce>;

} // namespace mdl::runtime
