// Floquet multipliers of a periodic orbit: the eigenvalues mu of its monodromy matrix
// (monodromy.hpp). The orbit is linearly stable when every multiplier lies in the closed
// unit disk, max |mu| <= 1 + tolerance, and asymptotically stable when strictly inside.
// An autonomous orbit (period unknown) always has the trivial multiplier 1 (a shift along
// the orbit); it is set aside before the classification. In a conservative system the
// multipliers come in reciprocal pairs (mu, 1/mu) — the monodromy matrix is symplectic —
// so the best such an orbit can be is marginal: every |mu| = 1.
#pragma once

#include "runtime/state.hpp"

#include <complex>
#include <vector>

namespace mdl::runtime::analysis {

struct FloquetMultipliers {
    // Every eigenvalue of the monodromy matrix, by decreasing modulus (conjugate pairs
    // adjacent, positive imaginary part first).
    std::vector<std::complex<double>> multipliers;
    int trivial = -1;         // index of the trivial multiplier of an autonomous orbit; -1
    double max_modulus = 0.0; // the largest |mu| other than the trivial one
    bool stable = false;      // max_modulus <= 1 + tolerance
    bool marginal = false;    // stable with max_modulus >= 1 - tolerance (on the unit circle)
};

// The multipliers of `phi` (square). `autonomous`: set the multiplier closest to 1 aside.
FloquetMultipliers floquet_multipliers(const Matrix& phi, bool autonomous, double tolerance = 1e-6);

// "stable", "marginal" or "unstable".
const char* stability_name(const FloquetMultipliers& floquet);

} // namespace mdl::runtime::analysis
