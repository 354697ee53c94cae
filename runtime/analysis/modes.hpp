// Natural frequencies, damping ratios and mode shapes of a linearization (linearization.hpp):
// the solutions dq = phi e^{s t} of  M_r eta'' + C_r eta' + K_r eta = 0,  dq = N eta.
//
// Undamped (C_r = 0) with a symmetric K_r: the generalized symmetric eigenproblem
// K_r psi = omega^2 M_r psi (Eigen's GeneralizedSelfAdjointEigenSolver, M_r positive definite).
// Otherwise (dampers, gyroscopic or circulatory terms) the quadratic eigenproblem through its
// first-order companion form [0 I; -M_r^-1 K_r, -M_r^-1 C_r] z = s z (Eigen's EigenSolver).
// Each eigenvalue s reports omega = |s| and the damping ratio zeta = -Re(s)/|s| (as MATLAB's
// damp does): a complex pair s = -zeta omega +- i omega sqrt(1 - zeta^2) is one oscillatory
// mode; a real s < 0 an overdamped mode (zeta = 1), a real s > 0 or Re(s) > 0 an unstable one
// (zeta < 0; an undamped saddle, K_r with a negative eigenvalue, has zeta = -1). Eigenvalues
// s = 0 are the rigid-body modes (omega = 0), one per vector of the null space of K_r.
//
// Shapes are given in all n coordinates of the model (phi = N psi), real, normalized to
// phi^T M phi = 1 with their largest component positive. A damped mode's complex shape is
// rotated so that its largest component is real, and its real part is kept: exact for
// proportional (classical) damping, an approximation otherwise (docs/analysis.md).
#pragma once

#include "runtime/analysis/linearization.hpp"

#include <string_view>
#include <vector>

namespace mdl::runtime {

enum class ModeKind { rigid_body, oscillatory, overdamped, unstable };
std::string_view to_string(ModeKind kind); // "rigid body", "oscillatory", ...

struct Mode {
    double omega = 0;         // rad per unit time: |s| (the undamped natural frequency)
    double damping_ratio = 0; // -Re(s)/|s|
    ModeKind kind = ModeKind::oscillatory;
    Vector shape; // n, phi^T M phi = 1
};

// Sorted by omega (rigid-body modes first), then by damping ratio.
std::vector<Mode> natural_modes(const Linearization& linearization);

} // namespace mdl::runtime
