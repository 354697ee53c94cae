// One SUNDIALS IDA integration (ida.hpp) of a model: set up from a state, stepped one call of
// IDASolve at a time and restarted from a new state (IDAReInit); what integrate_ida and
// integrate_ida_events share.
#pragma once

#include "runtime/integrate.hpp"
#include "runtime/integrators/ida.hpp"
#include "runtime/model.hpp"
#include "runtime/state.hpp"

#include <memory>

namespace mdl::runtime::detail {

// The arguments of an ida run checked (std::invalid_argument).
void require_ida_run(const Model& model, const State& state, const IdaOptions& options,
                     double t_end, double output_interval);

// The accelerations a, rates xdot and multipliers (into s.lambda) consistent with s: the
// saddle-point system of M(q) and G(q), as IDA starts from.
void ida_consistent_derivatives(const Model& model, State& s, Vector& a, Vector& xdot);

class IdaSession {
public:
    // IDA set up from `state` (positions and velocities on the constraints) towards t_end:
    // state.lambda receives the consistent multipliers there. Built with SUNDIALS only.
    IdaSession(const Model& model, const IdaOptions& options, State& state, double t_end);
    ~IdaSession();
    IdaSession(const IdaSession&) = delete;
    IdaSession& operator=(const IdaSession&) = delete;

    // One call of IDASolve towards target (IDA_ONE_STEP when one_step, else IDA_NORMAL):
    // `out` is the state reached (the target, or IDA's step); true when it is t_end.
    // Throws NumericalFailure naming the time, `ida`, IDA's flag and the worst variable.
    bool advance(double target, bool one_step, State& out);
    // A new initial value problem from s (an event's reinits): s.lambda and the derivatives
    // made consistent as at the start, IDA's history forgotten (order 1).
    void restart(State& s);
    // steps, rejected (error test and convergence failures) and residual evaluations of every
    // integration since the construction.
    IntegrationStats statistics() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace mdl::runtime::detail
