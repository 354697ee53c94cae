// Emission: the flat declarations, in source order (flattener.hpp).
#include "flattener.hpp"

namespace mdl::flatten::detail {

void Flattener::emit(Scope& s, const ast::Model& m, const Env& env, bool top) {
    for (const auto& ref : m.statements) {
        if (over_budget_ || d_.saturated()) {
            return;
        }
        switch (ref.kind) {
        case ast::StatementKind::parameter:
            emit_parameter(s, m.parameters[ref.index], env);
            break;
        case ast::StatementKind::component:
            emit_component(s, m.components[ref.index], env, !env.empty());
            break;
        case ast::StatementKind::constraint:
            emit_constraint(s, m.constraints[ref.index], env);
            break;
        case ast::StatementKind::annotation:
            if (top) {
                emit_annotation(s, m.annotations[ref.index], env);
            }
            break;
        case ast::StatementKind::equation: {
            const auto& eq = m.equations[ref.index];
            auto lhs = rename(*eq.lhs, s, env);
            auto rhs = rename(*eq.rhs, s, env);
            if (lhs && rhs && budget(s.map(eq.range))) {
                out_.model.equations.push_back({std::move(lhs), std::move(rhs), s.map(eq.range)});
                add(ast::StatementKind::equation, out_.model.equations.size() - 1);
            }
            break;
        }
        case ast::StatementKind::loop: {
            const auto& loop = *m.loops[ref.index];
            iterate(s, loop, env, [&](const Env& inner) { emit(s, loop.body, inner, top); });
            break;
        }
        case ast::StatementKind::when:
            emit_when(s, m.whens[ref.index], env);
            break;
        }
    }
}

void Flattener::add(ast::StatementKind kind, std::size_t index) {
    out_.model.statements.push_back({kind, static_cast<std::uint32_t>(index)});
}

// A when-clause with its names flattened (b.y in instance c: c.b.y).
void Flattener::emit_when(Scope& s, const ast::When& w, const Env& env) {
    ast::When out;
    out.range = s.map(w.range);
    for (const auto& b : w.branches) {
        ast::WhenBranch branch;
        branch.range = s.map(b.range);
        branch.condition = rename(*b.condition, s, env);
        if (!branch.condition) {
            return;
        }
        for (const auto& r : b.reinits) {
            auto target = rename(*r.target, s, env);
            auto value = rename(*r.value, s, env);
            if (!target || !value) {
                return;
            }
            branch.reinits.push_back({std::move(target), std::move(value), s.map(r.range)});
        }
        branch.terminate = b.terminate;
        branch.terminate_range = s.map(b.terminate_range);
        if (b.impact) {
            auto restitution = rename(*b.impact->restitution, s, env);
            if (!restitution) {
                return;
            }
            branch.impact = ast::Impact{{b.impact->name.text, s.map(b.impact->name.range)},
                                        std::move(restitution)};
        }
        out.branches.push_back(std::move(branch));
    }
    if (budget(out.range)) {
        out_.model.whens.push_back(std::move(out));
        add(ast::StatementKind::when, out_.model.whens.size() - 1);
    }
}

void Flattener::emit_parameter(Scope& s, const ast::Parameter& p, const Env& env) {
    if (p.type.text == "Integer") {
        return;
    }
    auto push = [&](std::string flat, ExprPtr value) {
        ast::Parameter out;
        out.type = {p.type.text, s.map(p.type.range)};
        out.name = {std::move(flat), s.map(p.name.range)};
        out.value = std::move(value);
        for (const auto& m : p.modifiers) { // unit = "m": the same for every element
            if (auto x = element_of(m, s, env, 0, false, 0)) {
                out.modifiers.push_back(std::move(*x));
            }
        }
        out.description = p.description;
        out.range = s.map(p.range);
        out_.model.parameters.push_back(std::move(out));
        add(ast::StatementKind::parameter, out_.model.parameters.size() - 1);
    };
    auto ov = s.overrides.find(p.name.text);
    const ast::Expr* own = p.value.get();
    if (ov != s.overrides.end() && (ov->second.modifier.nested || ov->second.modifier.text)) {
        d_.error(
            ov->second.modifier.range,
            fmt::format("write '{} = ...' to set the parameter '{}'", p.name.text, p.name.text));
        return;
    }
    auto found = s.decls.find(p.name.text);
    if (found == s.decls.end()) {
        return; // its declaration failed and was reported
    }
    const Decl& d = found->second;
    if (!d.array) {
        if (!budget(s.map(p.range))) {
            return;
        }
        if (ov != s.overrides.end()) {
            push(s.prefix + p.name.text, clone(*ov->second.modifier.value));
        } else {
            push(s.prefix + p.name.text, own ? rename(*own, s, env) : nullptr);
        }
        return;
    }
    std::vector<ExprPtr> values;
    if (ov != s.overrides.end()) {
        auto* vec = ov->second.modifier.value->as<ast::VectorLiteral>();
        if (!vec) {
            d_.error(
                ov->second.modifier.range,
                fmt::format("'{}' is an array of {}; give {} values", p.name.text, d.size, d.size));
            return;
        }
        values = clone_all(vec->elements);
    } else if (own) {
        auto x = elements_of(*own, s, env);
        if (!x) {
            return;
        }
        values = std::move(*x);
    } else {
        d_.error(s.map(p.name.range), fmt::format("parameter '{}' has no value; write '{} = "
                                                  "{{...}}'",
                                                  p.name.text, p.name.text));
        return;
    }
    if (static_cast<long long>(values.size()) != d.size) {
        d_.error(s.map(own && ov == s.overrides.end() ? own->range : p.name.range),
                 fmt::format("'{}' is an array of {} but {} values are given", p.name.text, d.size,
                             values.size()));
        return;
    }
    for (long long i = 1; i <= d.size; ++i) {
        if (!budget(s.map(p.range))) {
            return;
        }
        push(element_name(s.prefix + p.name.text, i),
             std::move(values[static_cast<std::size_t>(i - 1)]));
    }
}

// The arguments of one element of a component: its own (flattened, reduced to the
// element) with the instance's modifiers in place of those they name.
std::optional<std::vector<ast::Argument>> Flattener::arguments(Scope& s, const ast::Component& c,
                                                               const Env& env, long long index,
                                                               bool array, long long size) {
    std::vector<ast::Argument> out;
    const Override* ov = nullptr;
    if (auto it = s.overrides.find(c.name.text); it != s.overrides.end()) {
        ov = &it->second;
    }
    std::set<std::string> replaced;
    if (ov) {
        if (!ov->modifier.nested) {
            if (c.kind != ComponentKind::anchor) {
                d_.error(ov->modifier.range,
                         fmt::format("'{}' is a {}; modify it as '{}(name = value, ...)'",
                                     c.name.text, ast::to_string(c.kind), c.name.text));
                return std::nullopt;
            }
        } else {
            for (const auto& child : ov->modifier.children) {
                replaced.insert(child.name.text);
            }
        }
    }
    for (const auto& a : c.arguments) {
        ast::Argument arg;
        arg.range = s.map(a.range);
        if (a.modifier) {
            if (replaced.count(a.modifier->name.text)) {
                continue;
            }
            auto m = element_of(*a.modifier, s, env, index, array, size);
            if (!m) {
                return std::nullopt;
            }
            arg.modifier = std::move(*m);
        } else {
            auto e = rename(*a.positional, s, env);
            if (!e) {
                return std::nullopt;
            }
            if (array) {
                if (auto* vec = std::get_if<ast::VectorLiteral>(&e->node)) {
                    if (static_cast<long long>(vec->elements.size()) != size) {
                        d_.error(e->range, fmt::format("{} values for an array of {}",
                                                       vec->elements.size(), size));
                        return std::nullopt;
                    }
                    e = std::move(vec->elements[static_cast<std::size_t>(index - 1)]);
                }
            }
            arg.positional = std::move(e);
        }
        out.push_back(std::move(arg));
    }
    if (ov && ov->modifier.nested) {
        for (const auto& child : ov->modifier.children) {
            ast::Argument arg;
            arg.range = child.range;
            arg.modifier = array ? flat_element(child, index, size) : clone(child);
            if (!arg.modifier) {
                return std::nullopt;
            }
            out.push_back(std::move(arg));
        }
    }
    return out;
}

void Flattener::emit_component(Scope& s, const ast::Component& c, const Env& env, bool in_loop) {
    auto found = s.decls.find(c.name.text);
    if (found == s.decls.end()) {
        return; // its declaration failed and was reported
    }
    const Decl& d = found->second;
    std::vector<long long> indices;
    if (c.subscripts.empty()) {
        indices.push_back(0);
    } else if (in_loop) {
        auto i = element_index(c.subscripts, s, env, c.name.range);
        if (!i) {
            return;
        }
        indices.push_back(*i);
    } else {
        for (long long i = 1; i <= d.size; ++i) {
            indices.push_back(i);
        }
    }
    for (long long index : indices) {
        if (!budget(s.map(c.range))) {
            return;
        }
        std::string flat =
            index > 0 ? element_name(s.prefix + c.name.text, index) : s.prefix + c.name.text;
        if (c.kind == ComponentKind::instance) {
            auto it = d.scopes.find(index);
            if (it != d.scopes.end()) {
                emit(*it->second, *it->second->model, {}, false);
            }
            continue;
        }
        if (c.kind == ComponentKind::anchor && d.bound_to) {
            continue; // stands for the outer point it is bound to
        }
        auto args = arguments(s, c, env, index, d.array, d.size);
        if (!args) {
            continue;
        }
        ast::Component out;
        out.kind = c.kind;
        out.kind_range = s.map(c.kind_range);
        out.name = {flat, s.map(c.name.range)};
        out.has_arguments = c.has_arguments || !args->empty();
        out.arguments = std::move(*args);
        if (c.value) {
            out.value = rename(*c.value, s, env);
            if (!out.value) {
                continue;
            }
        }
        out.fast = c.fast;
        out.fast_range = s.map(c.fast_range);
        for (const auto& m : c.fast_modifiers) {
            if (auto x = element_of(m, s, env, index, false, 0)) {
                out.fast_modifiers.push_back(std::move(*x));
            }
        }
        out.description = c.description;
        out.range = s.map(c.range);
        out.scope = s.prefix;
        out_.model.components.push_back(std::move(out));
        add(ast::StatementKind::component, out_.model.components.size() - 1);
    }
}

void Flattener::emit_constraint(Scope& s, const ast::Constraint& c, const Env& env) {
    std::string flat = s.prefix + c.name.text;
    if (!c.subscripts.empty()) {
        if (env.empty()) {
            d_.error(s.map(c.name.range), "a subscripted constraint name names one element "
                                          "inside a for-loop: for i in 1:n loop constraint "
                                          "c[i]: ...; end for;");
            return;
        }
        auto i = element_index(c.subscripts, s, env, c.name.range);
        if (!i) {
            return;
        }
        flat = element_name(flat, *i);
    }
    auto lhs = rename(*c.lhs, s, env);
    auto rhs = rename(*c.rhs, s, env);
    if (!lhs || !rhs || !budget(s.map(c.range))) {
        return;
    }
    ast::Constraint out;
    out.name = {flat, s.map(c.name.range)};
    out.lhs = std::move(lhs);
    out.rhs = std::move(rhs);
    out.range = s.map(c.range);
    out_.model.constraints.push_back(std::move(out));
    add(ast::StatementKind::constraint, out_.model.constraints.size() - 1);
}

void Flattener::emit_annotation(Scope& s, const ast::Annotation& a, const Env& env) {
    ast::Annotation out;
    out.range = s.map(a.range);
    for (const auto& m : a.modifiers) {
        auto x = element_of(m, s, env, 0, false, 0);
        if (!x) {
            return;
        }
        out.modifiers.push_back(std::move(*x));
    }
    out_.model.annotations.push_back(std::move(out));
    add(ast::StatementKind::annotation, out_.model.annotations.size() - 1);
}

void Flattener::report_structural(Scope& top) {
    for (const auto& scope : scopes_) {
        for (auto& [n, p] : scope->integers) {
            auto v = integer_parameter(*scope, n);
            if (v) {
                out_.structural.push_back({scope->prefix + n, *v, p.from_option});
            }
        }
    }
    (void)top;
}

} // namespace mdl::flatten::detail
