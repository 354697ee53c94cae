// Conditions known when the model is flattened (flattener.hpp).
#include "flattener.hpp"

namespace mdl::flatten::detail {

// The value of an expression of numbers, loop variables and Integer parameters, or nullopt
// (without a diagnostic) when it depends on anything else: Real parameters, positions, time.
std::optional<double> Flattener::static_value(const ast::Expr& e, Scope& s, const Env& env) {
    if (auto n = e.as<ast::Number>()) {
        return n->value;
    }
    if (auto r = e.as<ast::NameRef>()) {
        if (r->parts.size() != 1 || r->subscripted()) {
            return std::nullopt;
        }
        const std::string& head = r->parts[0].text;
        if (const long long* v = lookup(env, head)) {
            return static_cast<double>(*v);
        }
        if (s.integers.count(head)) {
            auto v = integer_parameter(s, head);
            return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
        }
        return std::nullopt;
    }
    if (auto u = e.as<ast::Negate>()) {
        auto v = static_value(*u->operand, s, env);
        return v ? std::optional<double>(-*v) : std::nullopt;
    }
    auto b = e.as<ast::Binary>();
    if (!b) {
        return std::nullopt;
    }
    const auto operands = static_operands(*b, s, env);
    if (!operands) {
        return std::nullopt;
    }
    const auto [l, r] = *operands;
    switch (b->op) {
    case ast::BinaryOp::add:
        return l + r;
    case ast::BinaryOp::sub:
        return l - r;
    case ast::BinaryOp::mul:
        return l * r;
    case ast::BinaryOp::div:
        return l / r;
    case ast::BinaryOp::pow:
        return std::pow(l, r);
    default:
        return std::nullopt;
    }
}

// Both operands' static values (the right one only when the left one has one), or nullopt.
std::optional<std::pair<double, double>> Flattener::static_operands(const ast::Binary& b, Scope& s,
                                                                    const Env& env) {
    const auto l = static_value(*b.lhs, s, env);
    const auto r = l ? static_value(*b.rhs, s, env) : std::nullopt;
    if (!r) {
        return std::nullopt;
    }
    return std::pair(*l, *r);
}

// Whether a condition holds, when it is known now; nullopt when it is decided at run time.
std::optional<bool> Flattener::static_condition(const ast::Expr& e, Scope& s, const Env& env) {
    if (auto b = e.as<ast::Boolean>()) {
        return b->value;
    }
    if (auto n = e.as<ast::Not>()) {
        auto v = static_condition(*n->operand, s, env);
        return v ? std::optional<bool>(!*v) : std::nullopt;
    }
    auto b = e.as<ast::Binary>();
    if (!b) {
        return std::nullopt;
    }
    using Op = ast::BinaryOp;
    if (b->op == Op::logical_and || b->op == Op::logical_or) {
        auto l = static_condition(*b->lhs, s, env);
        auto r = l ? static_condition(*b->rhs, s, env) : std::nullopt;
        if (!r) {
            return std::nullopt;
        }
        return b->op == Op::logical_and ? *l && *r : *l || *r;
    }
    if (b->op != Op::lt && b->op != Op::le && b->op != Op::gt && b->op != Op::ge &&
        b->op != Op::eq && b->op != Op::ne) {
        return std::nullopt;
    }
    const auto operands = static_operands(*b, s, env);
    if (!operands) {
        return std::nullopt;
    }
    const auto [l, r] = *operands;
    switch (b->op) {
    case Op::lt:
        return l < r;
    case Op::le:
        return l <= r;
    case Op::gt:
        return l > r;
    case Op::ge:
        return l >= r;
    case Op::eq:
        return l == r;
    default:
        return l != r;
    }
}

} // namespace mdl::flatten::detail
