#include "mpi_sweep_launcher.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace mdl::cli {

void exec_mpi_sweep() {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) {
        return;
    }
    const std::filesystem::path helper = self.parent_path() / mpi_sweep_executable;
    if (access(helper.c_str(), X_OK) != 0) {
        return;
    }
    // This process's own arguments, NUL-separated (main's argv is not at hand here).
    std::ifstream cmdline("/proc/self/cmdline", std::ios::binary);
    const std::string text{std::istreambuf_iterator<char>(cmdline),
                           std::istreambuf_iterator<char>()};
    std::vector<std::string> arguments;
    for (std::size_t begin = 0; begin < text.size();) {
        const std::size_t end = text.find('\0', begin);
        arguments.push_back(text.substr(begin, end - begin));
        begin = end == std::string::npos ? text.size() : end + 1;
    }
    if (arguments.empty()) {
        return;
    }
    arguments[0] = helper.string();
    std::vector<char*> argv;
    for (std::string& a : arguments) {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    execv(helper.c_str(), argv.data());
}

} // namespace mdl::cli
