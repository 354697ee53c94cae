// The code cache on disk that mdl::compile shares with every process of this user (and that
// `mdl cache info` and `mdl cache clear` show and empty): one file of machine code per compiled
// model, in $MDL_CACHE_DIR, else $XDG_CACHE_HOME/mdl, else ~/.cache/mdl, bounded by
// MDL_CACHE_MAX_MB megabytes (256 by default; the least recently used entries go first).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace mdl {

struct CodeCacheInfo {
    bool enabled = false;    // false: no folder (no HOME) or this build of mdl has no build id
    std::string folder;      // where the entries are (even when it does not exist yet)
    std::size_t entries = 0; // files of machine code in it
    std::uint64_t bytes = 0; // their total size
    std::uint64_t max_bytes = 0;
    // What the entries of this process are keyed by besides the model: LLVM's version and
    // build id, mdl's version and build id (another LLVM or mdl never reads them).
    std::string code_generator;
    std::string warning; // a malformed MDL_CACHE_MAX_MB, or what clear could not remove
};

// The cache as the environment of this process selects it, and what it holds now.
CodeCacheInfo code_cache_info();
// Removes every entry; returns what was removed (entries, bytes), and the folder.
CodeCacheInfo clear_code_cache();

} // namespace mdl
