// What `mdl export` needs to build its binaries with the system's compiler: a temporary folder,
// files written and read, shell quoting and the compiler's command ($CXX, else c++).
#pragma once

#include "mdl/export.hpp"

#include <filesystem>
#include <stdexcept>
#include <string>

namespace mdl::exporting {

// A temporary folder removed with everything in it when this goes out of scope.
class TemporaryFolder {
public:
    TemporaryFolder();
    TemporaryFolder(const TemporaryFolder&) = delete;
    TemporaryFolder& operator=(const TemporaryFolder&) = delete;
    ~TemporaryFolder();
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

// Throw LinkFailure when the file cannot be written.
void write_file(const std::filesystem::path& path, const std::string& bytes);
std::string read_file(const std::filesystem::path& path);
// 'text' for /bin/sh.
std::string shell_quote(const std::string& text);
// The compiler as a command: $CXX, else c++, found on PATH (or given as a path); LinkFailure
// naming it when there is none.
std::string system_compiler();
// Runs `command` (its output to `log`); LinkFailure with the command and the log when it fails
// or `product` is not there afterwards.
void run_or_throw(const std::string& command, const std::filesystem::path& log,
                  const std::filesystem::path& product, const std::string& what);

} // namespace mdl::exporting
