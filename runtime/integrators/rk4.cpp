#include "runtime/integrators/rk4.hpp"

namespace mdl::runtime {

template class RungeKutta4<ModelForce>;
template class RungeKutta4<ConstrainedModelForce>;

} // namespace mdl::runtime
