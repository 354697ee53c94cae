// The simplification rules behind ExprPool's constructors (add, mul, pow, call, comparison,
// select), and the small facts about expressions those rules rely on.
//
// Soundness policy (real numbers): a rewrite may only replace f by g when g(x) == f(x) at
// every point where f is defined and finite. Rewrites that are only valid on part of the
// domain are guarded: exp(log x) -> x only when x is known positive, sqrt(x)^2 -> x only when
// x is known non-negative, (x^a)^b -> x^(a*b) only for integer a and b (or a known positive
// x), while sqrt(x^2) -> abs(x) and log(exp x) -> x hold everywhere. The one deliberate
// exception is the standard cancellation that every CAS performs and that differentiation
// cannot do without: x*0 -> 0, x - x -> 0 and x/x -> 1 (x^n * x^-n -> 1) also apply where x
// is infinite, NaN or (for x/x) zero, extending the domain by continuity. Constants are folded
// only when the result is finite, so log(0) or 1/0 stay visible in the printed system.
//
// Canonical form (what the constructors guarantee for every node):
//   add: flat, >= 2 children, at most one non-zero constant (first), then terms c*t with
//        distinct t, sorted by t in the canonical order (compare), c != 0.
//   mul: flat, >= 2 children, at most one constant coefficient c != 0, 1 (first), then
//        factors b^e with distinct b sorted by b in the canonical order (integer e; a non-integer
//        power is a factor of its own); c*(a + b) with a single sum factor is distributed; a sum
//        raised to an integer power (or multiplied with other factors) is sign-normalized so that
//        its first term is positive: (a - b)^2 and (b - a)^2 are one node.
//   half-integer powers are integer powers of a square root: x^1.5 -> sqrt(x)^3.
//   odd and even functions take sign-normalized arguments: cos(-x) -> cos(x),
//        sin(-x) -> -sin(x) (see is_negative_form).
//   compare: a relation lt, le, eq or ne of two operands that are not both constants (a > b is
//        b < a, a >= b is b <= a; eq and ne have their operands in the canonical order), never
//        of an operand with itself (x < x -> 0, x <= x -> 1, ...).
//   select: a condition that is not a constant, not `x <> 0` (that is x), not a select with
//        constant branches (select(not d, a, b) is select(d, b, a)); distinct branches, neither
//        a select on the same condition; not select(c, 1, 0) for a 0/1-valued c (that is c).
#pragma once

#include "symbolic/expr.hpp"

#include <optional>
#include <span>
#include <vector>

namespace mdl::symbolic {

// True when e > 0 wherever e is defined (a sufficient syntactic test: constants, exp, cosh,
// sums and products of such). False means "not known", not "not positive".
bool is_known_positive(const ExprPool& pool, ExprId e);
// True when e >= 0 wherever e is defined (adds abs, sqrt, even powers).
bool is_known_nonnegative(const ExprPool& pool, ExprId e);

// The sign normal form used for odd and even functions: exactly one of e and -e is in
// negative form unless e == 0. A negative constant, a product with a negative coefficient, and
// a sum whose first term (in the canonical order) is in negative form are.
bool is_negative_form(const ExprPool& pool, ExprId e);

// The exponent of a power node when it is an integer constant.
std::optional<double> integer_exponent(const ExprPool& pool, ExprId pow_node);
bool is_integer(double value);

// e = coefficient * rest with rest free of a numeric coefficient (rest == 1 for a constant).
struct Term {
    double coefficient = 1.0;
    ExprId rest;
};
Term split_coefficient(ExprPool& pool, ExprId e);

// A node of the same kind as `original` (same op, function or variable) over new children,
// built through the canonicalizing constructors. Used by every rewrite that maps children
// (substitution, simplification).
ExprId rebuild(ExprPool& pool, ExprId original, std::span<const ExprId> new_children);

// Rebuilds e bottom-up through the canonicalizing constructors. Every node built by the pool's
// constructors is already canonical, so this is the identity on them; it matters for nodes
// made with ExprPool::intern directly.
ExprId simplify(ExprPool& pool, ExprId e);

// The form differentiation wants: every product that divides a sum by one of its own terms
// split off that term, (S + c X) X^-k = S X^-k + c X^(1-k) for k >= 1 (X != 0 on both sides).
// A spring's force k (L - r) d / r becomes k d (L/r - 1), whose derivative is the closed form
// k [(L/r - 1) I - L d d^T / r^3]; differentiating the product (L - r)/r instead leaves terms
// d d^T/r^2 that cancel only after expanding. Not a canonical form of the pool's constructors:
// for evaluation the unsplit product is as good or better (a spring's force keeps one
// subtraction and vectorizes across springs), so only derive_kernels applies it, to the
// expressions it differentiates.
std::vector<ExprId> split_term_quotients(ExprPool& pool, std::span<const ExprId> roots);

} // namespace mdl::symbolic
