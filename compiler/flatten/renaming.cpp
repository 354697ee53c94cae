// Renaming expressions into the flat model (flattener.hpp).
#include "flattener.hpp"

namespace mdl::flatten::detail {

ast::ExprPtr Flattener::rename(const ast::Expr& e, Scope& s, const Env& env) {
    Range range = s.map(e.range);
    if (auto n = e.as<ast::Number>()) {
        return number(range, n->value);
    }
    if (auto b = e.as<ast::Boolean>()) {
        return make(range, *b);
    }
    if (auto r = e.as<ast::NameRef>()) {
        return rename_name(*r, e.range, s, env);
    }
    if (auto u = e.as<ast::Negate>()) {
        auto o = rename(*u->operand, s, env);
        return o ? finish(make(range, ast::Negate{std::move(o)})) : nullptr;
    }
    if (auto u = e.as<ast::Not>()) {
        auto o = rename(*u->operand, s, env);
        return o ? finish(make(range, ast::Not{std::move(o)})) : nullptr;
    }
    if (auto b = e.as<ast::Binary>()) {
        auto l = rename(*b->lhs, s, env);
        auto r = rename(*b->rhs, s, env);
        if (!l || !r) {
            return nullptr;
        }
        return finish(
            make(range, ast::Binary{b->op, std::move(l), std::move(r), s.map(b->op_range)}));
    }
    if (auto f = e.as<ast::If>()) {
        // A condition known now (loop variables, Integer parameters, numbers) selects its
        // branch here: the branches not taken are parsed but not flattened, so
        // `if i > 1 then q[i-1] else 0` is no error at i = 1.
        ast::If out;
        for (const auto& [c, v] : f->branches) {
            if (auto known = static_condition(*c, s, env)) {
                if (!*known) {
                    continue;
                }
                if (out.branches.empty()) {
                    return rename(*v, s, env);
                }
                out.otherwise = rename(*v, s, env);
                return out.otherwise ? finish(make(range, std::move(out))) : nullptr;
            }
            auto rc = rename(*c, s, env);
            auto rv = rename(*v, s, env);
            if (!rc || !rv) {
                return nullptr;
            }
            out.branches.emplace_back(std::move(rc), std::move(rv));
        }
        out.otherwise = rename(*f->otherwise, s, env);
        if (!out.otherwise) {
            return nullptr;
        }
        if (out.branches.empty()) {
            return std::move(out.otherwise);
        }
        return finish(make(range, std::move(out)));
    }
    if (auto c = e.as<ast::Call>()) {
        return rename_call(*c, e.range, s, env);
    }
    if (e.as<ast::VectorLiteral>()) {
        auto elements = elements_of(e, s, env);
        if (!elements) {
            return nullptr;
        }
        return finish(make(range, ast::VectorLiteral{std::move(*elements), nullptr}));
    }
    return nullptr;
}

// The elements of an array-valued expression: {a, b}, {e for i in r}, or an array's name.
// nullopt (after an error) when it is not one.
std::optional<std::vector<ast::ExprPtr>> Flattener::elements_of(const ast::Expr& e, Scope& s,
                                                                const Env& env) {
    std::vector<ast::ExprPtr> out;
    if (auto v = e.as<ast::VectorLiteral>()) {
        if (v->iterator) {
            const ast::Iterator& it = *v->iterator;
            auto range = bounds(it, s, env);
            if (!range) {
                return std::nullopt;
            }
            auto [first, step, last] = *range;
            Env inner = env;
            inner.emplace_back(it.variable.text, 0);
            for (long long i = first; step > 0 ? i <= last : i >= last; i += step) {
                if (!budget(s.map(e.range))) {
                    return std::nullopt;
                }
                inner.back().second = i;
                auto x = rename(*v->elements[0], s, inner);
                if (!x) {
                    return std::nullopt;
                }
                out.push_back(std::move(x));
            }
            return out;
        }
        for (const auto& x : v->elements) {
            auto r = rename(*x, s, env);
            if (!r) {
                return std::nullopt;
            }
            out.push_back(std::move(r));
        }
        return out;
    }
    if (auto r = e.as<ast::NameRef>(); r && r->parts.size() == 1 && !r->subscripted()) {
        auto it = s.decls.find(r->parts[0].text);
        if (it != s.decls.end() && it->second.array) {
            for (long long i = 1; i <= it->second.size; ++i) {
                out.push_back(name(s.map(e.range), element_name(s.prefix + r->parts[0].text, i)));
            }
            return out;
        }
    }
    d_.error(s.map(e.range), "expected an array: {a, b, ...}, {e for i in 1:n} or the name "
                             "of an array");
    return std::nullopt;
}

ast::ExprPtr Flattener::rename_call(const ast::Call& c, Range original, Scope& s, const Env& env) {
    Range range = s.map(original);
    const std::string& f = c.callee.text;
    bool reduction = f == "sum" || f == "product" || f == "min" || f == "max";
    if (reduction && (c.iterator || c.args.size() == 1)) {
        std::vector<ast::ExprPtr> terms;
        if (c.iterator) {
            ast::VectorLiteral v;
            // {e for i in r}, reusing the comprehension's expansion
            auto tmp = std::make_unique<ast::Expr>();
            tmp->range = original;
            v.elements.push_back(clone(*c.args[0]));
            v.iterator = c.iterator;
            tmp->node = std::move(v);
            auto x = elements_of(*tmp, s, env);
            if (!x) {
                return nullptr;
            }
            terms = std::move(*x);
        } else {
            auto x = elements_of(*c.args[0], s, env);
            if (!x) {
                return nullptr;
            }
            terms = std::move(*x);
        }
        if (terms.empty()) {
            if (f == "min" || f == "max") {
                d_.error(range, fmt::format("{}() of an empty range", f));
                return nullptr;
            }
            return number(range, f == "sum" ? 0.0 : 1.0);
        }
        ast::ExprPtr acc = std::move(terms[0]);
        for (std::size_t i = 1; i < terms.size(); ++i) {
            ast::ExprPtr t = std::move(terms[i]);
            if (f == "sum" || f == "product") {
                acc = finish(
                    make(range, ast::Binary{f == "sum" ? ast::BinaryOp::add : ast::BinaryOp::mul,
                                            std::move(acc), std::move(t), range}));
            } else {
                // min: if acc < t then acc else t (max with >)
                ast::If pick;
                auto cond = finish(
                    make(range, ast::Binary{f == "min" ? ast::BinaryOp::lt : ast::BinaryOp::gt,
                                            clone(*acc), clone(*t), range}));
                pick.branches.emplace_back(std::move(cond), std::move(acc));
                pick.otherwise = std::move(t);
                acc = finish(make(range, std::move(pick)));
            }
        }
        return acc;
    }
    if (c.iterator) {
        d_.error(s.map(c.iterator->range),
                 fmt::format("'{}' takes no 'for' iterator; reductions are sum, product, min "
                             "and max",
                             f));
        return nullptr;
    }
    if (reduction && c.args.size() == 2 && (f == "min" || f == "max")) {
        auto a = rename(*c.args[0], s, env);
        auto b = rename(*c.args[1], s, env);
        if (!a || !b) {
            return nullptr;
        }
        ast::If pick;
        auto cond =
            finish(make(range, ast::Binary{f == "min" ? ast::BinaryOp::lt : ast::BinaryOp::gt,
                                           clone(*a), clone(*b), range}));
        pick.branches.emplace_back(std::move(cond), std::move(a));
        pick.otherwise = std::move(b);
        return finish(make(range, std::move(pick)));
    }
    ast::Call out{{c.callee.text, s.map(c.callee.range)}, {}, nullptr};
    for (const auto& a : c.args) {
        auto r = rename(*a, s, env);
        if (!r) {
            return nullptr;
        }
        out.args.push_back(std::move(r));
    }
    return finish(make(range, std::move(out)));
}

std::optional<long long> Flattener::subscript(const ast::NameRef& r, std::size_t part, Scope& s,
                                              const Env& env, const Decl& d,
                                              const std::string& shown) {
    const auto& subs = r.subscripts[part];
    if (subs.size() != 1) {
        d_.error(s.map(subs[0]->range), "only one-dimensional arrays are supported");
        return std::nullopt;
    }
    auto i = integer(*subs[0], s, env, "a subscript");
    if (!i) {
        return i;
    }
    if (d.array && (*i < 1 || *i > d.size)) {
        d_.error(
            s.map(subs[0]->range),
            fmt::format("index {} is out of range for '{}', an array of {}", *i, shown, d.size));
        d_.note(d.range, fmt::format("'{}' is declared here", shown));
        return std::nullopt;
    }
    if (!d.array && !d.elements.empty() && !d.elements.count(*i)) {
        d_.error(s.map(subs[0]->range),
                 fmt::format("'{}' has no element {}: elements {} are declared", shown, *i,
                             describe_elements(d.elements)));
        return std::nullopt;
    }
    if (!d.array && d.elements.empty()) {
        d_.error(s.map(r.parts[part].range), fmt::format("'{}' is not an array", shown));
        return std::nullopt;
    }
    return i;
}

std::string Flattener::describe_elements(const std::set<long long>& e) {
    long long lo = *e.begin(), hi = *e.rbegin();
    if (static_cast<long long>(e.size()) == hi - lo + 1) {
        return fmt::format("{} to {}", lo, hi);
    }
    std::string out;
    for (long long x : e) {
        out += (out.empty() ? "" : ", ") + std::to_string(x);
        if (out.size() > 60) {
            return out + ", ...";
        }
    }
    return out;
}

// a, a[i], inst.b[j].x: the flat name of the declaration (one part) and its members.
ast::ExprPtr Flattener::rename_name(const ast::NameRef& r, Range original, Scope& s,
                                    const Env& env) {
    Range range = s.map(original);
    const ast::Identifier& head = r.parts[0];
    auto subs = [&](std::size_t k) {
        return k < r.subscripts.size() && !r.subscripts[k].empty();
    };
    if (r.parts.size() == 1 && !subs(0)) {
        if (const long long* v = lookup(env, head.text)) {
            return number(range, static_cast<double>(*v));
        }
        if (s.integers.count(head.text)) {
            auto v = integer_parameter(s, head.text);
            return v ? number(range, static_cast<double>(*v)) : nullptr;
        }
    }
    Scope* scope = &s;
    std::string flat;
    std::size_t k = 0;
    for (;; ++k) {
        const ast::Identifier& part = r.parts[k];
        auto it = scope->decls.find(part.text);
        if (it == scope->decls.end()) {
            if (k == 0) {
                // Not declared here: time, pi, a phase variable, a built-in, or an error the
                // checker reports with the name as written.
                if (subs(0)) {
                    d_.error(s.map(part.range),
                             fmt::format("use of undeclared name '{}'", part.text));
                    return nullptr;
                }
                ast::NameRef out;
                for (const auto& p : r.parts) {
                    out.parts.push_back({p.text, s.map(p.range)});
                }
                return finish(make(range, std::move(out)));
            }
            std::vector<std::string> known;
            for (const auto& [n, _] : scope->decls) {
                known.push_back(n);
            }
            std::string best = source::closest_name(part.text, known);
            d_.error(s.map(part.range),
                     fmt::format("'{}' has no member '{}'{}", flat, part.text,
                                 best.empty() ? "" : fmt::format("; did you mean '{}'?", best)));
            return nullptr;
        }
        const Decl& d = it->second;
        std::string shown = scope->prefix + part.text;
        if (d.kind == Decl::Kind::integer_parameter && !subs(k) && k + 1 == r.parts.size()) {
            auto v = integer_parameter(*scope, part.text);
            return v ? number(range, static_cast<double>(*v)) : nullptr;
        }
        long long index = 0;
        if (subs(k)) {
            auto i = subscript(r, k, s, env, d, shown);
            if (!i) {
                return nullptr;
            }
            index = *i;
            flat = element_name(shown, index);
        } else {
            if (d.array) {
                d_.error(s.map(part.range),
                         fmt::format("'{}' is an array of {}; name an element, e.g. {}[1]", shown,
                                     d.size, part.text));
                return nullptr;
            }
            flat = d.bound_to ? *d.bound_to : shown;
        }
        if (d.kind != Decl::Kind::instance) {
            break;
        }
        if (k + 1 == r.parts.size()) {
            d_.error(range, fmt::format("'{}' is an instance of {}, not a value; name one of "
                                        "its declarations, e.g. {}.x",
                                        flat, d.type, flat));
            return nullptr;
        }
        auto sc = d.scopes.find(index);
        if (sc == d.scopes.end()) {
            return nullptr; // its instantiation failed and was reported
        }
        scope = sc->second;
    }
    ast::NameRef out;
    Range whole = s.map(r.parts[0].range).to(s.map(r.parts[k].range));
    out.parts.push_back({flat, whole});
    for (std::size_t j = k + 1; j < r.parts.size(); ++j) {
        if (subs(j)) {
            d_.error(s.map(r.subscripts[j][0]->range),
                     fmt::format("'{}.{}' is not an array", flat, r.parts[j].text));
            return nullptr;
        }
        out.parts.push_back({r.parts[j].text, s.map(r.parts[j].range)});
    }
    return finish(make(range, std::move(out)));
}

} // namespace mdl::flatten::detail
