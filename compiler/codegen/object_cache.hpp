// An in-process cache of compiled kernel objects: compiling the same system twice (a host
// that recompiles its model, a sweep driver, the test suite) skips IR generation, optimization
// and code generation and only links the cached machine code again. Internal to mdl_codegen.
#pragma once

#include "codegen/options.hpp"
#include "symbolic/system.hpp"

#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mdl::codegen {

// A 128-bit structural hash of every kernel's outputs (a Merkle hash over the DAG, so it
// does not depend on node ids or build order) and of the options and the target CPU.
struct ObjectKey {
    std::uint64_t high = 0;
    std::uint64_t low = 0;
    friend bool operator==(const ObjectKey&, const ObjectKey&) = default;
};

ObjectKey object_key(const symbolic::System& system, const CodegenOptions& options,
                     std::string_view target_description);

// `key` combined with `text` (disk_cache.hpp: with the identity of the code generator).
ObjectKey combined_key(const ObjectKey& key, std::string_view text);

// The process-wide cache. Thread-safe; keeps the most recently stored `capacity` objects.
class ObjectCache {
public:
    static constexpr std::size_t capacity = 64;

    static ObjectCache& process();

    // The objects of one compilation (one per partition, partition.hpp).
    using Objects = std::vector<std::string>;

    std::optional<Objects> find(const ObjectKey& key);
    void store(const ObjectKey& key, Objects objects);
    // Forgets every object (the next compilation of any system looks on disk, or compiles).
    void clear();

private:
    struct Entry {
        ObjectKey key;
        Objects objects;
    };
    std::mutex mutex_;
    std::deque<Entry> entries_; // oldest first
};

} // namespace mdl::codegen
