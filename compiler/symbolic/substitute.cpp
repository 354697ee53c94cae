#include "symbolic/substitute.hpp"

#include "symbolic/simplify.hpp"

#include <algorithm>

namespace mdl::symbolic {

std::vector<ExprId> substitute(ExprPool& pool, std::span<const ExprId> roots,
                               std::span<const Replacement> replacements) {
    const std::vector<ExprId> order = reachable_in_order(pool, roots);
    std::vector<ExprId> image(order.empty() ? 0 : order.back().index + 1);
    std::vector<ExprId> kids;
    for (ExprId id : order) {
        const Node n = pool.node(id);
        if (n.op == Op::variable) {
            const Variable v = pool.variable_of(id);
            const auto r = std::find_if(replacements.begin(), replacements.end(),
                                        [&](const Replacement& x) { return x.variable == v; });
            image[id.index] = r == replacements.end() ? id : r->by;
            continue;
        }
        kids.clear();
        bool changed = false;
        for (ExprId c : pool.children(id)) {
            kids.push_back(image[c.index]);
            changed = changed || image[c.index] != c;
        }
        image[id.index] = changed ? rebuild(pool, id, kids) : id;
    }
    std::vector<ExprId> result;
    result.reserve(roots.size());
    for (ExprId r : roots) {
        result.push_back(image[r.index]);
    }
    return result;
}

ExprId substitute(ExprPool& pool, ExprId root, std::span<const Replacement> replacements) {
    const ExprId roots[] = {root};
    return substitute(pool, roots, replacements)[0];
}

} // namespace mdl::symbolic
