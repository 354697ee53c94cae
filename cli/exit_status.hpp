// The exit statuses of mdl (README.md and docs/cli.md list them) and the two ways a command
// ends early that are not errors of the model or of the options: an output that could not be
// written, and a signal that asked the run to stop.
#pragma once

#include "mdl/write_failure.hpp"

namespace mdl::cli {

namespace exit_status {
constexpr int success = 0;
constexpr int model_error = 1;       // clang-style diagnostics (also `mdl reproduce` misses)
constexpr int bad_input = 2;         // a one-line error naming the flag or file
constexpr int numerical_failure = 3; // time, variable and method; the CSV so far stays valid
constexpr int output_failed = 4;     // a write failed (disk full, closed pipe); output so far valid
constexpr int internal_error = 5;    // an exception no command expected (a bug in mdl)
// SIGINT and SIGTERM: 128 + the signal number, 130 and 143, as a shell reports them.
constexpr int interrupted(int signal) {
    return 128 + signal;
}
} // namespace exit_status

// A write that failed: "writing 'out.csv': No space left on device" (the library's).
using mdl::WriteFailure;

} // namespace mdl::cli
