// SIGINT (Ctrl-C) and SIGTERM end `mdl run` and `mdl sweep` at a step boundary instead of
// killing them mid-line: the library's flag (mdl/interruption.hpp), set by the handlers that
// catch_interruptions() installs, checked by the step observer of the run after each state.
#pragma once

#include "mdl/interruption.hpp"

namespace mdl::cli {

using mdl::catch_interruptions;
using mdl::interruption_signal;
using mdl::signal_name;

} // namespace mdl::cli
