// Integer expressions: sizes, bounds, subscripts, Integer parameters (flattener.hpp).
#include "flattener.hpp"

namespace mdl::flatten::detail {

std::optional<long long> Flattener::integer(const ast::Expr& e, Scope& s, const Env& env,
                                            const char* what) {
    if (auto n = e.as<ast::Number>()) {
        double v = n->value;
        if (!(std::floor(v) == v) || std::fabs(v) > 9.007199254740992e15) {
            return integer_error(e.range, s, fmt::format("{} must be an Integer; got {}", what, v));
        }
        return static_cast<long long>(v);
    }
    if (auto r = e.as<ast::NameRef>()) {
        return integer_name(*r, e.range, s, env, what);
    }
    if (auto u = e.as<ast::Negate>()) {
        auto v = integer(*u->operand, s, env, what);
        if (!v) {
            return v;
        }
        return -*v;
    }
    if (auto b = e.as<ast::Binary>()) {
        return integer_binary(*b, e.range, s, env, what);
    }
    if (auto c = e.as<ast::Call>(); c && !c->iterator && c->args.size() == 2) {
        const std::string& f = c->callee.text;
        if (f == "div" || f == "mod" || f == "min" || f == "max") {
            return integer_call(*c, e.range, s, env, what);
        }
    }
    return integer_error(e.range, s,
                         fmt::format("{} must be an Integer expression of Integer parameters "
                                     "and loop variables",
                                     what));
}

std::optional<long long> Flattener::integer_error(Range r, Scope& s, const std::string& message) {
    d_.error(s.map(r), message);
    return std::nullopt;
}

std::optional<long long> Flattener::integer_name(const ast::NameRef& r, Range range, Scope& s,
                                                 const Env& env, const char* what) {
    const std::string& head = r.parts[0].text;
    if (r.parts.size() != 1 || r.subscripted()) {
        return integer_error(range, s,
                             fmt::format("{} must be an Integer expression of Integer "
                                         "parameters and loop variables",
                                         what));
    }
    if (const long long* v = lookup(env, head)) {
        return *v;
    }
    if (s.integers.count(head)) {
        return integer_parameter(s, head);
    }
    auto it = s.decls.find(head);
    if (it != s.decls.end() && it->second.kind == Decl::Kind::real_parameter) {
        return integer_error(range, s,
                             fmt::format("{} must be an Integer expression; '{}' is a Real "
                                         "parameter (declare it 'parameter Integer {}')",
                                         what, head, head));
    }
    if (it != s.decls.end()) {
        return integer_error(range, s,
                             fmt::format("{} must be an Integer expression of "
                                         "Integer parameters and loop variables; "
                                         "'{}' is not one",
                                         what, head));
    }
    return integer_error(range, s, fmt::format("use of undeclared name '{}' in {}", head, what));
}

std::optional<long long> Flattener::integer_binary(const ast::Binary& b, Range range, Scope& s,
                                                   const Env& env, const char* what) {
    auto l = integer(*b.lhs, s, env, what);
    if (!l) {
        return l;
    }
    auto r = integer(*b.rhs, s, env, what);
    if (!r) {
        return r;
    }
    long long out = 0;
    bool overflow = false;
    switch (b.op) {
    case ast::BinaryOp::add:
        overflow = __builtin_add_overflow(*l, *r, &out);
        break;
    case ast::BinaryOp::sub:
        overflow = __builtin_sub_overflow(*l, *r, &out);
        break;
    case ast::BinaryOp::mul:
        overflow = __builtin_mul_overflow(*l, *r, &out);
        break;
    case ast::BinaryOp::div:
        if (*r == 0 || *l % *r != 0) {
            return integer_error(range, s,
                                 fmt::format("{} must be an Integer; {} / {} is not "
                                             "(use div(a, b) for the integer quotient)",
                                             what, *l, *r));
        }
        out = *l / *r;
        break;
    case ast::BinaryOp::pow:
        if (*r < 0) {
            return integer_error(range, s,
                                 fmt::format("{} must be an Integer; {}^{} is not", what, *l, *r));
        }
        out = 1;
        for (long long i = 0; i < *r && !overflow; ++i) {
            overflow = __builtin_mul_overflow(out, *l, &out);
        }
        break;
    default:
        return integer_error(range, s, fmt::format("{} must be an Integer expression", what));
    }
    if (overflow) {
        return integer_error(range, s, fmt::format("{} overflows", what));
    }
    return out;
}

std::optional<long long> Flattener::integer_call(const ast::Call& c, Range range, Scope& s,
                                                 const Env& env, const char* what) {
    const std::string& f = c.callee.text;
    auto l = integer(*c.args[0], s, env, what);
    auto r = l ? integer(*c.args[1], s, env, what) : std::nullopt;
    if (!l || !r) {
        return std::nullopt;
    }
    if ((f == "div" || f == "mod") && *r == 0) {
        return integer_error(range, s, fmt::format("{}: division by zero", what));
    }
    if (f == "div") {
        return *l / *r;
    }
    if (f == "mod") {
        long long m = *l % *r;
        return m != 0 && ((m < 0) != (*r < 0)) ? m + *r : m; // Modelica's mod
    }
    return f == "min" ? std::min(*l, *r) : std::max(*l, *r);
}

std::optional<long long> Flattener::integer_parameter(Scope& s, const std::string& n) {
    IntegerParameter& p = s.integers.at(n);
    if (p.value) {
        return p.value;
    }
    if (p.given) {
        p.value = p.given;
        return p.value;
    }
    if (p.visiting) {
        d_.error(s.map(p.declaration->name.range),
                 fmt::format("Integer parameter '{}' depends on itself", s.prefix + n));
        return std::nullopt;
    }
    if (!p.declaration->value) {
        d_.error(s.map(p.declaration->name.range),
                 fmt::format("parameter '{}' has no value; write '{} = ...'", n, n));
        return std::nullopt;
    }
    p.visiting = true;
    auto v = integer(*p.declaration->value, s, {}, "an Integer parameter's value");
    p.visiting = false;
    p.value = v;
    return v;
}

} // namespace mdl::flatten::detail
