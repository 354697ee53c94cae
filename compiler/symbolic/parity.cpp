#include "symbolic/parity.hpp"

#include "symbolic/substitute.hpp"

#include <algorithm>
#include <vector>

namespace mdl::symbolic {

bool is_even_in(ExprPool& pool, std::span<const ExprId> roots, Variable v) {
    const Replacement mirror[] = {{v, pool.neg(pool.variable(v))}};
    const std::vector<ExprId> mirrored = substitute(pool, roots, mirror);
    return std::equal(roots.begin(), roots.end(), mirrored.begin());
}

bool is_even_in(ExprPool& pool, ExprId root, Variable v) {
    const ExprId roots[] = {root};
    return is_even_in(pool, roots, v);
}

bool is_even_in_phase(ExprPool& pool, std::span<const ExprId> roots, std::uint32_t vibration) {
    return is_even_in(pool, roots, Variable{VarKind::phase, vibration});
}

bool is_even_in_all_phases(ExprPool& pool, std::span<const ExprId> roots,
                           std::uint32_t vibrations) {
    std::vector<Replacement> mirror;
    for (std::uint32_t i = 0; i < vibrations; ++i) {
        const Variable v{VarKind::phase, i};
        mirror.push_back({v, pool.neg(pool.variable(v))});
    }
    const std::vector<ExprId> mirrored = substitute(pool, roots, mirror);
    return std::equal(roots.begin(), roots.end(), mirrored.begin());
}

} // namespace mdl::symbolic
