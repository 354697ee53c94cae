// Symbolic differentiation: forward mode over the DAG, one pass per variable shared by all
// expressions being differentiated, each derivative node built (and so simplified) once.
//
// Built-ins: sin' = cos, cos' = -sin, tan' = 1 + tan^2, exp' = exp, log' = 1/x,
// sqrt' = 1/(2 sqrt x), sinh' = cosh, cosh' = sinh, tanh' = 1 - tanh^2,
// asin' = 1/sqrt(1 - x^2), acos' = -1/sqrt(1 - x^2), atan' = 1/(1 + x^2),
// atan2(y, x)' = (x y' - y x')/(x^2 + y^2), (u^w)' = w u^(w-1) u' + u^w log(u) w' (the log
// term only when the exponent depends on the variable, so x^2 stays defined for x < 0).
// abs' = sign, with sign(0) = 0: at the kink the derivative is the zero subgradient (the
// mean of the one-sided derivatives), so Jacobians stay finite. sign' = 0: its derivative is
// zero wherever it exists; the Dirac mass at 0 is not representable and is dropped.
// Likewise a comparison's derivative is 0 and (if c then a else b)' = if c then a' else b':
// the derivative on either side of the switching surface; the jump across it is dropped.
#pragma once

#include "symbolic/expr.hpp"
#include "symbolic/sparsity.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace mdl::symbolic {

// d e / d wrt for each root, in one pass over their shared DAG.
std::vector<ExprId> differentiate(ExprPool& pool, std::span<const ExprId> roots, Variable wrt);
ExprId differentiate(ExprPool& pool, ExprId root, Variable wrt);

// The Jacobian d roots[i] / d var(kind, j), j < count, row-major (roots.size() x count).
// Column j equals differentiate(pool, roots, var(kind, j)); each column is computed only on
// the nodes that depend on var j, so a sparse Jacobian costs about its structural nonzeros.
std::vector<ExprId> jacobian(ExprPool& pool, std::span<const ExprId> roots, VarKind kind,
                             std::uint32_t count);

// The same Jacobian as its structural nonzeros: the pattern of the entries that are not the
// constant +0.0 and their values, entry for entry those of jacobian(). Memory and work are
// those of the nonzeros (no roots.size() x count array).
struct SparseJacobian {
    Sparsity pattern;
    std::vector<ExprId> values;
};
SparseJacobian sparse_jacobian(ExprPool& pool, std::span<const ExprId> roots, VarKind kind,
                               std::uint32_t count);

// The gradient d e / d var(kind, j), j < count.
std::vector<ExprId> gradient(ExprPool& pool, ExprId e, VarKind kind, std::uint32_t count);

} // namespace mdl::symbolic
