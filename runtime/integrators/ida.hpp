// SUNDIALS IDA (Hindmarsh et al., "SUNDIALS: Suite of nonlinear and differential/algebraic
// equation solvers", ACM TOMS 31, 2005): variable-order (1..5) BDF for the equations of
// motion as a differential-algebraic system, the runtime method `ida`, for models with any
// mass matrix, with or without constraints.
//
// Unknowns y = (q, v, x, lambda, mu) with the residual of the stabilized index-2 form of
// Gear, Gupta & Leimkuhler ("Automatic integration of Euler-Lagrange equations with
// constraints", J. Comput. Appl. Math. 12-13, 1985; Hairer & Wanner, Solving ODEs II,
// sect. VII.1):
//
//   q' - v - G(q)^T mu                  = 0      (mu = 0 on the exact solution)
//   M(q) v' - f(t, q, v, x) - G(q)^T lambda = 0
//   x' - rates(t, q, v, x)              = 0
//   G(q) v                              = 0      (index 2)
//   g(q)                                = 0
//
// Both g = 0 and G v = 0 are equations of the system, so neither drifts: they hold to the
// Newton tolerance at every step. lambda and mu are algebraic (IDASetId) and, as index-2
// variables, left out of the error test (IDASetSuppressAlg; Hairer & Wanner VII.3 on error
// estimation for index-2 components). Newton's matrix dF/dy + c dF/dy' comes from the
// compiled kernels df/dq, df/dv and G (ida_residual.hpp; the constraints' second derivatives
// by coloured central differences of G), factorized by a dense LU or, from
// ida_sparse_threshold positions on, by SuiteSparse's KLU; models with first-order states
// or a mass matrix M(q) (no kernels for d(M(q) a)/dq, drates/dy) keep IDA's dense difference
// quotients. Consistent initial values: v' and lambda from the saddle-point system of
// ConstrainedModelForce at the start (positions and velocities must satisfy the constraints),
// mu = 0.
//
// Tolerances: IDA's weighted RMS norm with scalar rtol and atol. Output as for CVODE: every
// internal step (output_interval = 0) or the states at t0 + k output_interval and t_end,
// interpolated by IDA; never past t_end (IDASetStopTime). An IDA error is a NumericalFailure
// naming the time, `ida`, IDA's flag and message, and the variable with the largest weighted
// local error.
//
// Events (docs/events.md): integrate_ida_events, below. SUNDIALS' own root finding
// (IDARootInit) is not used, for the reasons given for CVODE (cvode.hpp): the tracker's
// rules (grazing crossings, the bracket's lower end, resting) are those of every method.
#pragma once

#include "runtime/events/event_tracker.hpp"
#include "runtime/integrate.hpp"
#include "runtime/model.hpp"
#include "runtime/sparse_jacobians.hpp"
#include "runtime/state.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>

namespace mdl::runtime {

struct Dopri5Options;

// Whether this build of mdl has SUNDIALS IDA.
bool ida_available();

struct IdaOptions {
    double rtol = 1e-6;
    double atol = 1e-9;
    double initial_step = 0.0;                                 // 0: IDA's estimate
    double max_step = std::numeric_limits<double>::infinity(); // no limit
    std::size_t max_steps = 0; // internal steps in all (0: no limit)
    // Newton's matrix from the model's kernels where the model allows it (else, or when
    // false, IDA's dense difference quotients, one residual per unknown).
    bool model_jacobian = true;
    // With the model's Newton matrix: dense LU, KLU, or KLU from ida_sparse_threshold
    // positions on (automatic). Without KLU in the build, always dense.
    LinearAlgebra linear_algebra = LinearAlgebra::automatic;
};

// The settings ida shares with dopri5's (rtol, atol, initial_step, max_step, max_steps), as
// `mdl run` and the event driver pass them.
IdaOptions ida_options(const Dopri5Options& adaptive);

// From this many positions on, `automatic` factorizes IDA's Newton matrix with KLU. Measured
// with `mdl_bench --benchmark_filter='^ida_step/'` on the pendulum chain (docs/performance.md):
// an IDA step with KLU costs 0.7x the dense LU's at 8 positions (24 unknowns, the smallest
// chain measured), 0.29x at 16 and 0.1x at 32.
inline constexpr Eigen::Index ida_sparse_threshold = 8;

enum class IdaLinearAlgebra : std::uint8_t {
    dense_difference_quotients, // IDA's own Jacobian, dense LU (the only choice before issue 19)
    dense,                      // the kernels' Newton matrix, dense LU
    sparse,                     // the kernels' Newton matrix, KLU
};
// What integrate_ida uses for `model` with `options`.
IdaLinearAlgebra ida_linear_algebra(const Model& model, const IdaOptions& options);

// Integrates from state.t to t_end (t_end > state.t); the observer sees the initial state
// (with its consistent multipliers), then the outputs described above. Throws
// MethodNotApplicable when SUNDIALS is absent, NumericalFailure on IDA errors and on
// non-finite states. IntegrationStats: steps = IDA's internal steps, rejected = its error
// test and nonlinear-solver convergence failures, force_evaluations = residual evaluations.
IntegrationStats integrate_ida(const Model& model, State& state, const IdaOptions& options,
                               double t_end, double output_interval,
                               const std::function<void(const State&)>& observer);

// A model with events, forward in time: as integrate_ida with IDA taking one step at a time
// (IDA_ONE_STEP), each step handed to the EventTracker with the Hermite interpolant of its ends
// (hermite_step.hpp; IDA's own is linear after each restart), the rules of docs/events.md;
// `on_event` sees the state before and after each event's reinits (the velocity projected onto G v
// = 0 in a constrained model). After an event IDA starts again from the state after it (IDAReInit,
// with consistent derivatives and multipliers); while a contact is held the motion takes the steps
// of HeldContactSteps. IntegrationStats also count the events and say whether terminate() ended the
// run.
IntegrationStats integrate_ida_events(const Model& model, State& state, const IdaOptions& options,
                                      double t_end, double output_interval,
                                      const std::function<void(const State&)>& observer,
                                      const EventObserver& on_event, EventOptions events = {});

} // namespace mdl::runtime
