#include "runtime/multiscale/half_explicit_rk.hpp"

namespace mdl::runtime::multiscale {

template class HalfExplicitRK3<ModelForce>;

} // namespace mdl::runtime::multiscale
