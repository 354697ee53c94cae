// SIGINT (Ctrl-C) and SIGTERM end `mdl run` and `mdl sweep` at a step boundary instead of
// killing them mid-line: the handler only records the signal, and the step observer of the
// run (mdl/simulate.hpp) checks it after each state, then ends the run there. A second signal of
// the same kind kills at once (the handler is reset), so a run that does not reach a step boundary
// can still be stopped.
#pragma once

#include <string>

namespace mdl::cli {

// Installs the handlers for SIGINT and SIGTERM (once; later calls do nothing).
void catch_interruptions();

// The signal received since catch_interruptions(), or 0.
int interruption_signal();

// "SIGINT", "SIGTERM", else "signal N".
std::string signal_name(int signal);

} // namespace mdl::cli
