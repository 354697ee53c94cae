#include "symbolic/numeric.hpp"

#include <algorithm>

namespace mdl::symbolic {

std::vector<ExprId> computation_order(const ExprPool& pool, std::span<const ExprId> roots) {
    if (roots.empty()) {
        return {};
    }
    const ExprId top = *std::max_element(roots.begin(), roots.end());
    std::vector<std::uint8_t> needed(top.index + 1, 0);
    for (ExprId r : roots) {
        needed[r.index] = 1;
    }
    // Children have smaller ids than their parents: one descending sweep suffices.
    std::size_t count = 0;
    for (std::size_t i = needed.size(); i-- > 0;) {
        if (needed[i] == 0) {
            continue;
        }
        ++count;
        const ExprId id{static_cast<std::uint32_t>(i)};
        const bool product = pool.op(id) == Op::mul;
        for (ExprId c : pool.children(id)) {
            needed[(product && is_denominator_factor(pool, c) ? pool.children(c)[0] : c).index] = 1;
        }
    }
    std::vector<ExprId> order;
    order.reserve(count);
    for (std::size_t i = 0; i < needed.size(); ++i) {
        if (needed[i] != 0) {
            order.push_back(ExprId{static_cast<std::uint32_t>(i)});
        }
    }
    return order;
}

std::vector<std::uint8_t> shared_reciprocals(const ExprPool& pool, std::span<const ExprId> order) {
    std::vector<std::uint8_t> uses(pool.size(), 0);
    const auto count = [&](ExprId base) {
        if (uses[base.index] < 2) {
            ++uses[base.index];
        }
    };
    for (ExprId id : order) {
        if (pool.op(id) == Op::mul) {
            for (ExprId c : pool.children(id)) {
                if (is_denominator_factor(pool, c)) {
                    count(pool.children(c)[0]);
                }
            }
        } else if (is_denominator_factor(pool, id)) {
            count(pool.children(id)[0]);
        }
    }
    for (std::uint8_t& u : uses) {
        u = u >= 2 ? 1 : 0;
    }
    return uses;
}

} // namespace mdl::symbolic
