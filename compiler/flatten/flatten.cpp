#include "flatten/flatten.hpp"

#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <memory>
#include <set>

namespace mdl::flatten {

namespace {

using ast::ComponentKind;
using ast::ExprPtr;
using source::Range;

// Loop variables in scope, innermost last.
using Env = std::vector<std::pair<std::string, long long>>;

const long long* lookup(const Env& env, const std::string& name) {
    for (auto it = env.rbegin(); it != env.rend(); ++it) {
        if (it->first == name) {
            return &it->second;
        }
    }
    return nullptr;
}

std::string element_name(const std::string& base, long long index) {
    return fmt::format("{}[{}]", base, index);
}

struct Scope;

// What a name declared in a model stands for.
struct Decl {
    enum class Kind { real_parameter, integer_parameter, component, instance, constraint };
    Kind kind = Kind::component;
    ComponentKind component = ComponentKind::coordinate;
    bool array = false;           // declared with a size: elements 1..size
    long long size = 0;           // arrays
    std::set<long long> elements; // elements declared one by one in loops (spring s[i])
    Range range;
    std::string type; // instances: the model's name
    // Instances: the scope of the instance (scalar) or of each element, by index.
    std::map<long long, Scope*> scopes;
    std::optional<std::string> bound_to; // an anchor bound to an outer point by a modifier
};

// A modifier of an instance, already flattened in the scope that wrote it.
struct Override {
    ast::Modifier modifier; // values are flat expressions
};

struct IntegerParameter {
    const ast::Parameter* declaration = nullptr;
    std::optional<long long> given; // by a modifier of the instance or a -p override
    bool from_option = false;
    std::optional<long long> value;
    bool visiting = false;
};

// One model being instantiated: the top model, or an instance (or instance element).
struct Scope {
    std::string prefix; // "" or "left." or "cell[2]."
    const ast::Model* model = nullptr;
    std::uint32_t base_file = 0; // the file id the model's ranges carry
    std::uint32_t file_id = 0;   // the id given to them in this instance
    std::string path;            // the model's file, to find the models it uses
    int depth = 0;
    std::vector<std::string> types; // the models this scope is nested in, outermost first
    std::map<std::string, Decl> decls;
    std::map<std::string, IntegerParameter> integers;
    std::map<std::string, Override> overrides; // by the local name they modify

    Range map(Range r) const {
        if (r.file == base_file) {
            r.file = file_id;
        }
        return r;
    }
};

ast::ExprPtr make(Range range, decltype(ast::Expr::node) node) {
    auto e = std::make_unique<ast::Expr>();
    e->range = range;
    e->node = std::move(node);
    return e;
}

ast::ExprPtr number(Range range, double value) {
    return make(range, ast::Number{value});
}

ast::ExprPtr name(Range range, std::string text) {
    ast::NameRef r;
    r.parts.push_back({std::move(text), range});
    return make(range, std::move(r));
}

// Depth of a flat tree, as the parser computes it (later stages rely on it).
ast::ExprPtr finish(ast::ExprPtr e) {
    std::uint32_t below = 0;
    auto visit = [&](const ast::ExprPtr& c) {
        if (c) {
            below = std::max(below, c->depth);
        }
    };
    std::visit(
        [&](auto& n) {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, ast::Negate> || std::is_same_v<T, ast::Not>) {
                visit(n.operand);
            } else if constexpr (std::is_same_v<T, ast::Binary>) {
                visit(n.lhs);
                visit(n.rhs);
            } else if constexpr (std::is_same_v<T, ast::Call>) {
                for (const auto& a : n.args) {
                    visit(a);
                }
            } else if constexpr (std::is_same_v<T, ast::VectorLiteral>) {
                for (const auto& a : n.elements) {
                    visit(a);
                }
            } else if constexpr (std::is_same_v<T, ast::If>) {
                for (const auto& [c, v] : n.branches) {
                    visit(c);
                    visit(v);
                }
                visit(n.otherwise);
            }
        },
        e->node);
    e->depth = below + 1;
    return e;
}

ast::ExprPtr clone(const ast::Expr& e);

std::vector<ast::ExprPtr> clone_all(const std::vector<ast::ExprPtr>& v) {
    std::vector<ast::ExprPtr> out;
    for (const auto& x : v) {
        out.push_back(x ? clone(*x) : nullptr);
    }
    return out;
}

// A deep copy of a flat expression (no renaming).
ast::ExprPtr clone(const ast::Expr& e) {
    auto out = std::make_unique<ast::Expr>();
    out->range = e.range;
    out->depth = e.depth;
    std::visit(
        [&](const auto& n) {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, ast::Number> || std::is_same_v<T, ast::Boolean>) {
                out->node = n;
            } else if constexpr (std::is_same_v<T, ast::NameRef>) {
                ast::NameRef r;
                r.parts = n.parts;
                for (const auto& s : n.subscripts) {
                    r.subscripts.push_back(clone_all(s));
                }
                out->node = std::move(r);
            } else if constexpr (std::is_same_v<T, ast::Negate>) {
                out->node = ast::Negate{clone(*n.operand)};
            } else if constexpr (std::is_same_v<T, ast::Not>) {
                out->node = ast::Not{clone(*n.operand)};
            } else if constexpr (std::is_same_v<T, ast::Binary>) {
                out->node = ast::Binary{n.op, clone(*n.lhs), clone(*n.rhs), n.op_range};
            } else if constexpr (std::is_same_v<T, ast::Call>) {
                out->node = ast::Call{n.callee, clone_all(n.args), n.iterator};
            } else if constexpr (std::is_same_v<T, ast::VectorLiteral>) {
                out->node = ast::VectorLiteral{clone_all(n.elements), n.iterator};
            } else if constexpr (std::is_same_v<T, ast::If>) {
                ast::If f;
                for (const auto& [c, v] : n.branches) {
                    f.branches.emplace_back(clone(*c), clone(*v));
                }
                f.otherwise = clone(*n.otherwise);
                out->node = std::move(f);
            }
        },
        e.node);
    return out;
}

ast::Modifier clone(const ast::Modifier& m) {
    ast::Modifier out;
    out.each = m.each;
    out.name = m.name;
    out.range = m.range;
    out.value = m.value ? clone(*m.value) : nullptr;
    out.text = m.text;
    out.nested = m.nested;
    for (const auto& c : m.children) {
        out.children.push_back(clone(c));
    }
    return out;
}

class Flattener {
public:
    Flattener(ModelLibrary& library, const FlattenOptions& options, source::Diagnostics& d)
        : library_(library), options_(options), d_(d) {}

    std::optional<FlatModel> run() {
        std::size_t errors_before = d_.error_count();
        ModelDefinition main = library_.main_model();
        auto& top = new_scope();
        top.model = main.model;
        top.base_file = top.file_id = main.file_id;
        top.path = main.path;
        top.types = {main.model->name.text};
        out_.model.name = main.model->name;
        out_.model.description = main.model->description;
        out_.model.end_name = main.model->end_name;
        out_.model.range = main.model->range;
        collect(top);
        emit(top, *top.model, {}, true); // also after errors: to report those it finds
        report_structural(top);
        for (const auto& [name, value] : options_.overrides) {
            if (applied_.count(name)) {
                out_.used_overrides.push_back(name);
            }
        }
        if (d_.error_count() > errors_before) {
            return std::nullopt;
        }
        return std::move(out_);
    }

private:
    Scope& new_scope() {
        scopes_.push_back(std::make_unique<Scope>());
        return *scopes_.back();
    }

    bool budget(Range where) {
        if (++elements_ > max_elements) {
            if (!over_budget_) {
                d_.error(where, fmt::format("the model unrolls into more than {} declarations "
                                            "and equations; reduce the array sizes or loop "
                                            "bounds",
                                            max_elements));
                over_budget_ = true;
            }
            return false;
        }
        return true;
    }

    // ---- Integer expressions (sizes, bounds, subscripts, Integer parameters) --------------

    std::optional<long long> integer(const ast::Expr& e, Scope& s, const Env& env,
                                     const char* what) {
        auto fail = [&](Range r, const std::string& message) -> std::optional<long long> {
            d_.error(s.map(r), message);
            return std::nullopt;
        };
        if (auto n = e.as<ast::Number>()) {
            double v = n->value;
            if (!(std::floor(v) == v) || std::fabs(v) > 9.007199254740992e15) {
                return fail(e.range, fmt::format("{} must be an Integer; got {}", what, v));
            }
            return static_cast<long long>(v);
        }
        if (auto r = e.as<ast::NameRef>()) {
            const std::string& head = r->parts[0].text;
            if (r->parts.size() == 1 && !r->subscripted()) {
                if (const long long* v = lookup(env, head)) {
                    return *v;
                }
                if (s.integers.count(head)) {
                    return integer_parameter(s, head);
                }
                auto it = s.decls.find(head);
                if (it != s.decls.end() && it->second.kind == Decl::Kind::real_parameter) {
                    return fail(e.range,
                                fmt::format("{} must be an Integer expression; '{}' is a Real "
                                            "parameter (declare it 'parameter Integer {}')",
                                            what, head, head));
                }
                if (it != s.decls.end()) {
                    return fail(e.range, fmt::format("{} must be an Integer expression of "
                                                     "Integer parameters and loop variables; "
                                                     "'{}' is not one",
                                                     what, head));
                }
                return fail(e.range, fmt::format("use of undeclared name '{}' in {}", head, what));
            }
            return fail(e.range, fmt::format("{} must be an Integer expression of Integer "
                                             "parameters and loop variables",
                                             what));
        }
        if (auto u = e.as<ast::Negate>()) {
            auto v = integer(*u->operand, s, env, what);
            if (!v) {
                return v;
            }
            return -*v;
        }
        if (auto b = e.as<ast::Binary>()) {
            auto l = integer(*b->lhs, s, env, what);
            if (!l) {
                return l;
            }
            auto r = integer(*b->rhs, s, env, what);
            if (!r) {
                return r;
            }
            long long out = 0;
            bool overflow = false;
            switch (b->op) {
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
                    return fail(e.range, fmt::format("{} must be an Integer; {} / {} is not "
                                                     "(use div(a, b) for the integer quotient)",
                                                     what, *l, *r));
                }
                out = *l / *r;
                break;
            case ast::BinaryOp::pow:
                if (*r < 0) {
                    return fail(e.range,
                                fmt::format("{} must be an Integer; {}^{} is not", what, *l, *r));
                }
                out = 1;
                for (long long i = 0; i < *r && !overflow; ++i) {
                    overflow = __builtin_mul_overflow(out, *l, &out);
                }
                break;
            default:
                return fail(e.range, fmt::format("{} must be an Integer expression", what));
            }
            if (overflow) {
                return fail(e.range, fmt::format("{} overflows", what));
            }
            return out;
        }
        if (auto c = e.as<ast::Call>(); c && !c->iterator && c->args.size() == 2) {
            const std::string& f = c->callee.text;
            if (f == "div" || f == "mod" || f == "min" || f == "max") {
                auto l = integer(*c->args[0], s, env, what);
                auto r = l ? integer(*c->args[1], s, env, what) : std::nullopt;
                if (!l || !r) {
                    return std::nullopt;
                }
                if ((f == "div" || f == "mod") && *r == 0) {
                    return fail(e.range, fmt::format("{}: division by zero", what));
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
        }
        return fail(e.range, fmt::format("{} must be an Integer expression of Integer parameters "
                                         "and loop variables",
                                         what));
    }

    std::optional<long long> integer_parameter(Scope& s, const std::string& n) {
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

    // ---- Collection: every name a model declares, before any expression is renamed ---------

    void collect(Scope& s) {
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

    std::optional<long long> option_override(const std::string& flat) {
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

    void walk_parameters(Scope& s, const ast::Model& m) {
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
    std::optional<long long> array_size(const std::vector<ExprPtr>& subscripts, Scope& s,
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
    std::optional<long long> element_index(const std::vector<ExprPtr>& subscripts, Scope& s,
                                           const Env& env, Range name) {
        if (subscripts.size() != 1) {
            d_.error(s.map(name), "only one-dimensional arrays are supported");
            return std::nullopt;
        }
        return integer(*subscripts[0], s, env, "a subscript");
    }

    void declare(Scope& s, const std::string& n, Decl d) {
        auto [it, inserted] = s.decls.emplace(n, d);
        if (!inserted && !d.elements.empty() && !it->second.elements.empty()) {
            it->second.elements.insert(d.elements.begin(), d.elements.end());
        }
        // other duplicates are reported by the checker on the flat names
    }

    void collect_statements(Scope& s, const ast::Model& m, const Env& env, bool in_loop) {
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
                d.kind = c.kind == ComponentKind::instance ? Decl::Kind::instance
                                                           : Decl::Kind::component;
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
    void iterate(Scope& s, const ast::ForLoop& loop, const Env& env,
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

    std::optional<std::tuple<long long, long long, long long>> bounds(const ast::Iterator& it,
                                                                      Scope& s, const Env& env) {
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

    // ---- Instances ---------------------------------------------------------------------

    void instantiate(Scope& outer, const ast::Component& c, long long index, bool array,
                     const Env& env) {
        Decl& decl = outer.decls.at(c.name.text);
        if (outer.depth + 1 > max_instance_depth) {
            d_.error(outer.map(c.name.range), "instances nested too deeply");
            return;
        }
        auto def = library_.find(c.type.text, outer.path, outer.map(c.type.range));
        if (!def) {
            return;
        }
        for (const auto& t : outer.types) {
            if (t == c.type.text) {
                std::string chain;
                for (const auto& x : outer.types) {
                    chain += x + " contains ";
                }
                d_.error(outer.map(c.type.range),
                         fmt::format("recursive component: {}{}", chain, c.type.text));
                return;
            }
        }
        std::string flat =
            outer.prefix + c.name.text + (index > 0 ? fmt::format("[{}]", index) : "");
        Scope& s = new_scope();
        s.prefix = flat + ".";
        s.model = def->model;
        s.base_file = def->file_id;
        s.path = def->path;
        s.depth = outer.depth + 1;
        s.types = outer.types;
        s.types.push_back(c.type.text);
        s.file_id = d_.add_file(d_.file(def->file_id), outer.map(c.name.range),
                                fmt::format("instance '{}' of {}", flat, c.type.text));
        decl.scopes[index] = &s;
        walk_parameters(s, *s.model);
        // Which names the modifiers may set: parameters and declarations of the model.
        std::map<std::string, const ast::Parameter*> parameters;
        std::map<std::string, const ast::Component*> components;
        gather_names(*s.model, parameters, components);
        // The modifiers of this instance: those an enclosing instance gives it
        // (`Outer o(inner(l = 3))`, already flat, and winning as in Modelica), then its own.
        struct Given {
            const ast::Modifier* own = nullptr; // as written here, flattened below
            const ast::Modifier* flat = nullptr;
        };
        std::vector<Given> given;
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
        for (const Given& g : given) {
            const ast::Modifier& m = g.own ? *g.own : *g.flat;
            const Range at = g.own ? outer.map(m.range) : m.range;
            const Range name_at = g.own ? outer.map(m.name.range) : m.name.range;
            const std::string& n = m.name.text;
            auto p = parameters.find(n);
            auto k = components.find(n);
            if (p == parameters.end() && k == components.end()) {
                std::vector<std::string> known;
                for (const auto& [x, _] : parameters) {
                    known.push_back(x);
                }
                for (const auto& [x, _] : components) {
                    known.push_back(x);
                }
                std::string best = source::closest_name(n, known);
                d_.error(
                    name_at,
                    fmt::format("model {} has no parameter or component '{}'{}", c.type.text, n,
                                best.empty() ? "" : fmt::format("; did you mean '{}'?", best)));
                continue;
            }
            if (s.overrides.count(n) ||
                (s.integers.count(n) && s.integers.at(n).given && !s.integers.at(n).from_option)) {
                d_.error(name_at, fmt::format("modifier '{}' given twice", n));
                continue;
            }
            std::optional<ast::Modifier> per_element =
                g.own ? element_of(m, outer, env, index, array, decl.size) : clone(m);
            if (!per_element) {
                continue;
            }
            if (p != parameters.end() && p->second->type.text == "Integer") {
                if (!m.value || m.nested) {
                    d_.error(at, fmt::format("write '{} = ...' to set the Integer parameter '{}'",
                                             n, n));
                    continue;
                }
                auto v = g.own ? integer(*m.value, outer, env, "an Integer parameter's value")
                               : integer(*m.value, s, {}, "an Integer parameter's value");
                if (v && array && g.own && !m.each) {
                    d_.error(at,
                             fmt::format("modifier '{}' of the array '{}' needs 'each' (arrays of "
                                         "Integer values are not supported)",
                                         n, c.name.text));
                    continue;
                }
                if (v) {
                    s.integers.at(n).given = *v;
                }
                continue;
            }
            if (k != components.end() && k->second->kind == ComponentKind::anchor &&
                per_element->value) {
                // pivot = cart.b: the anchor stands for an outer body or anchor.
                const ast::NameRef* r = per_element->value->as<ast::NameRef>();
                if (!r || r->parts.size() != 1) {
                    d_.error(at, fmt::format("anchor '{}' of {} can be bound only to a body or an "
                                             "anchor, e.g. '{} = cart.b'",
                                             n, c.type.text, n));
                    continue;
                }
                Decl bound;
                bound.kind = Decl::Kind::component;
                bound.component = ComponentKind::anchor;
                bound.range = k->second->name.range;
                bound.bound_to = r->parts[0].text;
                s.decls[n] = bound;
            }
            s.overrides[n] = Override{std::move(*per_element)};
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

    static void gather_names(const ast::Model& m,
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
    std::optional<ast::Modifier> element_of(const ast::Modifier& m, Scope& s, const Env& env,
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
    const std::vector<ast::ExprPtr>* array_values(const ast::Modifier& m, Scope& s, const Env& env,
                                                  long long size) {
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
    std::optional<ast::Modifier> flat_element(const ast::Modifier& m, long long index,
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

    // ---- Conditions known when the model is flattened -----------------------------------------

    // The value of an expression of numbers, loop variables and Integer parameters, or nullopt
    // (without a diagnostic) when it depends on anything else: Real parameters, positions, time.
    std::optional<double> static_value(const ast::Expr& e, Scope& s, const Env& env) {
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
        auto l = static_value(*b->lhs, s, env);
        auto r = l ? static_value(*b->rhs, s, env) : std::nullopt;
        if (!r) {
            return std::nullopt;
        }
        switch (b->op) {
        case ast::BinaryOp::add:
            return *l + *r;
        case ast::BinaryOp::sub:
            return *l - *r;
        case ast::BinaryOp::mul:
            return *l * *r;
        case ast::BinaryOp::div:
            return *l / *r;
        case ast::BinaryOp::pow:
            return std::pow(*l, *r);
        default:
            return std::nullopt;
        }
    }

    // Whether a condition holds, when it is known now; nullopt when it is decided at run time.
    std::optional<bool> static_condition(const ast::Expr& e, Scope& s, const Env& env) {
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
        auto l = static_value(*b->lhs, s, env);
        auto r = l ? static_value(*b->rhs, s, env) : std::nullopt;
        if (!r) {
            return std::nullopt;
        }
        switch (b->op) {
        case Op::lt:
            return *l < *r;
        case Op::le:
            return *l <= *r;
        case Op::gt:
            return *l > *r;
        case Op::ge:
            return *l >= *r;
        case Op::eq:
            return *l == *r;
        default:
            return *l != *r;
        }
    }

    // ---- Renaming expressions into the flat model ------------------------------------------

    ast::ExprPtr rename(const ast::Expr& e, Scope& s, const Env& env) {
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
    std::optional<std::vector<ast::ExprPtr>> elements_of(const ast::Expr& e, Scope& s,
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
                    out.push_back(
                        name(s.map(e.range), element_name(s.prefix + r->parts[0].text, i)));
                }
                return out;
            }
        }
        d_.error(s.map(e.range), "expected an array: {a, b, ...}, {e for i in 1:n} or the name "
                                 "of an array");
        return std::nullopt;
    }

    ast::ExprPtr rename_call(const ast::Call& c, Range original, Scope& s, const Env& env) {
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
                    acc = finish(make(
                        range, ast::Binary{f == "sum" ? ast::BinaryOp::add : ast::BinaryOp::mul,
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

    std::optional<long long> subscript(const ast::NameRef& r, std::size_t part, Scope& s,
                                       const Env& env, const Decl& d, const std::string& shown) {
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
            d_.error(s.map(subs[0]->range),
                     fmt::format("index {} is out of range for '{}', an array of {}", *i, shown,
                                 d.size));
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

    static std::string describe_elements(const std::set<long long>& e) {
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
    ast::ExprPtr rename_name(const ast::NameRef& r, Range original, Scope& s, const Env& env) {
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
                d_.error(
                    s.map(part.range),
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
                             fmt::format("'{}' is an array of {}; name an element, e.g. {}[1]",
                                         shown, d.size, part.text));
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

    // ---- Emission: the flat declarations, in source order ------------------------------------

    void emit(Scope& s, const ast::Model& m, const Env& env, bool top) {
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
                    out_.model.equations.push_back(
                        {std::move(lhs), std::move(rhs), s.map(eq.range)});
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

    void add(ast::StatementKind kind, std::size_t index) {
        out_.model.statements.push_back({kind, static_cast<std::uint32_t>(index)});
    }

    // A when-clause with its names flattened (b.y in instance c: c.b.y).
    void emit_when(Scope& s, const ast::When& w, const Env& env) {
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

    void emit_parameter(Scope& s, const ast::Parameter& p, const Env& env) {
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
            d_.error(ov->second.modifier.range,
                     fmt::format("write '{} = ...' to set the parameter '{}'", p.name.text,
                                 p.name.text));
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
                d_.error(ov->second.modifier.range,
                         fmt::format("'{}' is an array of {}; give {} values", p.name.text, d.size,
                                     d.size));
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
                     fmt::format("'{}' is an array of {} but {} values are given", p.name.text,
                                 d.size, values.size()));
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
    std::optional<std::vector<ast::Argument>> arguments(Scope& s, const ast::Component& c,
                                                        const Env& env, long long index, bool array,
                                                        long long size) {
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

    void emit_component(Scope& s, const ast::Component& c, const Env& env, bool in_loop) {
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

    void emit_constraint(Scope& s, const ast::Constraint& c, const Env& env) {
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

    void emit_annotation(Scope& s, const ast::Annotation& a, const Env& env) {
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

    void report_structural(Scope& top) {
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

    ModelLibrary& library_;
    const FlattenOptions& options_;
    source::Diagnostics& d_;
    std::vector<std::unique_ptr<Scope>> scopes_;
    FlatModel out_;
    std::set<std::string> applied_;
    std::map<std::string, std::optional<std::vector<ast::ExprPtr>>> array_values_;
    long long elements_ = 0;
    bool over_budget_ = false;
};

} // namespace

std::optional<FlatModel> flatten(ModelLibrary& library, const FlattenOptions& options,
                                 source::Diagnostics& diagnostics) {
    return Flattener(library, options, diagnostics).run();
}

} // namespace mdl::flatten
