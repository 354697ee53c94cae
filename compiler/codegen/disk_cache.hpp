// The object cache on disk, shared by every process of this user: a second `mdl run` of an
// unchanged model links the machine code of the first instead of optimizing and compiling it
// again. Internal to mdl_codegen (mdl/code_cache.hpp is what users see).
//
// One file per compilation, named by its key in hex, in the folder of the environment:
// $MDL_CACHE_DIR, else $XDG_CACHE_HOME/mdl, else ~/.cache/mdl. The key is the in-process
// object key (object_cache.hpp: the system, the options, the target CPU) combined with the
// identity of the code generator (LLVM's version and build, mdl's version and build), so that
// a new LLVM or a new mdl never reads an object of an old one.
//
// Safe under concurrent processes: an entry is written to a temporary file in the same folder
// and renamed into place, so a reader sees a whole entry or none; every entry carries a header
// (magic, format, key, payload size, checksum) and a damaged one is removed and recompiled.
// The folder is bounded (MDL_CACHE_MAX_MB, 256 MB by default): storing evicts the entries used
// least recently (by modification time, which a hit refreshes). No I/O failure is an error:
// the caller compiles as if there were no cache and gets a one-line warning.
#pragma once

#include "codegen/object_cache.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace mdl::codegen {

// LLVM's version and build and mdl's version and build, as one line; empty when mdl's build
// cannot be identified (no GNU build id), in which case nothing is cached on disk.
const std::string& code_generator_identity();

class DiskCache {
public:
    static constexpr std::uint64_t default_max_bytes = 256ULL << 20;

    // The folder and size bound the environment asks for, or nullopt when there is no folder
    // to use (neither MDL_CACHE_DIR, XDG_CACHE_HOME nor HOME is set) or mdl's build is not
    // identified. A malformed MDL_CACHE_MAX_MB keeps the default and sets `warning`; 0 turns the
    // cache off (find and store do nothing).
    static std::optional<DiskCache> from_environment(std::string& warning);

    DiskCache(std::filesystem::path folder, std::uint64_t max_bytes, std::string identity);

    const std::filesystem::path& folder() const { return folder_; }
    std::uint64_t max_bytes() const { return max_bytes_; }

    // The file of the entry of `key` (the in-process key, combined here with the identity).
    std::filesystem::path entry_path(const ObjectKey& key) const;

    // The objects stored for `key`, or nullopt: absent, unreadable (`warning` set) or damaged
    // (the entry is removed and `warning` says so). A hit marks the entry as recently used.
    std::optional<ObjectCache::Objects> find(const ObjectKey& key, std::string& warning) const;
    // Stores the objects of `key`, then evicts down to max_bytes(). On failure nothing is
    // left behind but `warning`.
    void store(const ObjectKey& key, const ObjectCache::Objects& objects,
               std::string& warning) const;

    struct Usage {
        std::size_t entries = 0;
        std::uint64_t bytes = 0;
    };
    // The entries in the folder now (an absent folder is an empty cache).
    Usage usage() const;
    // Removes every entry (and abandoned temporary files); returns what was removed.
    Usage clear(std::string& warning) const;

private:
    std::filesystem::path folder_;
    std::uint64_t max_bytes_;
    std::string identity_;

    void evict(std::string& warning) const;
};

} // namespace mdl::codegen
