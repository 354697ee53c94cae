#include "runtime/integrators/newmark.hpp"

namespace mdl::runtime {

template class Newmark<ModelForce>;

} // namespace mdl::runtime
