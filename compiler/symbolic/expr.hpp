// The expression DAG: a hash-consed arena of immutable nodes addressed by small ids.
//
// Every node is created through ExprPool, which interns it: two structurally equal
// expressions are the same node and have the same ExprId, so equality is an integer compare
// and a shared sub-expression is computed once by the evaluator and the code generator.
//
// Nodes are kept in a canonical form by the constructors add/mul/pow/call/comparison/select
// (the rules are in simplify.cpp): sums and products are n-ary and flat, numeric coefficients
// are folded and like terms collected (x + x -> 2*x, x*x -> x^2), subtraction is a + (-1)*b,
// division a*b^-1, negation (-1)*a; comparisons are <, <=, == or <> (a > b is b < a), and a
// select with a constant condition or equal branches is that branch. A child is always created
// before its parent, so child ids are smaller than their parent's id: ascending id order is a
// topological order, which every pass over the DAG (evaluation, differentiation, code
// generation) uses instead of recursion.
//
// Conditionals (`if c then a else b`, relations, and/or/not) are compare and select nodes; a
// condition, like a relation's value, is a number (true when != 0), so `a and b` is
// select(a, b, 0), `a or b` select(a, 1, b) and `not a` select(a, 0, 1). A select has a value
// wherever its branches have one; both branches are computed (see emit_ir.cpp).
//
// A pool is not synchronized: one thread builds at a time; any number of threads may read a
// pool that nobody modifies (code generation of one system on several threads, say).
#pragma once

#include "check/comparison.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mdl::symbolic {

// A node's handle: an index into its pool. Only meaningful together with that pool.
struct ExprId {
    std::uint32_t index = 0;

    friend bool operator==(ExprId, ExprId) = default;
    friend auto operator<=>(ExprId, ExprId) = default;
};

enum class Op : std::uint8_t {
    constant, // a double
    variable, // a leaf of kind VarKind
    add,      // n >= 2 children: [constant,] terms
    mul,      // n >= 2 children: [constant,] factors
    pow,      // 2 children: base, exponent
    call,     // a built-in function of 1 (or 2, atan2) arguments
    compare,  // 2 children a, b; tag a Comparison: 1 when `a tag b` holds, else 0
    select,   // 3 children c, a, b: a where c != 0 (NaN counts as != 0), else b
};

// The relation of a compare node, with IEEE semantics: every relation with a NaN operand is
// false except ne. Canonical nodes use only lt, le, eq and ne: a > b is b < a and a >= b is
// b <= a (exact, NaN included), and eq and ne have their operands in the canonical order.
using check::Comparison;
inline constexpr std::size_t comparison_count = 6;

// What a variable leaf stands for; the index says which one (0 for time).
enum class VarKind : std::uint8_t {
    parameter, // p[i], a runtime parameter value
    position,  // q[i], a generalized position
    velocity,  // v[i] = dq[i]/dt
    state,     // x[i], a first-order state
    time,      // t
    phase,     // theta[i], the phase of vibration i
};
inline constexpr std::size_t var_kind_count = 6;

struct Variable {
    VarKind kind = VarKind::parameter;
    std::uint32_t index = 0;

    friend bool operator==(Variable, Variable) = default;
};

// The built-in functions. `pow` is a name only: pow(a, b) builds an Op::pow node.
enum class Func : std::uint8_t {
    sin,
    cos,
    tan,
    exp,
    log,
    sqrt,
    abs,
    sign, // d/dx abs(x); sign(0) = 0 (see derivative.hpp)
    atan2,
    sinh,
    cosh,
    tanh,
    asin,
    acos,
    atan,
    pow,
};
inline constexpr std::size_t func_count = 16;

std::string_view function_name(Func f);
unsigned function_arity(Func f);
// The built-in function called `name` in model source, if any ("sin", "atan2", "pow", ...).
std::optional<Func> function_named(std::string_view name);

// Thrown when building an expression would make the pool exceed its node limit: the engine
// refuses pathological expression swell instead of exhausting memory or time.
class ExpressionTooLarge : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// One node. `tag` is a VarKind (variable), Func (call) or Comparison (compare); `index` the
// variable index.
struct Node {
    Op op = Op::constant;
    std::uint8_t tag = 0;
    std::uint32_t index = 0;
    std::uint32_t first_child = 0;
    std::uint32_t child_count = 0;
    double value = 0.0; // constant only
};

class ExprPool {
public:
    // The default bound is generous for mechanical models (a double pendulum with all its
    // derived kernels needs a few hundred nodes) and small enough to fail within a second and
    // ~100 MB. Child lists are bounded too, at child_slots_per_node times the node limit.
    static constexpr std::size_t default_node_limit = std::size_t{1} << 20;
    static constexpr std::size_t child_slots_per_node = 8;

    explicit ExprPool(std::size_t node_limit = default_node_limit);

    // --- leaves
    ExprId constant(double value);
    ExprId variable(Variable v);
    ExprId zero() const { return zero_; }
    ExprId one() const { return one_; }
    ExprId minus_one() const { return minus_one_; }

    // --- canonicalizing constructors (simplify.cpp)
    ExprId add(std::span<const ExprId> terms);
    ExprId add(ExprId a, ExprId b);
    ExprId sub(ExprId a, ExprId b);
    ExprId neg(ExprId a);
    ExprId mul(std::span<const ExprId> factors);
    ExprId mul(ExprId a, ExprId b);
    ExprId div(ExprId a, ExprId b);
    ExprId pow(ExprId base, ExprId exponent);
    ExprId call(Func f, ExprId argument);
    ExprId call(Func f, ExprId a, ExprId b); // atan2(a, b), pow(a, b)
    // 1 when `a c b` holds, else 0 (a compare node, or a constant).
    ExprId comparison(Comparison c, ExprId a, ExprId b);
    // if condition != 0 then then_value else else_value (a select node, or a branch).
    ExprId select(ExprId condition, ExprId then_value, ExprId else_value);

    // --- reading
    std::size_t size() const { return nodes_.size(); }
    std::size_t node_limit() const { return node_limit_; }
    const Node& node(ExprId id) const { return nodes_[id.index]; }
    Op op(ExprId id) const { return node(id).op; }
    std::span<const ExprId> children(ExprId id) const {
        const Node& n = node(id);
        return {children_.data() + n.first_child, n.child_count};
    }
    bool is_constant(ExprId id) const { return node(id).op == Op::constant; }
    bool is_constant(ExprId id, double value) const {
        return is_constant(id) && node(id).value == value;
    }
    double constant_value(ExprId id) const { return node(id).value; }
    Variable variable_of(ExprId id) const {
        const Node& n = node(id);
        return {static_cast<VarKind>(n.tag), n.index};
    }
    Func func(ExprId id) const { return static_cast<Func>(node(id).tag); }
    Comparison comparison_of(ExprId id) const { return static_cast<Comparison>(node(id).tag); }

    // A node with exactly these fields, created if new. No simplification: callers must pass
    // canonical operands (the constructors above do; the simplification rules use this).
    ExprId intern(Op op, std::uint8_t tag, std::uint32_t index, double value,
                  std::span<const ExprId> children);

private:
    // add(): a*S + b*S -> (a + b)*S for a sum S shared by terms (simplify.cpp).
    std::optional<ExprId> group_common_sum(std::span<const ExprId> terms);
    std::uint64_t hash_of(Op op, std::uint8_t tag, std::uint32_t index, double value,
                          std::span<const ExprId> children) const;
    bool equals(ExprId id, Op op, std::uint8_t tag, std::uint32_t index, double value,
                std::span<const ExprId> children) const;
    void grow_table();

    std::vector<Node> nodes_;
    std::vector<std::uint64_t> hashes_; // per node
    std::vector<ExprId> children_;      // all child lists, back to back
    std::vector<std::uint32_t> table_;  // open addressing: node index + 1, 0 = empty
    std::size_t node_limit_;
    ExprId zero_, one_, minus_one_;
};

// The canonical order of expressions: a total order on structure alone (not on ids, which
// depend on the order in which things were built), so canonical forms and printed output do
// not depend on construction order. Constants < variables (by kind, then index) < calls <
// comparisons (by relation) < selects < powers < products < sums; then lexicographic on the
// children. Negative, zero or positive
// like strcmp. Iterative: only the first differing child pair is examined.
int compare(const ExprPool& pool, ExprId a, ExprId b);

// The nodes reachable from `roots`, in ascending id order (children before parents). Linear
// in the largest root id; no recursion, so arbitrarily deep expressions are fine.
std::vector<ExprId> reachable_in_order(const ExprPool& pool, std::span<const ExprId> roots);

// A pool-bound handle with arithmetic operators, for building expressions by hand:
//     Expr q = ...; Expr f = (g + a) / l * sin(q);
class Expr {
public:
    Expr(ExprPool& pool, ExprId id) : pool_(&pool), id_(id) {}

    ExprPool& pool() const { return *pool_; }
    ExprId id() const { return id_; }
    operator ExprId() const { return id_; }

    friend bool operator==(const Expr& a, const Expr& b) { return a.id_ == b.id_; }

private:
    ExprPool* pool_;
    ExprId id_;
};

inline Expr operator+(Expr a, Expr b) {
    return {a.pool(), a.pool().add(a, b)};
}
inline Expr operator-(Expr a, Expr b) {
    return {a.pool(), a.pool().sub(a, b)};
}
inline Expr operator*(Expr a, Expr b) {
    return {a.pool(), a.pool().mul(a, b)};
}
inline Expr operator/(Expr a, Expr b) {
    return {a.pool(), a.pool().div(a, b)};
}
inline Expr operator-(Expr a) {
    return {a.pool(), a.pool().neg(a)};
}
inline Expr operator+(Expr a, double b) {
    return a + Expr(a.pool(), a.pool().constant(b));
}
inline Expr operator+(double a, Expr b) {
    return Expr(b.pool(), b.pool().constant(a)) + b;
}
inline Expr operator-(Expr a, double b) {
    return a - Expr(a.pool(), a.pool().constant(b));
}
inline Expr operator-(double a, Expr b) {
    return Expr(b.pool(), b.pool().constant(a)) - b;
}
inline Expr operator*(Expr a, double b) {
    return a * Expr(a.pool(), a.pool().constant(b));
}
inline Expr operator*(double a, Expr b) {
    return Expr(b.pool(), b.pool().constant(a)) * b;
}
inline Expr operator/(Expr a, double b) {
    return a / Expr(a.pool(), a.pool().constant(b));
}
inline Expr operator/(double a, Expr b) {
    return Expr(b.pool(), b.pool().constant(a)) / b;
}

inline Expr pow(Expr a, Expr b) {
    return {a.pool(), a.pool().pow(a, b)};
}
inline Expr pow(Expr a, double b) {
    return pow(a, Expr(a.pool(), a.pool().constant(b)));
}
inline Expr call(Func f, Expr a) {
    return {a.pool(), a.pool().call(f, a)};
}
inline Expr call(Func f, Expr a, Expr b) {
    return {a.pool(), a.pool().call(f, a, b)};
}
inline Expr sin(Expr a) {
    return call(Func::sin, a);
}
inline Expr cos(Expr a) {
    return call(Func::cos, a);
}
inline Expr tan(Expr a) {
    return call(Func::tan, a);
}
inline Expr exp(Expr a) {
    return call(Func::exp, a);
}
inline Expr log(Expr a) {
    return call(Func::log, a);
}
inline Expr sqrt(Expr a) {
    return call(Func::sqrt, a);
}
inline Expr abs(Expr a) {
    return call(Func::abs, a);
}
inline Expr sign(Expr a) {
    return call(Func::sign, a);
}
inline Expr atan2(Expr y, Expr x) {
    return call(Func::atan2, y, x);
}
inline Expr sinh(Expr a) {
    return call(Func::sinh, a);
}
inline Expr cosh(Expr a) {
    return call(Func::cosh, a);
}
inline Expr tanh(Expr a) {
    return call(Func::tanh, a);
}
inline Expr asin(Expr a) {
    return call(Func::asin, a);
}
inline Expr acos(Expr a) {
    return call(Func::acos, a);
}
inline Expr atan(Expr a) {
    return call(Func::atan, a);
}

// Relations (1 or 0) and conditionals, named rather than operators: == on Expr is identity.
inline Expr relation(Comparison c, Expr a, Expr b) {
    return {a.pool(), a.pool().comparison(c, a, b)};
}
inline Expr lt(Expr a, Expr b) {
    return relation(Comparison::lt, a, b);
}
inline Expr le(Expr a, Expr b) {
    return relation(Comparison::le, a, b);
}
inline Expr gt(Expr a, Expr b) {
    return relation(Comparison::gt, a, b);
}
inline Expr ge(Expr a, Expr b) {
    return relation(Comparison::ge, a, b);
}
inline Expr eq(Expr a, Expr b) {
    return relation(Comparison::eq, a, b);
}
inline Expr ne(Expr a, Expr b) {
    return relation(Comparison::ne, a, b);
}
inline Expr if_then_else(Expr condition, Expr a, Expr b) {
    return {a.pool(), a.pool().select(condition, a, b)};
}
// The checker's forms of and, or, not (expr.hpp's header comment).
inline Expr logical_and(Expr a, Expr b) {
    return if_then_else(a, b, Expr(a.pool(), a.pool().zero()));
}
inline Expr logical_or(Expr a, Expr b) {
    return if_then_else(a, Expr(a.pool(), a.pool().one()), b);
}
inline Expr logical_not(Expr a) {
    return if_then_else(a, Expr(a.pool(), a.pool().zero()), Expr(a.pool(), a.pool().one()));
}

} // namespace mdl::symbolic

template <>
struct std::hash<mdl::symbolic::ExprId> {
    std::size_t operator()(mdl::symbolic::ExprId id) const noexcept { return id.index; }
};
