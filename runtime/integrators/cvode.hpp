// SUNDIALS CVODE (Hindmarsh et al., "SUNDIALS: Suite of nonlinear and differential/algebraic
// equation solvers", ACM TOMS 31, 2005) on the first-order form y = (q, v, x),
// y' = (v, M^-1 f(t, q, v, x), rates(t, q, v, x)), as two runtime methods:
//
//  - cvode-adams: variable-order (1..12), variable-step Adams-Moulton with functional
//    (fixed-point) iteration, for non-stiff problems; the reference direct integrator of
//    the multiscale benchmarks (bench/multiscale_bench.cpp).
//  - cvode-bdf: variable-order (1..5) BDF with Newton's method and a dense linear solver,
//    for stiff problems. The Jacobian
//        [ 0    I    0 ]
//        [ a_q  a_v  0 ]      a = M^-1 f,  a_q = M^-1 df/dq,  a_v = M^-1 df/dv
//    comes from the model's df/dq and df/dv kernels (ModelForce::acceleration_jacobians:
//    central differences of the force when the model has none); with first-order states,
//    whose rates have no derivative kernels, CVODE's own difference quotients are used.
//
// Constrained models (cvode-bdf only): the accelerations of the index-1 form, the saddle-point
// system of M(q) and G(q) (ConstrainedModelForce), with CVODE's difference-quotient Jacobian.
// There is no projection: g(q) and G v drift with the integration error (2e-11 after 0.3 s of
// the wall pendulum at rtol 1e-12, tests/api/constrained_kinetic_energy_test.cpp). CVODE's
// projection interface (CVodeSetProjFn, BDF only) collapsed the step size at rtol <= 1e-11 on
// that model and is not used; for constraints held to round-off use dopri5, rk4 (projection
// after every step) or ida (the constraints are equations of the DAE). cvode-adams refuses
// constrained models.
//
// Tolerances: CVODE's weighted RMS norm with scalar rtol and atol. Output as the driver gives
// it for DOPRI5: every internal step (output_interval = 0) or the states at
// t0 + k output_interval and t_end, interpolated by CVODE (CV_NORMAL mode); the integration
// never steps past t_end (CVodeSetStopTime). Force evaluations are the model's, counted by
// ModelForce (right-hand sides, difference-quotient Jacobians included). A CVODE error is a
// NumericalFailure naming the time, the method, CVODE's flag and message and the variable
// with the largest weighted local error.
//
// Events (docs/events.md): integrate_cvode_events takes CVODE's steps one at a time and hands
// each to the EventTracker with CVODE's own interpolant of the step (CVodeGetDky), the same
// detection, reinit and resting rules as dopri5 and rk4; after an event, or a projection onto
// a contact held at rest, CVODE starts again from the new state (CVodeReInit: order 1, its
// step history forgotten).
//
// Optional at build time: without SUNDIALS (libsundials-dev) cvode_available() is false, the
// methods are not listed by methods() and integrate_cvode throws MethodNotApplicable.
#pragma once

#include "runtime/events/event_tracker.hpp"
#include "runtime/integrate.hpp"
#include "runtime/model.hpp"
#include "runtime/sparse_jacobians.hpp"
#include "runtime/state.hpp"

#include <cstddef>
#include <functional>
#include <limits>
#include <string_view>

namespace mdl::runtime {

struct Dopri5Options;

enum class CvodeMethod { adams, bdf };

// "cvode-adams" / "cvode-bdf", as on the command line.
std::string_view to_string(CvodeMethod method);

// Whether this build of mdl has SUNDIALS.
bool cvode_available();

struct CvodeOptions {
    double rtol = 1e-6;
    double atol = 1e-9;
    double initial_step = 0.0;                                 // 0: CVODE's estimate
    double max_step = std::numeric_limits<double>::infinity(); // no limit
    std::size_t max_steps = 0; // internal steps in all (0: no limit)
    int max_order = 0;         // 0: CVODE's default (12 Adams, 5 BDF)
    // cvode-bdf: the Jacobian from the model's kernels (true) or CVODE's difference
    // quotients (false; always so with first-order states).
    bool model_jacobian = true;
    // cvode-bdf with the model's Jacobian: a sparse Jacobian and SUNDIALS' KLU solver
    // (sparse_jacobians.hpp) or a dense one and dense LU; automatic picks by size.
    LinearAlgebra linear_algebra = LinearAlgebra::automatic;
};

// The settings cvode-* share with dopri5's (rtol, atol, initial_step, max_step, max_steps), as
// `mdl run` and the event driver pass them.
CvodeOptions cvode_options(const Dopri5Options& adaptive);

// Integrates from state.t to t_end (which may lie before state.t); the observer sees the
// initial state, then the outputs described above. Throws MethodNotApplicable for
// constrained models with cvode-adams (and when SUNDIALS is absent), NumericalFailure on CVODE
// errors and on non-finite states. IntegrationStats: steps = CVODE's internal steps, rejected = its
// error test and nonlinear-solver convergence failures.
IntegrationStats integrate_cvode(const Model& model, State& state, CvodeMethod method,
                                 const CvodeOptions& options, double t_end, double output_interval,
                                 const std::function<void(const State&)>& observer);

// A model with events, forward in time: as integrate_cvode, and at each event `on_event` sees
// the state before and after its reinits with the event's name. IntegrationStats also
// count the events (event_counts, event_rests) and say whether terminate() ended the run.
IntegrationStats integrate_cvode_events(const Model& model, State& state, CvodeMethod method,
                                        const CvodeOptions& options, double t_end,
                                        double output_interval,
                                        const std::function<void(const State&)>& observer,
                                        const EventObserver& on_event, EventOptions events = {});

} // namespace mdl::runtime
