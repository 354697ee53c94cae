// Whether a multiscale method applies to a model, decided from the model's structure (what
// its force depends on: slow time t, velocities, first-order states; its vibrations' rates
// and phases; evenness of the force in the phases; constraints), with the reason when it does
// not. One function per method; the methods call them before running and `mdl check` prints
// their verdicts. docs/methods.md has the table of features against methods with the theory
// behind each cell.
//
// What the theory covers (M. P. Calvo and J. M. Sanz-Serna, "Heterogeneous multiscale methods
// for mechanical systems with vibrations", SIAM J. Sci. Comput. 32 (2010), Sects. 2-4; M. P.
// Calvo, Ph. Chartier, A. Murua and J. M. Sanz-Serna, "A stroboscopic numerical method for
// highly oscillatory problems", in Numerical Analysis of Multiscale Computations, Springer
// LNCSE 82 (2012); the averaging arguments of docs/methods.md for slow time and damping):
//  - hmm, hmm-shake, hmm-rattle: M x'' = f(x, v, t, theta) + G^T lambda with one common fast
//    period. Slow explicit time: the micro-integrations see t_n + tau. Velocity-dependent
//    forces: the averaged force depends on the averaged velocity V, so the micro-integration
//    starts from V plus its enslaved oscillation (unconstrained models only). Simple
//    filtering (eq. 2.16) divides only cosine oscillations by omega^2 (eq. 2.17): it needs a
//    force even in the phases at the window's centre, i.e. Algorithm 2 with a provably even
//    force. First-order states are outside the HMM's second-order setting.
//  - strobo: any first-order system y' = f(y, t, theta) with one common fast period: it
//    averages the period map of the full system.
//  - hmm-stiff: conservative stiff springs (the stiff-spring HMM's Hamiltonian setting), no
//    constraints (relax them), no first-order states, no vibrations, no velocity-dependent
//    forces.
#pragma once

#include "runtime/model.hpp"
#include "runtime/multiscale/hmm.hpp"
#include "runtime/multiscale/stiff_hmm.hpp"
#include "runtime/multiscale/stroboscopic.hpp"

#include <string>

namespace mdl::runtime::multiscale {

struct Applicability {
    bool applies = true;
    std::string reason; // why not, when !applies (a sentence naming what to use instead)
};

// options.macro, algorithm, filter, period and force_even_in_phase are read.
Applicability hmm_applicability(const Model& model, const HmmOptions& options);
// options.period, micro are read.
Applicability strobo_applicability(const Model& model, const StroboscopicOptions& options);
Applicability stiff_hmm_applicability(const Model& model);

// The phases where Algorithm 2's micro-integrations start: the joint phase 0 when it lies on
// the vibrations' orbit theta_i = omega_i t + c_i (one vibration, or every c_i = 0 mod 2 pi),
// else the model's phases at t = 0 (a point of the orbit, reduced mod 2 pi).
void asynchronous_start_phase(const Model& model, Vector& theta);

} // namespace mdl::runtime::multiscale
