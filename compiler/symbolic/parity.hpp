// Whether a function of a vibration's phase is even: f(-theta) == f(theta). The HMM
// asynchronous algorithm can halve its quadrature for even forces.
#pragma once

#include "symbolic/expr.hpp"

#include <cstdint>
#include <span>

namespace mdl::symbolic {

// Substitutes v -> -v and compares the canonical (hash-consed) results. Sound: true means
// every root is even in v, because every rewrite is an identity. Incomplete: false means "not
// shown". The canonical forms of odd and even functions (sin(-x) -> -sin(x),
// cos(-x) -> cos(x), (-x)^2 -> x^2) and of sums (sorted terms) make the common cases
// provable: cos(theta), sin(theta)^2, sin(theta)*tan(theta), exp(theta) + exp(-theta); but
// atan2(sin(theta), 1)*sin(theta) is even and not shown, since atan2 has no sign rule.
// Conditionals are shown even when their condition and both branches are (if cos(theta) > 0
// then cos(theta) else theta^2), never on the strength of one branch; if sin(theta) > 0 then
// sin(theta) else -sin(theta) is |sin(theta)|, even, and not shown (the mirrored condition is
// 0 < -sin(theta), a different relation).
bool is_even_in(ExprPool& pool, std::span<const ExprId> roots, Variable v);
bool is_even_in(ExprPool& pool, ExprId root, Variable v);

// is_even_in for the phase theta_i of vibration i.
bool is_even_in_phase(ExprPool& pool, std::span<const ExprId> roots, std::uint32_t vibration);

// Whether the roots are even in all r phases at once: f(-theta_1, ..., -theta_r) ==
// f(theta_1, ..., theta_r). With several vibrations this, not evenness in each phase alone,
// makes the micro-solution of HMM's Algorithm 2 even in time (a product cos(theta_1)
// sin(theta_2) is odd in each phase alone and even in both at once).
bool is_even_in_all_phases(ExprPool& pool, std::span<const ExprId> roots, std::uint32_t vibrations);

} // namespace mdl::symbolic
