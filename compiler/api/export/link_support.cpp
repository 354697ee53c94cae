#include "link_support.hpp"

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace mdl::exporting {

namespace fs = std::filesystem;

TemporaryFolder::TemporaryFolder() {
    std::string pattern = (fs::temp_directory_path() / "mdl-export-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
        throw LinkFailure("cannot create a temporary folder in " +
                          fs::temp_directory_path().string());
    }
    path_ = pattern;
}

TemporaryFolder::~TemporaryFolder() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
}

void write_file(const fs::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
        throw LinkFailure("cannot write " + path.string());
    }
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string shell_quote(const std::string& text) {
    std::string out = "'";
    for (char c : text) {
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return out + "'";
}

// The compiler as a command: $CXX, else c++, found on PATH (or given as a path).
std::string system_compiler() {
    const char* cxx = std::getenv("CXX");
    const std::string name = cxx != nullptr && cxx[0] != '\0' ? cxx : "c++";
    if (name.find('/') != std::string::npos) {
        if (access(name.c_str(), X_OK) == 0) {
            return name;
        }
    } else if (const char* path = std::getenv("PATH")) {
        std::stringstream folders(path);
        std::string folder;
        while (std::getline(folders, folder, ':')) {
            if (!folder.empty() && access((fs::path(folder) / name).c_str(), X_OK) == 0) {
                return name;
            }
        }
    }
    throw LinkFailure(fmt::format(
        "no C++ compiler '{}' found{}: mdl export links the FMU's shared object with the system "
        "compiler (install g++ or clang, or set CXX)",
        name, cxx != nullptr ? " ($CXX)" : " on PATH"));
}

void run_or_throw(const std::string& command, const fs::path& log, const fs::path& product,
                  const std::string& what) {
    const int status = std::system((command + " > " + shell_quote(log.string()) + " 2>&1").c_str());
    if (status != 0 || !fs::is_regular_file(product)) {
        throw LinkFailure(fmt::format("{} failed ({}):\n{}", what, command, read_file(log)));
    }
}

} // namespace mdl::exporting
