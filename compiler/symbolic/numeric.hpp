// How each node is computed in double precision. Constant folding, the reference evaluator
// and the code generator all follow these definitions (the code generator emits the same
// operations in the same order), so JIT results agree with the evaluator bit for bit unless
// fast-math is opted in.
#pragma once

#include "symbolic/expr.hpp"

#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace mdl::symbolic {

// sign(x): 1 for x > 0, -1 for x < 0, and x itself for zero and NaN (so sign(+-0) = +-0 and
// NaN propagates). Zero at zero is the convention that makes d/dx abs(x) = sign(x) a valid
// subgradient and keeps Jacobians finite at a kink.
inline double sign_of(double x) {
    return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : x);
}

// One built-in applied to numbers: the C library functions (what the JIT calls as well).
inline double apply(Func f, double x) {
    switch (f) {
    case Func::sin:
        return std::sin(x);
    case Func::cos:
        return std::cos(x);
    case Func::tan:
        return std::tan(x);
    case Func::exp:
        return std::exp(x);
    case Func::log:
        return std::log(x);
    case Func::sqrt:
        return std::sqrt(x);
    case Func::abs:
        return std::fabs(x);
    case Func::sign:
        return sign_of(x);
    case Func::sinh:
        return std::sinh(x);
    case Func::cosh:
        return std::cosh(x);
    case Func::tanh:
        return std::tanh(x);
    case Func::asin:
        return std::asin(x);
    case Func::acos:
        return std::acos(x);
    case Func::atan:
        return std::atan(x);
    case Func::atan2:
    case Func::pow:
        break;
    }
    return std::nan("");
}

inline double apply(Func f, double a, double b) {
    switch (f) {
    case Func::atan2:
        return std::atan2(a, b);
    case Func::pow:
        return std::pow(a, b);
    default:
        break;
    }
    return std::nan("");
}

// A select node's value: the then-value where the condition is != 0 (NaN included).
inline double select_value(double condition, double then_value, double else_value) {
    return condition != 0.0 ? then_value : else_value;
}

// Integer powers with |n| up to this are computed by repeated squaring (x^2 = x*x); larger
// or non-integer exponents call pow(). The bound keeps the rounding error of the product
// chain (about log2(n) + popcount(n) roundings) close to pow's.
inline constexpr double max_unrolled_exponent = 32.0;

// The exponent of a power node as an unrolled integer power, when it is one.
inline std::optional<std::uint32_t> unrolled_exponent(double e) {
    if (e == std::trunc(e) && std::fabs(e) >= 1.0 && std::fabs(e) <= max_unrolled_exponent) {
        return static_cast<std::uint32_t>(std::fabs(e));
    }
    return std::nullopt;
}

// x^n for n >= 1 by binary exponentiation from the low bit: x^3 = x * (x*x),
// x^4 = (x*x)*(x*x). `multiply` is called in exactly this order by every user (double
// arithmetic in the evaluator, IR instructions in the code generator).
template <class T, class Multiply>
T power_by_squaring(T x, std::uint32_t n, Multiply multiply) {
    T base = x;
    T result{};
    bool have_result = false;
    while (true) {
        if ((n & 1U) != 0) {
            result = have_result ? multiply(result, base) : base;
            have_result = true;
        }
        n >>= 1U;
        if (n == 0) {
            break;
        }
        base = multiply(base, base);
    }
    return result;
}

// A product node is computed as a quotient: numerator = its factors with a non-negative or
// non-integer exponent, left to right (the coefficient first); denominator = the factors
// b^-n with an unrolled integer n, each as b^n, left to right; value = numerator / denominator.
// So x * y^-1 is one division, x/y, as a programmer would write it, not x * (1/y). A standalone
// power node b^-n (not inside a product) is 1 / b^n.
// Except for shared reciprocals: when the nodes of one computation (one kernel) divide by
// powers of the same base b more than once (shared_reciprocals), 1/b is computed once and each
// such factor b^-n is (1/b)^n, multiplied into the numerator in its place (a standalone b^-n is
// (1/b)^n). So the derivatives of a spring, with r, r^3 and r^2 in many denominators, cost one
// square root and one division.
inline bool is_denominator_factor(const ExprPool& pool, ExprId factor) {
    if (pool.op(factor) != Op::pow) {
        return false;
    }
    const ExprId e = pool.children(factor)[1];
    return pool.is_constant(e) && pool.constant_value(e) < 0.0 &&
           unrolled_exponent(pool.constant_value(e)).has_value();
}

// The nodes whose values are needed to compute `roots`, children before parents. Like
// reachable_in_order, except that a denominator factor b^-n of a product contributes only b
// (the product computes b^n itself), so 1/b is never computed just to be multiplied.
std::vector<ExprId> computation_order(const ExprPool& pool, std::span<const ExprId> roots);

// For the nodes of one computation (`order`, as computation_order gives it): by node id, 1 for
// each base b of which more than one denominator factor or standalone power b^-n is computed.
std::vector<std::uint8_t> shared_reciprocals(const ExprPool& pool, std::span<const ExprId> order);

} // namespace mdl::symbolic
