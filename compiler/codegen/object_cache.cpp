#include "codegen/object_cache.hpp"

#include <bit>
#include <utility>
#include <vector>

namespace mdl::codegen {

namespace {

// Two independent 64-bit lanes of splitmix-style mixing.
struct Hasher {
    std::uint64_t a = 0x6a09e667f3bcc908ULL;
    std::uint64_t b = 0xbb67ae8584caa73bULL;

    static std::uint64_t mix(std::uint64_t h) {
        h ^= h >> 30;
        h *= 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 27;
        h *= 0x94d049bb133111ebULL;
        h ^= h >> 31;
        return h;
    }
    void add(std::uint64_t word) {
        a = mix(a ^ word);
        b = mix(b + (word ^ 0x9e3779b97f4a7c15ULL));
    }
    void add(const Hasher& other) {
        add(other.a);
        add(other.b);
    }
    void add(std::string_view text) {
        for (char c : text) {
            add(static_cast<std::uint64_t>(static_cast<unsigned char>(c)));
        }
        add(text.size());
    }
};

} // namespace

ObjectKey object_key(const symbolic::System& system, const CodegenOptions& options,
                     std::string_view target_description) {
    const symbolic::ExprPool& pool = system.pool();
    std::vector<symbolic::ExprId> roots;
    for (symbolic::Kernel k : symbolic::all_kernels) {
        const auto& list = system.outputs(k);
        roots.insert(roots.end(), list.begin(), list.end());
    }
    // Node hashes bottom-up: a node's hash covers its whole sub-expression.
    const auto order = symbolic::reachable_in_order(pool, roots);
    std::vector<Hasher> node_hash(order.empty() ? 0 : order.back().index + 1);
    for (symbolic::ExprId id : order) {
        const symbolic::Node& n = pool.node(id);
        Hasher h;
        h.add((std::uint64_t{static_cast<std::uint8_t>(n.op)} << 40) |
              (std::uint64_t{n.tag} << 32) | n.index);
        h.add(std::bit_cast<std::uint64_t>(n.value));
        for (symbolic::ExprId c : pool.children(id)) {
            h.add(node_hash[c.index]);
        }
        node_hash[id.index] = h;
    }

    Hasher key;
    key.add(target_description);
    key.add(static_cast<std::uint64_t>(options.opt_level));
    key.add(options.fast_math ? 1U : 0U);
    key.add(options.section_operations);
    key.add(options.slp_max_jacobian_instructions);
    key.add(options.optimize_jacobian_sections ? 1U : 0U);
    key.add(options.optimize_potential_sections ? 1U : 0U);
    const symbolic::SystemSizes& s = system.sizes();
    for (std::uint64_t size : {s.positions, s.states, s.constraints, s.vibrations, s.parameters}) {
        key.add(size);
    }
    // the layout of the kernels: matrix kernels as values + dense wrapper (emit_ir.hpp)
    key.add(std::string_view("sparse-matrix-kernels"));
    for (symbolic::Kernel k : symbolic::all_kernels) {
        if (symbolic::is_matrix_kernel(k) && system.is_sparse(k)) {
            const symbolic::Sparsity pattern = system.sparsity(k);
            key.add(std::uint64_t{pattern.rows} << 32 | pattern.columns);
            for (std::uint32_t r : pattern.row_start) {
                key.add(r);
            }
            for (std::uint32_t c : pattern.column) {
                key.add(c);
            }
        }
        const auto& list = system.outputs(k);
        key.add(list.size());
        // the nonzero outputs with their positions: a Jacobian's zeros cost a compare each
        for (std::size_t i = 0; i < list.size(); ++i) {
            if (list[i] != pool.zero()) {
                key.add(i);
                key.add(node_hash[list[i].index]);
            }
        }
    }
    return {key.a, key.b};
}

ObjectKey combined_key(const ObjectKey& key, std::string_view text) {
    Hasher h;
    h.add(key.high);
    h.add(key.low);
    h.add(text);
    return {h.a, h.b};
}

ObjectCache& ObjectCache::process() {
    static ObjectCache cache;
    return cache;
}

std::optional<ObjectCache::Objects> ObjectCache::find(const ObjectKey& key) {
    const std::lock_guard lock(mutex_);
    for (const Entry& e : entries_) {
        if (e.key == key) {
            return e.objects;
        }
    }
    return std::nullopt;
}

void ObjectCache::store(const ObjectKey& key, Objects objects) {
    const std::lock_guard lock(mutex_);
    for (const Entry& e : entries_) {
        if (e.key == key) {
            return; // a concurrent compilation of the same system got here first
        }
    }
    entries_.push_back({key, std::move(objects)});
    if (entries_.size() > capacity) {
        entries_.pop_front();
    }
}

void ObjectCache::clear() {
    const std::lock_guard lock(mutex_);
    entries_.clear();
}

} // namespace mdl::codegen
