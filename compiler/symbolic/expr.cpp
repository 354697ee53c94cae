#include "symbolic/expr.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>

namespace mdl::symbolic {

namespace {

struct FunctionInfo {
    std::string_view name;
    unsigned arity;
};

constexpr std::array<FunctionInfo, func_count> function_table{{
    {"sin", 1},
    {"cos", 1},
    {"tan", 1},
    {"exp", 1},
    {"log", 1},
    {"sqrt", 1},
    {"abs", 1},
    {"sign", 1},
    {"atan2", 2},
    {"sinh", 1},
    {"cosh", 1},
    {"tanh", 1},
    {"asin", 1},
    {"acos", 1},
    {"atan", 1},
    {"pow", 2},
}};

// splitmix64's finalizer: a cheap full-avalanche mix, so that nearby ids spread over the table.
std::uint64_t mix(std::uint64_t h) {
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    h ^= h >> 31;
    return h;
}

std::uint64_t bits_of(double value) {
    return std::bit_cast<std::uint64_t>(value);
}

} // namespace

std::string_view function_name(Func f) {
    return function_table[static_cast<std::size_t>(f)].name;
}

unsigned function_arity(Func f) {
    return function_table[static_cast<std::size_t>(f)].arity;
}

std::optional<Func> function_named(std::string_view name) {
    for (std::size_t i = 0; i < function_table.size(); ++i) {
        if (function_table[i].name == name) {
            return static_cast<Func>(i);
        }
    }
    return std::nullopt;
}

ExprPool::ExprPool(std::size_t node_limit) : node_limit_(std::max<std::size_t>(node_limit, 16)) {
    table_.assign(64, 0);
    zero_ = constant(0.0);
    one_ = constant(1.0);
    minus_one_ = constant(-1.0);
}

ExprId ExprPool::constant(double value) {
    // One zero and one NaN: -0.0 and 0.0 are the same real number, and NaN payloads carry
    // no meaning here. Without this, x - x and 0 would be different nodes.
    if (value == 0.0) {
        value = 0.0;
    } else if (std::isnan(value)) {
        value = std::numeric_limits<double>::quiet_NaN();
    }
    return intern(Op::constant, 0, 0, value, {});
}

ExprId ExprPool::variable(Variable v) {
    const std::uint32_t index = v.kind == VarKind::time ? 0 : v.index;
    return intern(Op::variable, static_cast<std::uint8_t>(v.kind), index, 0.0, {});
}

std::uint64_t ExprPool::hash_of(Op op, std::uint8_t tag, std::uint32_t index, double value,
                                std::span<const ExprId> children) const {
    std::uint64_t h = mix((std::uint64_t{static_cast<std::uint8_t>(op)} << 40) |
                          (std::uint64_t{tag} << 32) | index);
    h = mix(h ^ bits_of(value));
    for (ExprId c : children) {
        h = mix(h ^ (c.index + 0x9e3779b97f4a7c15ULL));
    }
    return h;
}

bool ExprPool::equals(ExprId id, Op op, std::uint8_t tag, std::uint32_t index, double value,
                      std::span<const ExprId> children) const {
    const Node& n = node(id);
    if (n.op != op || n.tag != tag || n.index != index || bits_of(n.value) != bits_of(value) ||
        n.child_count != children.size()) {
        return false;
    }
    return std::equal(children.begin(), children.end(), children_.begin() + n.first_child);
}

void ExprPool::grow_table() {
    std::vector<std::uint32_t> bigger(table_.size() * 2, 0);
    const std::size_t mask = bigger.size() - 1;
    for (std::uint32_t slot : table_) {
        if (slot == 0) {
            continue;
        }
        std::size_t i = hashes_[slot - 1] & mask;
        while (bigger[i] != 0) {
            i = (i + 1) & mask;
        }
        bigger[i] = slot;
    }
    table_ = std::move(bigger);
}

ExprId ExprPool::intern(Op op, std::uint8_t tag, std::uint32_t index, double value,
                        std::span<const ExprId> children) {
    const std::uint64_t h = hash_of(op, tag, index, value, children);
    const std::size_t mask = table_.size() - 1;
    std::size_t i = h & mask;
    while (table_[i] != 0) {
        const ExprId candidate{table_[i] - 1};
        if (hashes_[candidate.index] == h && equals(candidate, op, tag, index, value, children)) {
            return candidate;
        }
        i = (i + 1) & mask;
    }

    if (nodes_.size() >= node_limit_ ||
        children_.size() + children.size() > node_limit_ * child_slots_per_node) {
        throw ExpressionTooLarge(
            "the symbolic system needs more than " + std::to_string(node_limit_) +
            " expression nodes; the model's equations or their derivatives grow too large "
            "(raise the node limit if the model is genuinely this big)");
    }
    // `children` may be a view of children_ itself (a sub-list of an existing node), which
    // the insertion below could reallocate: copy it out first.
    std::vector<ExprId> own;
    const std::less<const ExprId*> before;
    if (!children.empty() && !children_.empty() && !before(children.data(), children_.data()) &&
        before(children.data(), children_.data() + children_.size())) {
        own.assign(children.begin(), children.end());
        children = own;
    }
    const auto id = static_cast<std::uint32_t>(nodes_.size());
    Node n;
    n.op = op;
    n.tag = tag;
    n.index = index;
    n.value = value;
    n.first_child = static_cast<std::uint32_t>(children_.size());
    n.child_count = static_cast<std::uint32_t>(children.size());
    children_.insert(children_.end(), children.begin(), children.end());
    nodes_.push_back(n);
    hashes_.push_back(h);
    table_[i] = id + 1;
    if (nodes_.size() * 2 > table_.size()) {
        grow_table();
    }
    return ExprId{id};
}

namespace {
int op_rank(Op op) {
    switch (op) {
    case Op::constant:
        return 0;
    case Op::variable:
        return 1;
    case Op::call:
        return 2;
    case Op::compare:
        return 3;
    case Op::select:
        return 4;
    case Op::pow:
        return 5;
    case Op::mul:
        return 6;
    case Op::add:
        return 7;
    }
    return 8;
}

template <class T>
int three_way(T a, T b) {
    return a < b ? -1 : (b < a ? 1 : 0);
}
} // namespace

int compare(const ExprPool& pool, ExprId a, ExprId b) {
    while (a != b) {
        const Node& na = pool.node(a);
        const Node& nb = pool.node(b);
        if (int c = three_way(op_rank(na.op), op_rank(nb.op))) {
            return c;
        }
        switch (na.op) {
        case Op::constant: {
            // Distinct nodes, so distinct values; NaN (one node) sorts last.
            if (std::isnan(na.value) || std::isnan(nb.value)) {
                return std::isnan(na.value) ? 1 : -1;
            }
            return three_way(na.value, nb.value);
        }
        case Op::variable:
            if (int c = three_way(na.tag, nb.tag)) {
                return c;
            }
            return three_way(na.index, nb.index);
        case Op::call:
        case Op::compare:
            if (int c = three_way(na.tag, nb.tag)) {
                return c;
            }
            break;
        default:
            break;
        }
        // Same head: the first differing children decide. Distinct canonical nodes are
        // structurally distinct, so a differing id means a differing structure.
        const auto ca = pool.children(a);
        const auto cb = pool.children(b);
        std::size_t i = 0;
        while (i < ca.size() && i < cb.size() && ca[i] == cb[i]) {
            ++i;
        }
        if (i == ca.size() || i == cb.size()) {
            return three_way(ca.size(), cb.size());
        }
        a = ca[i];
        b = cb[i];
    }
    return 0;
}

std::vector<ExprId> reachable_in_order(const ExprPool& pool, std::span<const ExprId> roots) {
    if (roots.empty()) {
        return {};
    }
    const ExprId top = *std::max_element(roots.begin(), roots.end());
    std::vector<std::uint8_t> marked(top.index + 1, 0);
    for (ExprId r : roots) {
        marked[r.index] = 1;
    }
    // Children have smaller ids than parents, so one descending sweep marks everything.
    std::size_t count = 0;
    for (std::size_t i = marked.size(); i-- > 0;) {
        if (marked[i] != 0) {
            ++count;
            for (ExprId c : pool.children(ExprId{static_cast<std::uint32_t>(i)})) {
                marked[c.index] = 1;
            }
        }
    }
    std::vector<ExprId> order;
    order.reserve(count);
    for (std::size_t i = 0; i < marked.size(); ++i) {
        if (marked[i] != 0) {
            order.push_back(ExprId{static_cast<std::uint32_t>(i)});
        }
    }
    return order;
}

} // namespace mdl::symbolic
