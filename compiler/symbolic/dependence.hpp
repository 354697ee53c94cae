// Which variables an expression mentions.
#pragma once

#include "symbolic/expr.hpp"

#include <span>
#include <vector>

namespace mdl::symbolic {

// The distinct variables the roots mention, ordered by kind, then index.
std::vector<Variable> variables_in(const ExprPool& pool, std::span<const ExprId> roots);

// Whether any root mentions a variable of this kind (any index), or this very variable.
// Syntactic: sin(q)^2 + cos(q)^2 - 1 would count as depending on q if it were not folded.
bool depends_on(const ExprPool& pool, std::span<const ExprId> roots, VarKind kind);
bool depends_on(const ExprPool& pool, std::span<const ExprId> roots, Variable v);
bool depends_on(const ExprPool& pool, ExprId root, VarKind kind);
bool depends_on(const ExprPool& pool, ExprId root, Variable v);

} // namespace mdl::symbolic
