// Ending simulations and sweeps early at a step boundary. The library reads one flag: set by
// the handlers of catch_interruptions() (SIGINT, SIGTERM: what `mdl run` and `mdl sweep`
// install) or by the host with request_interruption(). Runs check it after each state (the step
// observer of mdl/simulate.hpp in a sweep, SweepRunner::run) and end there; a sweep starts no new
// run once it is set, and forwards it to its worker processes. A second signal of the same kind
// kills at once (the handler is reset), so a run that does not reach a step boundary can still
// be stopped.
#pragma once

#include <string>

namespace mdl {

// Installs the handlers for SIGINT and SIGTERM (once; later calls do nothing). Opt-in: a host
// with its own handling (Python's KeyboardInterrupt) does not call it.
void catch_interruptions();

// Sets the flag as if `signal` had been received (async-signal-safe).
void request_interruption(int signal);

// The signal received (or requested) since the start, or 0.
int interruption_signal();

// "SIGINT", "SIGTERM", else "signal N".
std::string signal_name(int signal);

} // namespace mdl
