// Periodic orbits by single shooting with Newton's method, the Jacobian from the monodromy
// matrix (monodromy.hpp; no difference quotients).
//
// Forced (the force depends on time with period T): find y0 = (q, v) at t0 with
//     R(y0) = phi_T(y0) - y0 = 0,      Jacobian  Phi(T) - I.
// Autonomous (period unknown): unknowns (y0, T), with the phase condition that fixes the
// point of the orbit y0 is (a Poincaré section through the first guess y_ref, normal to the
// flow there):
//     [ phi_T(y0) - y0          ]        [ Phi - I        F(phi_T(y0)) ]
//     [ F(y_ref) . (y0 - y_ref) ] = 0,   [ F(y_ref)^T     0            ]
// Each Newton step is damped (halved up to 10 times) until the residual decreases.
// Converged when max |R_i| <= tolerance * max(1, max |y0_i|). Floquet multipliers from the
// monodromy at the solution (floquet.hpp).
#pragma once

#include "runtime/analysis/floquet.hpp"
#include "runtime/analysis/monodromy.hpp"

#include <string>

namespace mdl::runtime::analysis {

struct ShootingOptions {
    double tolerance = 1e-10;
    int max_iterations = 40;
    double stability_tolerance = 1e-6; // |mu| <= 1 + this counts as stable
};

struct PeriodicOrbit {
    double t0 = 0.0;
    double period = 0.0;
    bool autonomous = false;
    Vector q, v; // the state at t0
    Matrix phi;  // monodromy matrix, 2n x 2n
    FloquetMultipliers floquet;
    int iterations = 0;
    double residual = 0.0; // max |R_i| at the solution
};

// A forced orbit of period T from the guess (q, v) at t0. Throws NumericalFailure
// (newton_not_converged, naming the coordinate with the largest residual, the iterations,
// the residual and the parameter values) when Newton does not converge.
PeriodicOrbit shoot_forced(Flow& flow, double t0, double period, const Vector& q, const Vector& v,
                           const ShootingOptions& options = {});

// An autonomous orbit from the guesses (q, v) and its period (> 0).
PeriodicOrbit shoot_autonomous(Flow& flow, double period, const Vector& q, const Vector& v,
                               const ShootingOptions& options = {});

// A first guess of an autonomous orbit's period: the flow from (q, v) is followed until it
// returns through the plane through its start normal to the flow there, in the same
// direction, at most `horizon` time units later (0: 200 periods of the fastest linearized
// oscillation). Returns 0 when it does not return.
double return_time(Flow& flow, const Vector& q, const Vector& v, double horizon = 0.0);

// "name=value, ..." of the model's parameters, for messages.
std::string parameter_values(const Model& model);

} // namespace mdl::runtime::analysis
