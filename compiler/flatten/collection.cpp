// Collection: every name a model declares, before any expression is renamed (flattener.hpp).
#include "flattener.hpp"

namespace mdl::flatten::detail {

void Flattener::collect(Scope& s) {
    // Integer parameters first: sizes and bounds depend on them.
    walk_parameters(s, *s.model);
    for (auto& [n, p] : s.integers) {
        if (auto it = option_override(s.prefix + n)) {
            p.given = *it;
            p.from_option = true;
        }
    }
    collect_statements(s, *s.model, {}, false);
}

std::optional<long long> Flattener::option_override(const std::string& flat) {
    for (auto it = options_.overrides.rbegin(); it != options_.overrides.rend(); ++it) {
        if (it->first == flat) {
            applied_.insert(flat);
            double v = it->second;
            if (std::floor(v) != v || std::fabs(v) > 9.007199254740992e15) {
                d_.error(Range{}, fmt::format("-p {}={}: '{}' is an Integer parameter; give "
                                              "it a whole number",
                                              flat, v, flat));
                return std::nullopt;
            }
            return static_cast<long long>(v);
        }
    }
    return std::nullopt;
}

void Flattener::walk_parameters(Scope& s, const ast::Model& m) {
    for (const auto& p : m.parameters) {
        if (p.type.text == "Integer") {
            if (!p.subscripts.empty()) {
                d_.error(s.map(p.name.range), "arrays of Integer parameters are not supported");
                continue;
            }
            s.integers[p.name.text].declaration = &p;
            Decl d;
            d.kind = Decl::Kind::integer_parameter;
            d.range = p.name.range;
            s.decls.emplace(p.name.text, d);
        }
    }
    for (const auto& loop : m.loops) {
        for (const auto& p : loop->body.parameters) {
            d_.error(s.map(p.name.range), "parameters cannot be declared inside a for-loop; "
                                          "declare an array 'parameter Real k[n]' instead");
        }
    }
}

// The size of an array declaration (one subscript), or nullopt after an error.
std::optional<long long> Flattener::array_size(const std::vector<ExprPtr>& subscripts, Scope& s,
                                               const Env& env, Range name) {
    if (subscripts.size() != 1) {
        d_.error(s.map(name), "only one-dimensional arrays are supported");
        return std::nullopt;
    }
    auto n = integer(*subscripts[0], s, env, "an array size");
    if (n && *n < 0) {
        d_.error(s.map(subscripts[0]->range),
                 fmt::format("an array size must not be negative; got {}", *n));
        return std::nullopt;
    }
    if (n && *n > max_elements) {
        // refused before its elements are listed (10^8 of them took gigabytes): the model
        // is over budget, so no later declaration or loop unrolls either
        d_.error(s.map(subscripts[0]->range),
                 fmt::format("an array of {} elements is more than a model may unroll into "
                             "({} declarations and equations); reduce the array size",
                             *n, max_elements));
        over_budget_ = true;
        elements_ = max_elements;
        return std::nullopt;
    }
    return n;
}

// The element a subscripted declaration inside a loop names.
std::optional<long long> Flattener::element_index(const std::vector<ExprPtr>& subscripts, Scope& s,
                                                  const Env& env, Range name) {
    if (subscripts.size() != 1) {
        d_.error(s.map(name), "only one-dimensional arrays are supported");
        return std::nullopt;
    }
    return integer(*subscripts[0], s, env, "a subscript");
}

void Flattener::declare(Scope& s, const std::string& n, Decl d) {
    auto [it, inserted] = s.decls.emplace(n, d);
    if (!inserted && !d.elements.empty() && !it->second.elements.empty()) {
        it->second.elements.insert(d.elements.begin(), d.elements.end());
    }
    // other duplicates are reported by the checker on the flat names
}

void Flattener::collect_statements(Scope& s, const ast::Model& m, const Env& env, bool in_loop) {
    for (const auto& ref : m.statements) {
        switch (ref.kind) {
        case ast::StatementKind::parameter: {
            const auto& p = m.parameters[ref.index];
            if (p.type.text == "Integer") {
                break;
            }
            Decl d;
            d.kind = Decl::Kind::real_parameter;
            d.range = p.name.range;
            if (!p.subscripts.empty()) {
                auto n = array_size(p.subscripts, s, env, p.name.range);
                d.array = true;
                d.size = n.value_or(0);
            }
            declare(s, p.name.text, d);
            break;
        }
        case ast::StatementKind::component: {
            const auto& c = m.components[ref.index];
            Decl d;
            d.kind =
                c.kind == ComponentKind::instance ? Decl::Kind::instance : Decl::Kind::component;
            d.component = c.kind;
            d.range = c.name.range;
            d.type = c.type.text;
            std::vector<long long> indices; // the elements this statement declares
            if (c.subscripts.empty()) {
                indices.push_back(0);
            } else if (in_loop) {
                auto i = element_index(c.subscripts, s, env, c.name.range);
                if (!i) {
                    break;
                }
                d.elements.insert(*i);
                indices.push_back(*i);
            } else {
                auto n = array_size(c.subscripts, s, env, c.name.range);
                if (!n) {
                    break;
                }
                d.array = true;
                d.size = *n;
                for (long long i = 1; i <= *n; ++i) {
                    indices.push_back(i);
                }
            }
            declare(s, c.name.text, d);
            if (c.kind == ComponentKind::instance) {
                for (long long i : indices) {
                    instantiate(s, c, i, d.array, env);
                }
            }
            break;
        }
        case ast::StatementKind::constraint: {
            const auto& c = m.constraints[ref.index];
            Decl d;
            d.kind = Decl::Kind::constraint;
            d.range = c.name.range;
            declare(s, c.name.text, d);
            break;
        }
        case ast::StatementKind::loop: {
            const auto& loop = *m.loops[ref.index];
            iterate(s, loop, env,
                    [&](const Env& inner) { collect_statements(s, loop.body, inner, true); });
            break;
        }
        case ast::StatementKind::annotation:
        case ast::StatementKind::equation:
        case ast::StatementKind::when:
            break;
        }
    }
}

// Runs `body` once per value of the loop variable.
void Flattener::iterate(Scope& s, const ast::ForLoop& loop, const Env& env,
                        const std::function<void(const Env&)>& body) {
    const ast::Iterator& it = loop.iterator;
    if (s.decls.count(it.variable.text) || lookup(env, it.variable.text)) {
        d_.error(s.map(it.variable.range),
                 fmt::format("loop variable '{}' hides a declaration or an outer loop "
                             "variable of the same name",
                             it.variable.text));
        return;
    }
    auto range = bounds(it, s, env);
    if (!range) {
        return;
    }
    auto [first, step, last] = *range;
    Env inner = env;
    inner.emplace_back(it.variable.text, 0);
    for (long long v = first; step > 0 ? v <= last : v >= last; v += step) {
        if (!budget(s.map(loop.range))) {
            return;
        }
        inner.back().second = v;
        body(inner);
    }
}

std::optional<std::tuple<long long, long long, long long>>
Flattener::bounds(const ast::Iterator& it, Scope& s, const Env& env) {
    auto first = integer(*it.first, s, env, "a loop bound");
    auto last = first ? integer(*it.last, s, env, "a loop bound") : std::nullopt;
    long long step = 1;
    if (it.step) {
        auto st = integer(*it.step, s, env, "a loop step");
        if (!st) {
            return std::nullopt;
        }
        if (*st == 0) {
            d_.error(s.map(it.step->range), "a loop step must not be zero");
            return std::nullopt;
        }
        step = *st;
    }
    if (!first || !last) {
        return std::nullopt;
    }
    return std::tuple{*first, step, *last};
}

} // namespace mdl::flatten::detail
