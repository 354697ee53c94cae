#include "symbolic/dependence.hpp"

#include <algorithm>

namespace mdl::symbolic {

std::vector<Variable> variables_in(const ExprPool& pool, std::span<const ExprId> roots) {
    std::vector<Variable> found;
    for (ExprId id : reachable_in_order(pool, roots)) {
        if (pool.op(id) == Op::variable) {
            found.push_back(pool.variable_of(id));
        }
    }
    // Hash-consing makes each variable one node, so there are no duplicates to remove.
    std::sort(found.begin(), found.end(), [](Variable a, Variable b) {
        return a.kind != b.kind ? a.kind < b.kind : a.index < b.index;
    });
    return found;
}

bool depends_on(const ExprPool& pool, std::span<const ExprId> roots, VarKind kind) {
    const auto order = reachable_in_order(pool, roots);
    return std::any_of(order.begin(), order.end(), [&](ExprId id) {
        return pool.op(id) == Op::variable && pool.variable_of(id).kind == kind;
    });
}

bool depends_on(const ExprPool& pool, std::span<const ExprId> roots, Variable v) {
    const auto order = reachable_in_order(pool, roots);
    return std::any_of(order.begin(), order.end(), [&](ExprId id) {
        return pool.op(id) == Op::variable && pool.variable_of(id) == v;
    });
}

bool depends_on(const ExprPool& pool, ExprId root, VarKind kind) {
    const ExprId roots[] = {root};
    return depends_on(pool, roots, kind);
}

bool depends_on(const ExprPool& pool, ExprId root, Variable v) {
    const ExprId roots[] = {root};
    return depends_on(pool, roots, v);
}

} // namespace mdl::symbolic
