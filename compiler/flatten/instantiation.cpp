// Instances of other models, their modifiers and array values (flattener.hpp).
#include "flattener.hpp"

namespace mdl::flatten::detail {

void Flattener::instantiate(Scope& outer, const ast::Component& c, long long index, bool array,
                            const Env& env) {
    Decl& decl = outer.decls.at(c.name.text);
    if (outer.depth + 1 > max_instance_depth) {
        d_.error(outer.map(c.name.range), "instances nested too deeply");
        return;
    }
    auto def = library_.find(c.type.text, outer.path, outer.map(c.type.range));
    if (!def || recursive(outer, c)) {
        return;
    }
    std::string flat = outer.prefix + c.name.text + (index > 0 ? fmt::format("[{}]", index) : "");
    Scope& s = instance_scope(outer, c, *def, flat);
    decl.scopes[index] = &s;
    walk_parameters(s, *s.model);
    // Which names the modifiers may set: parameters and declarations of the model.
    InstanceSite site{outer, c, env, index, array, decl.size, {}, {}};
    gather_names(*s.model, site.parameters, site.components);
    for (const GivenModifier& g : given_modifiers(outer, c, flat)) {
        apply_modifier(s, site, g);
    }
    // -p overrides of the instance's Integer parameters win over its modifiers.
    for (auto& [n, p] : s.integers) {
        if (auto v = option_override(s.prefix + n)) {
            p.given = *v;
            p.from_option = true;
        }
    }
    collect_statements(s, *s.model, {}, false);
}

bool Flattener::recursive(const Scope& outer, const ast::Component& c) {
    for (const auto& t : outer.types) {
        if (t == c.type.text) {
            std::string chain;
            for (const auto& x : outer.types) {
                chain += x + " contains ";
            }
            d_.error(outer.map(c.type.range),
                     fmt::format("recursive component: {}{}", chain, c.type.text));
            return true;
        }
    }
    return false;
}

Scope& Flattener::instance_scope(const Scope& outer, const ast::Component& c,
                                 const ModelDefinition& def, const std::string& flat) {
    Scope& s = new_scope();
    s.prefix = flat + ".";
    s.model = def.model;
    s.base_file = def.file_id;
    s.path = def.path;
    s.depth = outer.depth + 1;
    s.types = outer.types;
    s.types.push_back(c.type.text);
    s.file_id = d_.add_file(d_.file(def.file_id), outer.map(c.name.range),
                            fmt::format("instance '{}' of {}", flat, c.type.text));
    return s;
}

std::vector<GivenModifier> Flattener::given_modifiers(const Scope& outer, const ast::Component& c,
                                                      const std::string& flat) {
    std::vector<GivenModifier> given;
    std::set<std::string> from_enclosing;
    if (auto o = outer.overrides.find(c.name.text);
        o != outer.overrides.end() && o->second.modifier.nested) {
        for (const auto& child : o->second.modifier.children) {
            given.push_back({nullptr, &child});
            from_enclosing.insert(child.name.text);
        }
    }
    for (const auto& arg : c.arguments) {
        if (!arg.modifier) {
            d_.error(outer.map(arg.range),
                     fmt::format("instance '{}' of {} takes modifiers such as 'name = value', "
                                 "not positional arguments",
                                 flat, c.type.text));
            continue;
        }
        if (!from_enclosing.count(arg.modifier->name.text)) {
            given.push_back({&*arg.modifier, nullptr});
        }
    }
    return given;
}

void Flattener::apply_modifier(Scope& s, const InstanceSite& site, const GivenModifier& g) {
    const ast::Modifier& m = g.own ? *g.own : *g.flat;
    const Range name_at = g.own ? site.outer.map(m.name.range) : m.name.range;
    const std::string& n = m.name.text;
    auto p = site.parameters.find(n);
    auto k = site.components.find(n);
    if (p == site.parameters.end() && k == site.components.end()) {
        std::vector<std::string> known;
        for (const auto& [x, _] : site.parameters) {
            known.push_back(x);
        }
        for (const auto& [x, _] : site.components) {
            known.push_back(x);
        }
        std::string best = source::closest_name(n, known);
        d_.error(name_at,
                 fmt::format("model {} has no parameter or component '{}'{}", site.c.type.text, n,
                             best.empty() ? "" : fmt::format("; did you mean '{}'?", best)));
        return;
    }
    if (s.overrides.count(n) ||
        (s.integers.count(n) && s.integers.at(n).given && !s.integers.at(n).from_option)) {
        d_.error(name_at, fmt::format("modifier '{}' given twice", n));
        return;
    }
    std::optional<ast::Modifier> per_element =
        g.own ? element_of(m, site.outer, site.env, site.index, site.array, site.size) : clone(m);
    if (!per_element) {
        return;
    }
    if (p != site.parameters.end() && p->second->type.text == "Integer") {
        apply_integer_modifier(s, site, g);
        return;
    }
    if (k != site.components.end() && k->second->kind == ComponentKind::anchor &&
        per_element->value && !bind_anchor(s, site, g, *k->second, *per_element)) {
        return;
    }
    s.overrides[n] = Override{std::move(*per_element)};
}

void Flattener::apply_integer_modifier(Scope& s, const InstanceSite& site, const GivenModifier& g) {
    const ast::Modifier& m = g.own ? *g.own : *g.flat;
    const Range at = g.own ? site.outer.map(m.range) : m.range;
    const std::string& n = m.name.text;
    if (!m.value || m.nested) {
        d_.error(at, fmt::format("write '{} = ...' to set the Integer parameter '{}'", n, n));
        return;
    }
    auto v = g.own ? integer(*m.value, site.outer, site.env, "an Integer parameter's value")
                   : integer(*m.value, s, {}, "an Integer parameter's value");
    if (v && site.array && g.own && !m.each) {
        d_.error(at, fmt::format("modifier '{}' of the array '{}' needs 'each' (arrays of "
                                 "Integer values are not supported)",
                                 n, site.c.name.text));
        return;
    }
    if (v) {
        s.integers.at(n).given = *v;
    }
}

bool Flattener::bind_anchor(Scope& s, const InstanceSite& site, const GivenModifier& g,
                            const ast::Component& anchor, const ast::Modifier& per_element) {
    const ast::Modifier& m = g.own ? *g.own : *g.flat;
    const Range at = g.own ? site.outer.map(m.range) : m.range;
    const std::string& n = m.name.text;
    const ast::NameRef* r = per_element.value->as<ast::NameRef>();
    if (!r || r->parts.size() != 1) {
        d_.error(at, fmt::format("anchor '{}' of {} can be bound only to a body or an "
                                 "anchor, e.g. '{} = cart.b'",
                                 n, site.c.type.text, n));
        return false;
    }
    Decl bound;
    bound.kind = Decl::Kind::component;
    bound.component = ComponentKind::anchor;
    bound.range = anchor.name.range;
    bound.bound_to = r->parts[0].text;
    s.decls[n] = bound;
    return true;
}

void Flattener::gather_names(const ast::Model& m,
                             std::map<std::string, const ast::Parameter*>& parameters,
                             std::map<std::string, const ast::Component*>& components) {
    for (const auto& p : m.parameters) {
        parameters.emplace(p.name.text, &p);
    }
    for (const auto& c : m.components) {
        components.emplace(c.name.text, &c);
    }
    for (const auto& loop : m.loops) {
        gather_names(loop->body, parameters, components);
    }
}

// A modifier flattened in the scope that wrote it, with array values reduced to the
// element `index` of an array declaration (index 1..size); nullopt after an error.
std::optional<ast::Modifier> Flattener::element_of(const ast::Modifier& m, Scope& s, const Env& env,
                                                   long long index, bool array, long long size) {
    ast::Modifier out;
    out.each = m.each;
    out.name = {m.name.text, s.map(m.name.range)};
    out.range = s.map(m.range);
    out.text = m.text;
    out.nested = m.nested;
    if (m.value && array && !m.each) {
        // An array declaration's modifier is an array ({...}, a comprehension or the name
        // of an array) unless `each` gives every element the value. It is expanded once
        // per declaration, not once per element.
        const std::vector<ast::ExprPtr>* values = array_values(m, s, env, size);
        if (!values) {
            return std::nullopt;
        }
        out.value = clone(*(*values)[static_cast<std::size_t>(index - 1)]);
    } else if (m.value) {
        out.value = rename(*m.value, s, env);
        if (!out.value) {
            return std::nullopt;
        }
    }
    for (const auto& child : m.children) {
        auto c = element_of(child, s, env, index, array && !m.each, size);
        if (!c) {
            return std::nullopt;
        }
        out.children.push_back(std::move(*c));
    }
    return out;
}

// The elements of an array modifier's value, computed once per modifier, scope and loop
// iteration; null after an error.
const std::vector<ast::ExprPtr>* Flattener::array_values(const ast::Modifier& m, Scope& s,
                                                         const Env& env, long long size) {
    std::string key =
        fmt::format("{}/{}", static_cast<const void*>(&m), static_cast<const void*>(&s));
    for (const auto& [n, v] : env) {
        key += fmt::format("/{}", v);
    }
    if (auto it = array_values_.find(key); it != array_values_.end()) {
        return it->second ? &*it->second : nullptr;
    }
    auto& slot = array_values_[key];
    const ast::Expr& value = *m.value;
    const ast::NameRef* r = value.as<ast::NameRef>();
    bool is_array = value.as<ast::VectorLiteral>() ||
                    (r && r->parts.size() == 1 && !r->subscripted() &&
                     s.decls.count(r->parts[0].text) && s.decls.at(r->parts[0].text).array);
    if (!is_array) {
        d_.error(s.map(m.range),
                 fmt::format("modifier '{}' of an array of {} needs 'each' to give every "
                             "element the same value, or an array of {} values",
                             m.name.text, size, size));
        return nullptr;
    }
    auto elements = elements_of(value, s, env);
    if (!elements) {
        return nullptr;
    }
    if (static_cast<long long>(elements->size()) != size) {
        d_.error(s.map(value.range), fmt::format("modifier '{}' gives {} values for an array "
                                                 "of {}",
                                                 m.name.text, elements->size(), size));
        return nullptr;
    }
    slot = std::move(*elements);
    return &*slot;
}

// An already flat modifier of an array declaration reduced to one element: an array
// value gives element `index`, anything else (or `each`) is the same for every element.
std::optional<ast::Modifier> Flattener::flat_element(const ast::Modifier& m, long long index,
                                                     long long size) {
    ast::Modifier out = clone(m);
    if (!m.each && m.value) {
        if (auto* vec = std::get_if<ast::VectorLiteral>(&m.value->node)) {
            if (static_cast<long long>(vec->elements.size()) != size) {
                d_.error(m.value->range,
                         fmt::format("modifier '{}' gives {} values for an array of {}",
                                     m.name.text, vec->elements.size(), size));
                return std::nullopt;
            }
            out.value = clone(*vec->elements[static_cast<std::size_t>(index - 1)]);
        }
    }
    out.children.clear();
    for (const auto& c : m.children) {
        auto x = m.each ? std::optional<ast::Modifier>(clone(c)) : flat_element(c, index, size);
        if (!x) {
            return std::nullopt;
        }
        out.children.push_back(std::move(*x));
    }
    return out;
}

} // namespace mdl::flatten::detail
