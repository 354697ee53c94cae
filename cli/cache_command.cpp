// mdl cache info | clear: the code cache on disk that compilations share (mdl/code_cache.hpp).
#include "commands.hpp"
#include "mdl/code_cache.hpp"

#include <fmt/format.h>
#include <iostream>

namespace mdl::cli {

namespace {

std::string megabytes(std::uint64_t bytes) {
    return fmt::format("{:.1f} MB", static_cast<double>(bytes) / (1 << 20));
}

int print_info() {
    const CodeCacheInfo info = code_cache_info();
    if (!info.warning.empty()) {
        std::cerr << fmt::format("mdl: warning: code cache: {}\n", info.warning);
    }
    if (!info.enabled) {
        std::cout << "code cache: off (no folder: set MDL_CACHE_DIR, XDG_CACHE_HOME or HOME; or "
                     "this build of mdl has no build id)\n";
        return 0;
    }
    std::cout << fmt::format("folder: {}\nentries: {}\nbytes: {} ({})\nlimit: {} "
                             "(MDL_CACHE_MAX_MB)\nkeyed by: {}\n",
                             info.folder, info.entries, info.bytes, megabytes(info.bytes),
                             megabytes(info.max_bytes), info.code_generator);
    return 0;
}

int clear() {
    const CodeCacheInfo removed = clear_code_cache();
    if (!removed.enabled) {
        std::cout << "code cache: off, nothing to clear\n";
        return 0;
    }
    std::cout << fmt::format("removed {} entries ({}) from {}\n", removed.entries,
                             megabytes(removed.bytes), removed.folder);
    if (!removed.warning.empty()) {
        std::cerr << fmt::format("mdl cache clear: error: {}\n", removed.warning);
        return 1;
    }
    return 0;
}

} // namespace

std::function<int()> add_cache_command(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand(
        "cache", "Show or empty the code cache on disk: the machine code of compiled models, "
                 "reused by later runs ($MDL_CACHE_DIR, else $XDG_CACHE_HOME/mdl, else "
                 "~/.cache/mdl; at most MDL_CACHE_MAX_MB megabytes, 256 by default)");
    cmd->require_subcommand(1);
    CLI::App* info = cmd->add_subcommand("info", "Print the folder, its entries and their size");
    CLI::App* clear_cmd = cmd->add_subcommand("clear", "Remove every entry");
    return [info, clear_cmd]() {
        if (info->parsed()) {
            return print_info();
        }
        if (clear_cmd->parsed()) {
            return clear();
        }
        return 2;
    };
}

} // namespace mdl::cli
