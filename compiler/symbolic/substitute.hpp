// Replacing variables by expressions, with the result re-canonicalized.
#pragma once

#include "symbolic/expr.hpp"

#include <span>
#include <vector>

namespace mdl::symbolic {

struct Replacement {
    Variable variable;
    ExprId by;
};

// Every occurrence of a replaced variable in `roots` becomes its replacement (all at once, not
// one after the other: x -> y, y -> x swaps them). Nodes whose children do not change are
// kept, the others are rebuilt through the canonicalizing constructors, so the results are
// simplified. One pass over the DAG shared by all roots.
std::vector<ExprId> substitute(ExprPool& pool, std::span<const ExprId> roots,
                               std::span<const Replacement> replacements);
ExprId substitute(ExprPool& pool, ExprId root, std::span<const Replacement> replacements);

} // namespace mdl::symbolic
