// A write that failed (a full disk, a closed pipe, a folder that cannot be created): what a
// sweep's summary, an FMU or a C library's files could not become. `mdl` exits with status 4.
#pragma once

#include <stdexcept>
#include <string>

namespace mdl {

// "writing 'out.csv': No space left on device".
class WriteFailure : public std::runtime_error {
public:
    WriteFailure(const std::string& file, const std::string& reason)
        : std::runtime_error("writing '" + file + "': " + reason) {}
    explicit WriteFailure(const std::string& message) : std::runtime_error(message) {}
};

} // namespace mdl
