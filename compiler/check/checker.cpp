#include "check/checker.hpp"

#include "check/evaluate.hpp"
#include "check/fast_scales.hpp"
#include "check/vibration_periodicity.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <set>

namespace mdl::check {

namespace {

using ast::ComponentKind;
using source::Range;

struct BuiltinFunction {
    const char* name;
    Function function;
    std::size_t arity;
};
constexpr BuiltinFunction builtin_functions[] = {
    {"sin", Function::sin, 1},   {"cos", Function::cos, 1},     {"tan", Function::tan, 1},
    {"exp", Function::exp, 1},   {"log", Function::log, 1},     {"sqrt", Function::sqrt, 1},
    {"abs", Function::abs, 1},   {"atan2", Function::atan2, 2}, {"sinh", Function::sinh, 1},
    {"cosh", Function::cosh, 1}, {"tanh", Function::tanh, 1},   {"asin", Function::asin, 1},
    {"acos", Function::acos, 1}, {"atan", Function::atan, 1},   {"pow", Function::pow, 2},
};

const BuiltinFunction* find_function(const std::string& name) {
    for (const auto& f : builtin_functions) {
        if (name == f.name) {
            return &f;
        }
    }
    return nullptr;
}

const char* const axis_names[3] = {"x", "y", "z"};
const char* const velocity_names[3] = {"vx", "vy", "vz"};

// Experiment settings the runtime understands; others are warned about and ignored.
const std::vector<std::string> numeric_settings = {
    "StartTime", "StopTime", "Interval",        "Tolerance",       "atol",
    "rtol",      "step",     "every",           "window",          "micro_steps_per_period",
    "order",     "rho_inf",  "reproject_every", "macro_time_scale"};
const std::vector<std::string> text_settings = {"method", "algorithm", "filter", "macro", "micro"};

// What an expression may refer to, and how to name the place in messages.
struct Context {
    explicit Context(const char* where) : place(where) {}

    const char* place;               // "a parameter's value", "a potential", ...
    std::string place_name() const { // "a potential" -> "A potential" at a sentence's start
        std::string p = place;
        if (!p.empty()) {
            p[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(p[0])));
        }
        return p;
    }
    bool positions = false;
    bool velocities = false;
    bool states = false;
    bool time = false;
    bool vibrations = false;
    bool body_masses = true; // b.m (not in parameter values and masses)
    int phase_of = -1;       // vibration whose phase variable is in scope
    std::string phase_name;
};

enum class NameKind {
    parameter,
    coordinate,
    state,
    body,
    anchor,
    spring,
    damper,
    potential,
    force,
    gravity,
    vibration,
    constraint,
    kinetic
};

const char* describe(NameKind k) {
    switch (k) {
    case NameKind::parameter:
        return "parameter";
    case NameKind::coordinate:
        return "coordinate";
    case NameKind::state:
        return "state";
    case NameKind::body:
        return "body";
    case NameKind::anchor:
        return "anchor";
    case NameKind::spring:
        return "spring";
    case NameKind::damper:
        return "damper";
    case NameKind::potential:
        return "potential";
    case NameKind::force:
        return "force";
    case NameKind::gravity:
        return "gravity field";
    case NameKind::vibration:
        return "vibration";
    case NameKind::constraint:
        return "constraint";
    case NameKind::kinetic:
        return "kinetic energy";
    }
    return "name";
}

struct NameInfo {
    NameKind kind;
    std::uint32_t index; // into the table of its kind (positions for coordinates)
    Range range;
};

void walk(const Expr& e, const std::function<void(const Expr&)>& visit) {
    visit(e);
    for (const auto& a : e.args) {
        walk(*a, visit);
    }
}

bool depends_on(const Expr& e, Expr::Kind kind) {
    bool found = false;
    walk(e, [&](const Expr& x) { found = found || x.kind == kind; });
    return found;
}

class Checker {
public:
    Checker(const ast::Model& model, source::Diagnostics& diagnostics)
        : m_(model), d_(diagnostics) {}

    std::optional<CheckedModel> run() {
        std::size_t errors_before = d_.error_count();
        out_.name = m_.name.text;
        out_.description = m_.description.value_or("");
        out_.file = d_.file().name();
        if (m_.end_name.text != m_.name.text) {
            d_.error(m_.end_name.range, fmt::format("model '{}' ends with 'end {}'; expected "
                                                    "'end {}'",
                                                    m_.name.text, m_.end_name.text, m_.name.text));
        }
        declare_names();
        check_parameters();
        resolve_body_masses();
        for (std::size_t i = 0; i < m_.components.size(); ++i) {
            check_component(m_.components[i], component_index_[i]);
        }
        for (const auto& c : m_.constraints) {
            check_constraint(c);
        }
        for (const auto& e : m_.equations) {
            check_equation(e);
        }
        for (const auto& a : m_.annotations) {
            check_annotation(a);
        }
        check_square();
        if (d_.error_count() > errors_before) {
            return std::nullopt;
        }
        check_mass_matrix();
        if (d_.error_count() > errors_before) {
            return std::nullopt;
        }
        collect_fast_scales();
        return std::move(out_);
    }

private:
    // ---- Names -------------------------------------------------------------------------

    bool declare(const ast::Identifier& id, NameKind kind, std::uint32_t index) {
        if (is_builtin_name(id.text)) {
            d_.error(id.range,
                     fmt::format("'{}' is a built-in name and cannot be declared", id.text));
            return false;
        }
        auto [it, inserted] = names_.emplace(id.text, NameInfo{kind, index, id.range});
        if (!inserted) {
            d_.error(id.range, fmt::format("redefinition of '{}'", id.text));
            d_.note(it->second.range, fmt::format("previous definition of '{}' ({}) is here",
                                                  id.text, describe(it->second.kind)));
            return false;
        }
        return true;
    }

    static std::string member_modifier_name(const ast::Argument& a) {
        return a.modifier ? a.modifier->name.text : "";
    }

    void declare_names() {
        for (std::uint32_t i = 0; i < m_.parameters.size(); ++i) {
            const auto& p = m_.parameters[i];
            out_.parameters.push_back(
                {p.name.text, nullptr, 0, p.description.value_or(""), p.name.range});
            declare(p.name, NameKind::parameter, i);
        }
        component_index_.resize(m_.components.size());
        for (std::size_t ci = 0; ci < m_.components.size(); ++ci) {
            const ast::Component& c = m_.components[ci];
            auto idx = [&](auto& table) {
                return static_cast<std::uint32_t>(table.size());
            };
            std::uint32_t index = 0;
            NameKind kind = NameKind::parameter;
            switch (c.kind) {
            case ComponentKind::coordinate:
                index = idx(out_.positions);
                out_.positions.push_back(Position{c.name.text, "der(" + c.name.text + ")", nullptr,
                                                  number(0), number(0), -1, 0, c.name.range});
                kind = NameKind::coordinate;
                break;
            case ComponentKind::real:
                index = idx(out_.states);
                out_.states.push_back(
                    {c.name.text, number(0), nullptr, c.description.value_or(""), c.name.range});
                kind = NameKind::state;
                break;
            case ComponentKind::body: {
                index = idx(out_.bodies);
                Body b{
                    c.name.text, nullptr, {-1, -1, -1}, c.description.value_or(""), c.name.range};
                // The body's components are the axes its declaration names (x, y, z).
                for (int axis = 0; axis < 3; ++axis) {
                    for (const auto& a : c.arguments) {
                        if (member_modifier_name(a) == axis_names[axis]) {
                            b.position[static_cast<std::size_t>(axis)] =
                                static_cast<int>(out_.positions.size());
                            out_.positions.push_back(Position{
                                c.name.text + "." + axis_names[axis],
                                c.name.text + "." + velocity_names[axis], nullptr, number(0),
                                number(0), static_cast<int>(index), axis, a.range});
                            break;
                        }
                    }
                }
                out_.bodies.push_back(std::move(b));
                kind = NameKind::body;
                break;
            }
            case ComponentKind::anchor:
                index = idx(out_.anchors);
                out_.anchors.push_back(
                    {c.name.text, {number(0), number(0), number(0)}, c.name.range});
                kind = NameKind::anchor;
                break;
            case ComponentKind::spring:
                index = idx(out_.springs);
                out_.springs.push_back({});
                kind = NameKind::spring;
                break;
            case ComponentKind::damper:
                index = idx(out_.dampers);
                out_.dampers.push_back({});
                kind = NameKind::damper;
                break;
            case ComponentKind::potential:
                index = idx(out_.potentials);
                out_.potentials.push_back({});
                kind = NameKind::potential;
                break;
            case ComponentKind::force:
                index = idx(out_.forces);
                out_.forces.push_back({});
                kind = NameKind::force;
                break;
            case ComponentKind::gravity:
                index = idx(out_.gravity);
                out_.gravity.push_back({});
                kind = NameKind::gravity;
                break;
            case ComponentKind::vibration:
                index = idx(out_.vibrations);
                out_.vibrations.push_back({});
                out_.vibrations.back().name = c.name.text;
                kind = NameKind::vibration;
                break;
            case ComponentKind::instance:
                // Instances, arrays and loops are unrolled before checking (check_file).
                d_.error(c.range, fmt::format("instance '{}' of {} was not flattened: check "
                                              "models through check_file",
                                              c.name.text, c.type.text));
                continue;
            case ComponentKind::kinetic:
                index = idx(out_.kinetic);
                out_.kinetic.push_back({});
                kind = NameKind::kinetic;
                break;
            }
            component_index_[ci] = index;
            declare(c.name, kind, index);
        }
        for (std::uint32_t i = 0; i < m_.constraints.size(); ++i) {
            declare(m_.constraints[i].name, NameKind::constraint, i);
        }
    }

    std::vector<std::string> names_of(const std::function<bool(NameKind)>& keep) const {
        std::vector<std::string> out;
        for (const auto& [name, info] : names_) {
            if (keep(info.kind)) {
                out.push_back(name);
            }
        }
        return out;
    }

    std::string did_you_mean(const std::string& name, std::vector<std::string> candidates) {
        std::string best = source::closest_name(name, candidates);
        return best.empty() ? "" : fmt::format("; did you mean '{}'?", best);
    }

    // ---- Expressions -------------------------------------------------------------------

    ExprPtr make(Expr::Kind kind, Range range, std::uint32_t index = 0) {
        auto e = std::make_shared<Expr>();
        e->kind = kind;
        e->range = range;
        e->index = index;
        return e;
    }

    void not_allowed(Range r, const Context& ctx, const std::string& what) {
        d_.error(r, fmt::format("{} may not depend on {}", ctx.place, what));
    }

    // A condition (relation, and/or/not, true/false, or an if-expression choosing between
    // conditions) rather than a Real value.
    static bool is_condition(const ast::Expr& e) {
        if (e.as<ast::Boolean>() || e.as<ast::Not>()) {
            return true;
        }
        if (auto b = e.as<ast::Binary>()) {
            return b->op != ast::BinaryOp::add && b->op != ast::BinaryOp::sub &&
                   b->op != ast::BinaryOp::mul && b->op != ast::BinaryOp::div &&
                   b->op != ast::BinaryOp::pow;
        }
        if (auto f = e.as<ast::If>()) {
            return is_condition(*f->branches[0].second);
        }
        return false;
    }

    // A Real value: the expression every declaration and equation takes.
    ExprPtr resolve(const ast::Expr& e, const Context& ctx) {
        if (is_condition(e)) {
            d_.error(e.range, fmt::format("{} must be a Real value, not a condition; write "
                                          "'if condition then value else value'",
                                          ctx.place_name()));
            return nullptr;
        }
        return resolve_any(e, ctx);
    }

    // A condition: 1 where it holds, 0 elsewhere.
    ExprPtr resolve_condition(const ast::Expr& e, const Context& ctx) {
        if (!is_condition(e)) {
            d_.error(e.range, "expected a condition such as 'x > 0' (a relation, 'and', 'or', "
                              "'not', true or false), not a Real value");
            return nullptr;
        }
        return resolve_any(e, ctx);
    }

    ExprPtr select(ExprPtr c, ExprPtr a, ExprPtr b, Range range) {
        auto out = std::make_shared<Expr>();
        out->kind = Expr::Kind::select;
        out->range = range;
        out->args = {std::move(c), std::move(a), std::move(b)};
        return out;
    }

    ExprPtr resolve_any(const ast::Expr& e, const Context& ctx) {
        if (auto n = e.as<ast::Number>()) {
            return number(n->value, e.range);
        }
        if (auto b = e.as<ast::Boolean>()) {
            return number(b->value ? 1.0 : 0.0, e.range);
        }
        if (auto r = e.as<ast::NameRef>()) {
            return resolve_name(*r, e.range, ctx);
        }
        if (auto u = e.as<ast::Negate>()) {
            auto operand = resolve(*u->operand, ctx);
            if (!operand) {
                return nullptr;
            }
            auto out = make(Expr::Kind::negate, e.range);
            std::const_pointer_cast<Expr>(out)->args = {operand};
            return out;
        }
        if (auto u = e.as<ast::Not>()) {
            auto operand = resolve_condition(*u->operand, ctx);
            if (!operand) {
                return nullptr;
            }
            return select(operand, number(0.0, e.range), number(1.0, e.range), e.range);
        }
        if (auto f = e.as<ast::If>()) {
            const bool condition = is_condition(*f->branches[0].second);
            auto value = [&](const ast::Expr& x) {
                if (is_condition(x) != condition) {
                    d_.error(x.range, condition ? "this branch is a Real value; the first branch "
                                                  "of the if-expression is a condition"
                                                : "this branch is a condition; the first branch "
                                                  "of the if-expression is a Real value");
                    return ExprPtr();
                }
                return resolve_any(x, ctx);
            };
            ExprPtr out = value(*f->otherwise);
            for (auto it = f->branches.rbegin(); it != f->branches.rend() && out; ++it) {
                auto c = resolve_condition(*it->first, ctx);
                auto v = value(*it->second);
                if (!c || !v) {
                    return nullptr;
                }
                out = select(c, v, out, e.range);
            }
            return out;
        }
        if (auto b = e.as<ast::Binary>()) {
            using Op = ast::BinaryOp;
            if (b->op == Op::logical_and || b->op == Op::logical_or) {
                auto lhs = resolve_condition(*b->lhs, ctx);
                auto rhs = resolve_condition(*b->rhs, ctx);
                if (!lhs || !rhs) {
                    return nullptr;
                }
                return b->op == Op::logical_and ? select(lhs, rhs, number(0.0, e.range), e.range)
                                                : select(lhs, number(1.0, e.range), rhs, e.range);
            }
            auto lhs = resolve(*b->lhs, ctx);
            auto rhs = resolve(*b->rhs, ctx);
            if (!lhs || !rhs) {
                return nullptr;
            }
            switch (b->op) {
            case Op::add:
                return binary(Expr::Kind::add, lhs, rhs, e.range);
            case Op::sub:
                return binary(Expr::Kind::sub, lhs, rhs, e.range);
            case Op::mul:
                return binary(Expr::Kind::mul, lhs, rhs, e.range);
            case Op::div:
                return binary(Expr::Kind::div, lhs, rhs, e.range);
            case Op::pow:
                return binary(Expr::Kind::pow, lhs, rhs, e.range);
            default: {
                auto out = binary(Expr::Kind::compare, lhs, rhs, e.range);
                auto& c = std::const_pointer_cast<Expr>(out)->comparison;
                c = b->op == Op::lt   ? Comparison::lt
                    : b->op == Op::le ? Comparison::le
                    : b->op == Op::gt ? Comparison::gt
                    : b->op == Op::ge ? Comparison::ge
                    : b->op == Op::eq ? Comparison::eq
                                      : Comparison::ne;
                return out;
            }
            }
        }
        if (auto c = e.as<ast::Call>()) {
            return resolve_call(*c, e.range, ctx);
        }
        if (e.as<ast::VectorLiteral>()) {
            d_.error(e.range, "a vector {...} is allowed only as the value of a force on a body");
            return nullptr;
        }
        return nullptr;
    }

    ExprPtr resolve_call(const ast::Call& c, Range range, const Context& ctx) {
        const std::string& name = c.callee.text;
        if (name == "der") {
            return resolve_der(c, range, ctx);
        }
        const BuiltinFunction* f = find_function(name);
        if (!f) {
            std::vector<std::string> candidates;
            for (const auto& b : builtin_functions) {
                candidates.emplace_back(b.name);
            }
            candidates.emplace_back("der");
            auto it = names_.find(name);
            if (it != names_.end()) {
                d_.error(c.callee.range, fmt::format("'{}' is a {}, not a function", name,
                                                     describe(it->second.kind)));
            } else {
                d_.error(c.callee.range, fmt::format("unknown function '{}'{}", name,
                                                     did_you_mean(name, candidates)));
            }
            return nullptr;
        }
        if (c.args.size() != f->arity) {
            d_.error(c.callee.range, fmt::format("'{}' takes {} argument{}, got {}", name, f->arity,
                                                 f->arity == 1 ? "" : "s", c.args.size()));
            return nullptr;
        }
        auto out = std::make_shared<Expr>();
        out->kind = Expr::Kind::call;
        out->function = f->function;
        out->range = range;
        for (const auto& a : c.args) {
            auto arg = resolve(*a, ctx);
            if (!arg) {
                return nullptr;
            }
            out->args.push_back(arg);
        }
        return out;
    }

    // der(q) is the velocity of a position; der(der(q)) only on an equation's left side.
    ExprPtr resolve_der(const ast::Call& c, Range range, const Context& ctx) {
        if (c.args.size() != 1) {
            d_.error(c.callee.range, fmt::format("'der' takes 1 argument, got {}", c.args.size()));
            return nullptr;
        }
        const ast::Expr& arg = *c.args[0];
        if (auto inner = arg.as<ast::Call>(); inner && inner->callee.text == "der") {
            d_.error(range, "an acceleration der(der(...)) may appear only on the left side of "
                            "an equation");
            return nullptr;
        }
        const ast::NameRef* r = arg.as<ast::NameRef>();
        if (!r) {
            d_.error(arg.range, "der() takes a coordinate, a body's position or a state");
            return nullptr;
        }
        Context lookup(ctx.place);
        lookup.positions = lookup.states = true;
        auto target = resolve_name(*r, arg.range, lookup);
        if (!target) {
            return nullptr;
        }
        if (target->kind == Expr::Kind::position) {
            if (!ctx.velocities) {
                not_allowed(
                    range, ctx,
                    fmt::format("the velocity {}", out_.positions[target->index].velocity_name));
                return nullptr;
            }
            return make(Expr::Kind::velocity, range, target->index);
        }
        if (target->kind == Expr::Kind::state) {
            d_.error(range, fmt::format("der({}) of a first-order state may appear only on the "
                                        "left side of its equation",
                                        out_.states[target->index].name));
            return nullptr;
        }
        d_.error(arg.range, "der() takes a coordinate, a body's position or a state");
        return nullptr;
    }

    ExprPtr resolve_name(const ast::NameRef& r, Range range, const Context& ctx) {
        const ast::Identifier& head = r.parts[0];
        if (r.parts.size() == 1) {
            if (head.text == "time") {
                if (!ctx.time) {
                    not_allowed(range, ctx, "'time'");
                    return nullptr;
                }
                return make(Expr::Kind::time, range);
            }
            if (head.text == "pi") {
                return number(M_PI, range);
            }
            if (ctx.phase_of >= 0 && head.text == ctx.phase_name) {
                return make(Expr::Kind::phase, range, static_cast<std::uint32_t>(ctx.phase_of));
            }
        }
        auto it = names_.find(head.text);
        if (it == names_.end()) {
            if (is_builtin_name(head.text)) {
                d_.error(head.range, fmt::format("'{}' is a function; call it as {}(...)",
                                                 head.text, head.text));
                return nullptr;
            }
            auto candidates = names_of([](NameKind) { return true; });
            candidates.emplace_back("time");
            candidates.emplace_back("pi");
            if (ctx.phase_of >= 0) {
                candidates.push_back(ctx.phase_name);
            }
            d_.error(head.range, fmt::format("use of undeclared name '{}'{}", head.text,
                                             did_you_mean(head.text, candidates)));
            return nullptr;
        }
        const NameInfo& info = it->second;
        if (r.parts.size() > 1) {
            return resolve_member(r, range, info, ctx);
        }
        switch (info.kind) {
        case NameKind::parameter:
            return make(Expr::Kind::parameter, range, info.index);
        case NameKind::coordinate:
            if (!ctx.positions) {
                not_allowed(range, ctx, fmt::format("the coordinate '{}'", head.text));
                return nullptr;
            }
            return make(Expr::Kind::position, range, info.index);
        case NameKind::state:
            if (!ctx.states) {
                not_allowed(range, ctx, fmt::format("the state '{}'", head.text));
                return nullptr;
            }
            return make(Expr::Kind::state, range, info.index);
        case NameKind::vibration:
            if (!ctx.vibrations) {
                not_allowed(range, ctx, fmt::format("the vibration '{}'", head.text));
                return nullptr;
            }
            return make(Expr::Kind::vibration, range, info.index);
        case NameKind::body:
            d_.error(range, fmt::format("'{}' is a body, not a value; use one of its members "
                                        "({}.x, {}.vx, {}.m, ...)",
                                        head.text, head.text, head.text, head.text));
            return nullptr;
        case NameKind::anchor:
            d_.error(range, fmt::format("'{}' is an anchor, not a value; use {}.x, {}.y or {}.z",
                                        head.text, head.text, head.text, head.text));
            return nullptr;
        default:
            d_.error(range,
                     fmt::format("'{}' is a {} and has no value", head.text, describe(info.kind)));
            return nullptr;
        }
    }

    ExprPtr resolve_member(const ast::NameRef& r, Range range, const NameInfo& info,
                           const Context& ctx) {
        const std::string& owner = r.parts[0].text;
        const ast::Identifier& member = r.parts[1];
        if (r.parts.size() > 2) {
            d_.error(r.parts[2].range, fmt::format("'{}.{}' has no members", owner, member.text));
            return nullptr;
        }
        if (info.kind == NameKind::body) {
            const Body& b = out_.bodies[info.index];
            std::vector<std::string> members = {"m"};
            for (int axis = 0; axis < 3; ++axis) {
                int p = b.position[static_cast<std::size_t>(axis)];
                if (p >= 0) {
                    members.emplace_back(axis_names[axis]);
                    members.emplace_back(velocity_names[axis]);
                }
                if (p >= 0 && member.text == axis_names[axis]) {
                    if (!ctx.positions) {
                        not_allowed(range, ctx,
                                    fmt::format("the position '{}.{}'", owner, member.text));
                        return nullptr;
                    }
                    return make(Expr::Kind::position, range, static_cast<std::uint32_t>(p));
                }
                if (p >= 0 && member.text == velocity_names[axis]) {
                    if (!ctx.velocities) {
                        not_allowed(range, ctx,
                                    fmt::format("the velocity '{}.{}'", owner, member.text));
                        return nullptr;
                    }
                    return make(Expr::Kind::velocity, range, static_cast<std::uint32_t>(p));
                }
            }
            if (member.text == "m") {
                if (!ctx.body_masses) {
                    not_allowed(range, ctx, fmt::format("the mass of body '{}'", owner));
                    return nullptr;
                }
                if (!b.mass) {
                    return nullptr; // the body's own error was reported
                }
                return b.mass;
            }
            d_.error(member.range, fmt::format("body '{}' has no member '{}'{}", owner, member.text,
                                               did_you_mean(member.text, members)));
            return nullptr;
        }
        if (info.kind == NameKind::anchor) {
            for (int axis = 0; axis < 3; ++axis) {
                if (member.text == axis_names[axis]) {
                    const ExprPtr& c =
                        out_.anchors[info.index].coordinate[static_cast<std::size_t>(axis)];
                    if ((depends_on(*c, Expr::Kind::time) && !ctx.time) ||
                        (depends_on(*c, Expr::Kind::vibration) && !ctx.vibrations)) {
                        not_allowed(range, ctx, fmt::format("the moving anchor '{}'", owner));
                        return nullptr;
                    }
                    return c;
                }
            }
            d_.error(member.range, fmt::format("anchor '{}' has no member '{}'; anchors have x, "
                                               "y and z",
                                               owner, member.text));
            return nullptr;
        }
        d_.error(member.range,
                 fmt::format("'{}' is a {} and has no members", owner, describe(info.kind)));
        return nullptr;
    }

    static Context parameter_context(const char* place) { return Context(place); }

    // ---- Parameters --------------------------------------------------------------------

    void check_parameters() {
        const std::size_t n = m_.parameters.size();
        std::vector<std::vector<std::uint32_t>> deps(n);
        for (std::size_t i = 0; i < n; ++i) {
            const ast::Parameter& p = m_.parameters[i];
            if (p.type.text != "Real") {
                d_.error(p.type.range, fmt::format("unknown type '{}'; parameters are 'Real' or "
                                                   "'Integer'",
                                                   p.type.text));
            }
            if (!p.value) {
                d_.error(p.name.range, fmt::format("parameter '{}' has no value; write '{} = "
                                                   "...'",
                                                   p.name.text, p.name.text));
                continue;
            }
            Context ctx("a parameter's value");
            ctx.body_masses = false; // masses are defined by parameters, not the other way
            auto value = resolve(*p.value, ctx);
            if (!value) {
                continue;
            }
            walk(*value, [&](const Expr& x) {
                if (x.kind == Expr::Kind::parameter) {
                    deps[i].push_back(x.index);
                }
            });
            out_.parameters[i].value = value;
        }
        // Dependency order by depth-first search; a back edge is a cycle.
        std::vector<int> state(n, 0); // 0 new, 1 on the stack, 2 done
        std::vector<std::uint32_t> stack;
        std::function<bool(std::uint32_t)> visit = [&](std::uint32_t i) {
            if (state[i] == 2) {
                return true;
            }
            if (state[i] == 1) {
                auto from = std::find(stack.begin(), stack.end(), i);
                std::string path;
                for (auto it = from; it != stack.end(); ++it) {
                    path += m_.parameters[*it].name.text + " -> ";
                }
                path += m_.parameters[i].name.text;
                d_.error(m_.parameters[i].name.range,
                         fmt::format("parameter '{}' depends on itself: {}",
                                     m_.parameters[i].name.text, path));
                return false;
            }
            state[i] = 1;
            stack.push_back(i);
            bool ok = true;
            for (std::uint32_t d : deps[i]) {
                ok = visit(d) && ok;
                if (!ok) {
                    break;
                }
            }
            stack.pop_back();
            state[i] = 2;
            if (ok) {
                out_.parameter_order.push_back(i);
            }
            return ok;
        };
        bool acyclic = true;
        for (std::uint32_t i = 0; i < n; ++i) {
            if (state[i] == 0) {
                acyclic = visit(i) && acyclic;
            }
        }
        if (!acyclic) {
            return;
        }
        std::vector<double> values(n, 0.0);
        for (std::uint32_t i : out_.parameter_order) {
            Parameter& p = out_.parameters[i];
            if (!p.value) {
                continue;
            }
            values[i] = evaluate(*p.value, Values(values));
            p.default_value = values[i];
            if (!std::isfinite(values[i])) {
                d_.error(m_.parameters[i].value->range,
                         fmt::format("parameter '{}' evaluates to {}", p.name,
                                     std::isnan(values[i]) ? "NaN (not a number)" : "infinity"));
            }
        }
    }

    // ---- Components --------------------------------------------------------------------

    // The modifiers of a component by name, after checking that each is known, given once and
    // of the right shape (value or nested).
    struct Modifiers {
        std::map<std::string, const ast::Modifier*> by_name;
        const ast::Modifier* get(const std::string& n) const {
            auto it = by_name.find(n);
            return it == by_name.end() ? nullptr : it->second;
        }
    };

    Modifiers modifiers_of(const ast::Component& c, const std::vector<std::string>& allowed,
                           const std::vector<std::string>& nested, bool positional_ok) {
        Modifiers out;
        const char* kind = ast::to_string(c.kind);
        std::vector<std::string> all = allowed;
        all.insert(all.end(), nested.begin(), nested.end());
        for (const auto& a : c.arguments) {
            if (!a.modifier) {
                if (!positional_ok) {
                    d_.error(a.range, fmt::format("{} '{}' takes no positional arguments; write "
                                                  "name = value",
                                                  kind, c.name.text));
                }
                continue;
            }
            const ast::Modifier& m = *a.modifier;
            const std::string& n = m.name.text;
            bool is_value = std::find(allowed.begin(), allowed.end(), n) != allowed.end();
            bool is_nested = std::find(nested.begin(), nested.end(), n) != nested.end();
            if (!is_value && !is_nested) {
                std::string expected;
                for (const auto& x : all) {
                    expected += (expected.empty() ? "" : ", ") + x;
                }
                d_.error(m.name.range,
                         fmt::format("unknown modifier '{}' for {} '{}'{}", n, kind, c.name.text,
                                     all.empty() ? std::string()
                                     : did_you_mean(n, all).empty()
                                         ? fmt::format(" (expected {})", expected)
                                         : did_you_mean(n, all)));
                continue;
            }
            if (is_nested && !m.nested) {
                d_.error(m.range, fmt::format("write '{}(start = ...)' to give the start value "
                                              "of '{}.{}'",
                                              n, c.name.text, n));
                continue;
            }
            if (is_value && (m.nested || m.text)) {
                d_.error(m.range, fmt::format("modifier '{}' of {} '{}' takes an expression: "
                                              "'{} = ...'",
                                              n, kind, c.name.text, n));
                continue;
            }
            auto [it, inserted] = out.by_name.emplace(n, &m);
            if (!inserted) {
                d_.error(m.name.range, fmt::format("modifier '{}' given twice", n));
                d_.note(it->second->name.range, "first given here");
            }
        }
        return out;
    }

    // x(start = e): the start expression of a nested modifier.
    ExprPtr nested_start(const ast::Modifier& m, const std::string& owner) {
        ExprPtr start;
        for (const auto& child : m.children) {
            if (child.name.text != "start" || child.nested || child.text) {
                d_.error(child.name.range,
                         fmt::format("unknown modifier '{}' in '{}.{}'; expected 'start = ...'",
                                     child.name.text, owner, m.name.text));
                continue;
            }
            start = resolve(*child.value, parameter_context("a start value"));
        }
        return start;
    }

    void reject_value_and_fast(const ast::Component& c) {
        const char* kind = ast::to_string(c.kind);
        if (c.value && c.kind != ComponentKind::potential && c.kind != ComponentKind::force &&
            c.kind != ComponentKind::vibration && c.kind != ComponentKind::kinetic) {
            d_.error(c.value->range, fmt::format("{} '{}' takes no '= value'{}", kind, c.name.text,
                                                 c.kind == ComponentKind::coordinate ||
                                                         c.kind == ComponentKind::real
                                                     ? "; give its start value as 'start = ...'"
                                                     : ""));
        }
        if (c.fast && c.kind != ComponentKind::spring) {
            d_.error(c.fast_range, fmt::format("only springs can be marked 'fast'{}",
                                               c.kind == ComponentKind::vibration
                                                   ? " (a vibration is always a fast scale)"
                                                   : ""));
        }
    }

    void check_component(const ast::Component& c, std::uint32_t index) {
        reject_value_and_fast(c);
        switch (c.kind) {
        case ComponentKind::coordinate:
            return check_coordinate(c, index);
        case ComponentKind::real:
            return check_state(c, index);
        case ComponentKind::body:
            return check_body(c, index);
        case ComponentKind::anchor:
            return check_anchor(c, index);
        case ComponentKind::spring:
            return check_spring(c, index);
        case ComponentKind::damper:
            return check_damper(c, index);
        case ComponentKind::potential:
            return check_potential(c, index);
        case ComponentKind::force:
            return check_force(c, index);
        case ComponentKind::gravity:
            return check_gravity(c, index);
        case ComponentKind::vibration:
            return check_vibration(c, index);
        case ComponentKind::instance:
            return; // reported by declare_names
        case ComponentKind::kinetic:
            return check_kinetic(c, index);
        }
    }

    void check_coordinate(const ast::Component& c, std::uint32_t index) {
        auto mods = modifiers_of(c, {"start", "vstart", "m"}, {}, false);
        Position& p = out_.positions[index];
        if (auto s = mods.get("start")) {
            p.start = resolve(*s->value, parameter_context("a start value"));
        }
        if (auto s = mods.get("vstart")) {
            p.velocity_start = resolve(*s->value, parameter_context("a start value"));
        }
        if (auto m = mods.get("m")) {
            p.mass = resolve(*m->value, parameter_context("a mass"));
            coordinate_mass_[index] = m->range;
        }
    }

    void check_state(const ast::Component& c, std::uint32_t index) {
        auto mods = modifiers_of(c, {"start"}, {}, false);
        if (auto s = mods.get("start")) {
            out_.states[index].start = resolve(*s->value, parameter_context("a start value"));
        }
    }

    // Body masses are resolved before any other declaration, so that `b.m` can be used in
    // start values, potentials and forces wherever the body is declared.
    void resolve_body_masses() {
        for (std::size_t ci = 0; ci < m_.components.size(); ++ci) {
            const ast::Component& c = m_.components[ci];
            if (c.kind != ComponentKind::body) {
                continue;
            }
            for (const auto& a : c.arguments) {
                if (a.modifier && a.modifier->name.text == "m" && a.modifier->value) {
                    Context ctx("a mass");
                    ctx.body_masses = false; // a mass given by another body's mass: circular
                    out_.bodies[component_index_[ci]].mass = resolve(*a.modifier->value, ctx);
                }
            }
        }
    }

    void check_body(const ast::Component& c, std::uint32_t index) {
        auto mods = modifiers_of(c, {"m"}, {"x", "y", "z", "vx", "vy", "vz"}, false);
        Body& b = out_.bodies[index];
        if (!mods.get("m")) {
            d_.error(c.name.range,
                     fmt::format("body '{}' needs a mass: add 'm = ...'", c.name.text));
        }
        bool any = false;
        for (int axis = 0; axis < 3; ++axis) {
            int p = b.position[static_cast<std::size_t>(axis)];
            any = any || p >= 0;
            if (p >= 0) {
                out_.positions[static_cast<std::size_t>(p)].mass = b.mass;
            }
            if (auto m = mods.get(axis_names[axis]); m && p >= 0) {
                Position& pos = out_.positions[static_cast<std::size_t>(p)];
                pos.mass = b.mass;
                if (auto s = nested_start(*m, c.name.text)) {
                    pos.start = s;
                }
            }
            if (auto v = mods.get(velocity_names[axis])) {
                if (p < 0) {
                    d_.error(v->name.range, fmt::format("'{}' given but body '{}' has no '{}' "
                                                        "component; name '{}(start = ...)' too",
                                                        velocity_names[axis], c.name.text,
                                                        axis_names[axis], axis_names[axis]));
                } else if (auto s = nested_start(*v, c.name.text)) {
                    out_.positions[static_cast<std::size_t>(p)].velocity_start = s;
                }
            }
        }
        if (!any) {
            d_.error(c.name.range,
                     fmt::format("body '{}' has no position components; name the ones it moves "
                                 "in with their start values, e.g. x(start = 0), y(start = 0)",
                                 c.name.text));
        }
    }

    void check_anchor(const ast::Component& c, std::uint32_t index) {
        auto mods = modifiers_of(c, {"x", "y", "z"}, {}, false);
        Context ctx("an anchor's position");
        ctx.time = true;
        ctx.vibrations = true;
        for (int axis = 0; axis < 3; ++axis) {
            if (auto m = mods.get(axis_names[axis])) {
                if (auto e = resolve(*m->value, ctx)) {
                    out_.anchors[index].coordinate[static_cast<std::size_t>(axis)] = e;
                }
            }
        }
    }

    std::string axes_of(const Body& b) const {
        std::string s;
        for (int axis = 0; axis < 3; ++axis) {
            if (b.position[static_cast<std::size_t>(axis)] >= 0) {
                s += (s.empty() ? "" : ", ") + std::string(axis_names[axis]);
            }
        }
        return s;
    }

    // The two ends of a spring or damper: bodies or anchors, at least one body, and two bodies
    // with the same components.
    bool endpoints(const ast::Component& c, Endpoint& a, Endpoint& b) {
        std::vector<const ast::Argument*> positional;
        for (const auto& arg : c.arguments) {
            if (!arg.modifier) {
                positional.push_back(&arg);
            }
        }
        const char* kind = ast::to_string(c.kind);
        if (positional.size() != 2) {
            d_.error(positional.empty() ? c.name.range : positional[0]->range,
                     fmt::format("{} '{}' connects two bodies or anchors, got {}", kind,
                                 c.name.text, positional.size()));
            return false;
        }
        Endpoint ends[2];
        for (int i = 0; i < 2; ++i) {
            const ast::Expr& e = *positional[static_cast<std::size_t>(i)]->positional;
            const ast::NameRef* r = e.as<ast::NameRef>();
            auto it = r && r->parts.size() == 1 ? names_.find(r->parts[0].text) : names_.end();
            if (!r || r->parts.size() != 1) {
                d_.error(e.range,
                         fmt::format("a {} connects bodies or anchors; expected a name", kind));
                return false;
            }
            if (it == names_.end()) {
                auto candidates = names_of(
                    [](NameKind k) { return k == NameKind::body || k == NameKind::anchor; });
                d_.error(e.range, fmt::format("use of undeclared name '{}'{}", r->parts[0].text,
                                              did_you_mean(r->parts[0].text, candidates)));
                return false;
            }
            if (it->second.kind != NameKind::body && it->second.kind != NameKind::anchor) {
                d_.error(e.range, fmt::format("'{}' is a {}; a {} connects bodies or anchors",
                                              r->parts[0].text, describe(it->second.kind), kind));
                return false;
            }
            ends[i] = {it->second.kind == NameKind::anchor, it->second.index};
        }
        if (ends[0].is_anchor && ends[1].is_anchor) {
            d_.error(c.name.range, fmt::format("{} '{}' connects two anchors; at least one end "
                                               "must be a body",
                                               kind, c.name.text));
            return false;
        }
        if (!ends[0].is_anchor && !ends[1].is_anchor) {
            if (ends[0].index == ends[1].index) {
                d_.error(c.name.range, fmt::format("{} '{}' connects body '{}' to itself", kind,
                                                   c.name.text, out_.bodies[ends[0].index].name));
                return false;
            }
            const Body& b0 = out_.bodies[ends[0].index];
            const Body& b1 = out_.bodies[ends[1].index];
            for (std::size_t axis = 0; axis < 3; ++axis) {
                if ((b0.position[axis] < 0) != (b1.position[axis] < 0)) {
                    d_.error(c.name.range,
                             fmt::format("{} '{}' connects '{}' ({}) and '{}' ({}); bodies joined "
                                         "by a {} must have the same components",
                                         kind, c.name.text, b0.name, axes_of(b0), b1.name,
                                         axes_of(b1), kind));
                    return false;
                }
            }
        }
        a = ends[0];
        b = ends[1];
        return true;
    }

    void check_spring(const ast::Component& c, std::uint32_t index) {
        auto mods = modifiers_of(c, {"k", "length"}, {}, true);
        Spring& s = out_.springs[index];
        s.name = c.name.text;
        s.range = c.name.range;
        endpoints(c, s.a, s.b);
        if (auto k = mods.get("k")) {
            s.stiffness = resolve(*k->value, parameter_context("a spring's stiffness"));
        } else {
            d_.error(c.name.range,
                     fmt::format("spring '{}' needs a stiffness: add 'k = ...'", c.name.text));
        }
        s.rest_length = number(0);
        if (auto l = mods.get("length")) {
            s.rest_length = resolve(*l->value, parameter_context("a spring's length"));
        }
        s.fast = c.fast;
        for (const auto& m : c.fast_modifiers) {
            if (m.name.text != "omega" || m.nested || m.text) {
                d_.error(m.name.range, fmt::format("unknown modifier '{}' of 'fast'; expected "
                                                   "'omega = ...'",
                                                   m.name.text));
                continue;
            }
            s.fast_omega = resolve(*m.value, parameter_context("a fast frequency"));
        }
    }

    void check_damper(const ast::Component& c, std::uint32_t index) {
        auto mods = modifiers_of(c, {"c"}, {}, true);
        Damper& d = out_.dampers[index];
        d.name = c.name.text;
        d.range = c.name.range;
        endpoints(c, d.a, d.b);
        if (auto k = mods.get("c")) {
            d.coefficient = resolve(*k->value, parameter_context("a damping coefficient"));
        } else {
            d_.error(c.name.range, fmt::format("damper '{}' needs a damping coefficient: add 'c "
                                               "= ...'",
                                               c.name.text));
        }
    }

    bool require_value(const ast::Component& c, const char* example) {
        if (!c.value) {
            d_.error(c.name.range, fmt::format("{} '{}' needs a value: {}", ast::to_string(c.kind),
                                               c.name.text, example));
            return false;
        }
        return true;
    }

    void check_potential(const ast::Component& c, std::uint32_t index) {
        if (c.has_arguments) {
            d_.error(c.arguments.empty() ? c.name.range : c.arguments[0].range,
                     fmt::format("potential '{}' takes no arguments", c.name.text));
        }
        Potential& p = out_.potentials[index];
        p.name = c.name.text;
        p.range = c.name.range;
        if (!require_value(c, "'potential U = expression;'")) {
            return;
        }
        Context ctx("a potential");
        ctx.positions = ctx.time = ctx.vibrations = true;
        p.value = resolve(*c.value, ctx);
        if (p.value && !depends_on(*p.value, Expr::Kind::position)) {
            d_.warning(c.value->range, fmt::format("potential '{}' does not depend on any "
                                                   "position and exerts no force",
                                                   c.name.text));
        }
    }

    // kinetic T = expression; a quadratic form in the velocities of coordinates.
    void check_kinetic(const ast::Component& c, std::uint32_t index) {
        if (c.has_arguments) {
            d_.error(c.arguments.empty() ? c.name.range : c.arguments[0].range,
                     fmt::format("kinetic energy '{}' takes no arguments", c.name.text));
        }
        Kinetic& k = out_.kinetic[index];
        k.name = c.name.text;
        k.range = c.name.range;
        if (!require_value(c, "'kinetic T = expression;'")) {
            return;
        }
        Context ctx("a kinetic energy");
        ctx.positions = ctx.velocities = true;
        ExprPtr value = resolve(*c.value, ctx);
        if (!value) {
            return;
        }
        // Its coordinates take their inertia from T even when T is refused below: no second
        // error that they have neither mass nor equation.
        walk(*value, [&](const Expr& e) {
            if (e.kind == Expr::Kind::velocity && out_.positions[e.index].body < 0) {
                kinetic_of_.emplace(e.index, index);
            }
        });
        bool body_velocity = false;
        walk(*value, [&](const Expr& e) {
            if (e.kind != Expr::Kind::velocity || out_.positions[e.index].body < 0) {
                return;
            }
            const Position& p = out_.positions[e.index];
            d_.error(e.range,
                     fmt::format("a kinetic energy may use only the velocities of coordinates; "
                                 "'{}' is a component of body '{}', whose inertia is its mass m",
                                 p.velocity_name,
                                 out_.bodies[static_cast<std::size_t>(p.body)].name));
            body_velocity = true;
        });
        if (body_velocity) {
            return;
        }
        const int degree = velocity_degree(*value);
        if (degree < 0) {
            return; // reported
        }
        if (degree != 2) {
            d_.error(c.value->range,
                     fmt::format("kinetic energy '{}' is of degree {} in the velocities; it must "
                                 "be quadratic in them, T = 1/2 v^T M(q) v",
                                 c.name.text, degree));
            return;
        }
        k.value = value;
    }

    // The degree of e as a homogeneous polynomial in the velocities, with coefficients any
    // functions of positions and parameters; -1 after reporting why e is not one (a sum of
    // terms of different degrees, a velocity inside a function or a denominator, a power of
    // velocities that is not a whole number). A syntactic proof: degree 2 means a quadratic
    // form 1/2 v^T M(q) v, so M = d2T/dv2 does not depend on v and T has no terms constant or
    // linear in v.
    int velocity_degree(const Expr& e) {
        using K = Expr::Kind;
        const auto degree_of = [&](std::size_t i) {
            return velocity_degree(*e.args[i]);
        };
        const auto whole_power = [&](int base, const Expr& exponent) {
            if (base == 0) {
                const int d = velocity_degree(exponent);
                if (d > 0) {
                    d_.error(exponent.range, "a kinetic energy must be quadratic in the "
                                             "velocities; they may not appear in an exponent");
                    return -1;
                }
                return d < 0 ? -1 : 0;
            }
            const double k = exponent.kind == K::number ? exponent.value : -1.0;
            if (!(k >= 0.0 && k <= 16.0 && k == std::floor(k))) {
                d_.error(exponent.range, "a kinetic energy must be quadratic in the velocities; "
                                         "a power of velocities needs a whole-number exponent "
                                         "such as ^2");
                return -1;
            }
            return base * static_cast<int>(k);
        };
        switch (e.kind) {
        case K::velocity:
            return 1;
        case K::negate:
            return degree_of(0);
        case K::add:
        case K::sub: {
            const int a = degree_of(0), b = degree_of(1);
            if (a < 0 || b < 0) {
                return -1;
            }
            if (a != b) {
                const Expr& low = a < b ? *e.args[0] : *e.args[1];
                const int low_degree = std::min(a, b);
                d_.error(low.range,
                         fmt::format("a kinetic energy must be quadratic in the velocities; this "
                                     "term is {} in them, beside a term of degree {}",
                                     low_degree == 0   ? "constant"
                                     : low_degree == 1 ? "linear"
                                                       : fmt::format("of degree {}", low_degree),
                                     std::max(a, b)));
                return -1;
            }
            return a;
        }
        case K::mul: {
            const int a = degree_of(0), b = degree_of(1);
            return a < 0 || b < 0 ? -1 : a + b;
        }
        case K::div: {
            const int a = degree_of(0), b = degree_of(1);
            if (a < 0 || b < 0) {
                return -1;
            }
            if (b > 0) {
                d_.error(e.args[1]->range, "a kinetic energy must be quadratic in the "
                                           "velocities; it may not divide by them");
                return -1;
            }
            return a;
        }
        case K::pow: {
            const int a = degree_of(0);
            return a < 0 ? -1 : whole_power(a, *e.args[1]);
        }
        case K::call: {
            if (e.function == Function::pow) {
                const int a = degree_of(0);
                return a < 0 ? -1 : whole_power(a, *e.args[1]);
            }
            for (std::size_t i = 0; i < e.args.size(); ++i) {
                const int d = degree_of(i);
                if (d < 0) {
                    return -1;
                }
                if (d > 0) {
                    d_.error(e.range,
                             fmt::format("a kinetic energy must be quadratic in the velocities; "
                                         "'{}' of a velocity is not",
                                         to_string(e.function)));
                    return -1;
                }
            }
            return 0;
        }
        default:
            return 0;
        }
    }

    // M = d2T/dv2 at the start state, by polarization (exact for a quadratic form:
    // M_ii = 2 T(e_i), M_ij = T(e_i + e_j) - T(e_i) - T(e_j)), must be positive definite:
    // Cholesky with a pivot above 1e-12 of its diagonal entry.
    void check_mass_matrix() {
        std::vector<std::uint32_t> coordinates;
        for (const auto& [position, kinetic] : kinetic_of_) {
            coordinates.push_back(position);
        }
        if (coordinates.empty()) {
            return;
        }
        const std::vector<double> params = out_.default_parameters();
        Values at_start(params);
        std::vector<double> q(out_.positions.size()), v(out_.positions.size(), 0.0);
        for (std::size_t i = 0; i < q.size(); ++i) {
            q[i] = out_.positions[i].start ? evaluate(*out_.positions[i].start, at_start) : 0.0;
        }
        Values values(params);
        values.positions = q;
        values.velocities = v;
        const auto kinetic_energy = [&](std::uint32_t i, std::uint32_t j) {
            std::fill(v.begin(), v.end(), 0.0);
            v[i] += 1.0;
            v[j] += 1.0;
            double t = 0.0;
            for (const auto& k : out_.kinetic) {
                t += evaluate(*k.value, values);
            }
            return t;
        };
        const std::size_t n = coordinates.size();
        std::vector<double> unit(n);
        for (std::size_t i = 0; i < n; ++i) {
            unit[i] = kinetic_energy(coordinates[i], coordinates[i]) / 4.0; // T(2 e_i) = 4 T(e_i)
        }
        std::vector<double> mass(n * n);
        for (std::size_t i = 0; i < n; ++i) {
            mass[i * n + i] = 2.0 * unit[i];
            for (std::size_t j = 0; j < i; ++j) {
                const double mij =
                    kinetic_energy(coordinates[i], coordinates[j]) - unit[i] - unit[j];
                mass[i * n + j] = mass[j * n + i] = mij;
            }
        }
        const Kinetic& first = out_.kinetic.front();
        for (std::size_t j = 0; j < n; ++j) {
            const double diagonal = mass[j * n + j];
            double pivot = diagonal;
            for (std::size_t k = 0; k < j; ++k) {
                pivot -= mass[j * n + k] * mass[j * n + k];
            }
            const std::string& velocity = out_.positions[coordinates[j]].velocity_name;
            if (!std::isfinite(pivot)) {
                d_.error(first.range, fmt::format("the kinetic energy is not finite at the start "
                                                  "state (with {} = 1)",
                                                  velocity));
                return;
            }
            if (!(diagonal > 0.0) || !(pivot > 1e-12 * diagonal)) {
                d_.error(first.range,
                         fmt::format("the mass matrix M = d2T/dv2 of the kinetic energy is not "
                                     "positive definite at the start state: {}",
                                     !(diagonal > 0.0)
                                         ? fmt::format("its diagonal entry for {} is {:g}",
                                                       velocity, diagonal)
                                         : fmt::format("{} adds no inertia independent of the "
                                                       "velocities before it (Cholesky pivot "
                                                       "{:g})",
                                                       velocity, pivot)));
                return;
            }
            const double ljj = std::sqrt(pivot);
            mass[j * n + j] = ljj;
            for (std::size_t i = j + 1; i < n; ++i) {
                double s = mass[i * n + j];
                for (std::size_t k = 0; k < j; ++k) {
                    s -= mass[i * n + k] * mass[j * n + k];
                }
                mass[i * n + j] = s / ljj;
            }
        }
    }

    static Context force_context(const char* place) {
        Context ctx(place);
        ctx.positions = ctx.velocities = ctx.states = ctx.time = ctx.vibrations = true;
        return ctx;
    }

    void check_force(const ast::Component& c, std::uint32_t index) {
        auto mods = modifiers_of(c, {}, {}, true);
        Force& f = out_.forces[index];
        f.name = c.name.text;
        f.range = c.name.range;
        std::vector<const ast::Argument*> positional;
        for (const auto& arg : c.arguments) {
            if (!arg.modifier) {
                positional.push_back(&arg);
            }
        }
        if (positional.size() != 1) {
            d_.error(c.has_arguments && !positional.empty() ? positional[1]->range : c.name.range,
                     fmt::format("force '{}' acts on one coordinate or body: write 'force {}(q) "
                                 "= ...', got {} targets",
                                 c.name.text, c.name.text, positional.size()));
            return;
        }
        if (!require_value(c,
                           fmt::format("'force {}(target) = expression;'", c.name.text).c_str())) {
            return;
        }
        const ast::Expr& target = *positional[0]->positional;
        const ast::NameRef* r = target.as<ast::NameRef>();
        auto it = r && r->parts.size() == 1 ? names_.find(r->parts[0].text) : names_.end();
        if (it == names_.end() ||
            (it->second.kind != NameKind::coordinate && it->second.kind != NameKind::body)) {
            d_.error(target.range, "a force acts on a coordinate or a body; expected its name");
            return;
        }
        Context ctx = force_context("a force");
        const auto* vec = c.value->as<ast::VectorLiteral>();
        if (it->second.kind == NameKind::coordinate) {
            if (vec) {
                d_.error(c.value->range, fmt::format("force on coordinate '{}' takes a scalar, "
                                                     "not a vector",
                                                     r->parts[0].text));
                return;
            }
            f.positions = {it->second.index};
            if (auto e = resolve(*c.value, ctx)) {
                f.components = {e};
            }
            return;
        }
        const Body& b = out_.bodies[it->second.index];
        std::vector<std::uint32_t> axes;
        for (int p : b.position) {
            if (p >= 0) {
                axes.push_back(static_cast<std::uint32_t>(p));
            }
        }
        std::size_t given = vec ? vec->elements.size() : 1;
        if (given != axes.size() || (!vec && axes.size() != 1)) {
            d_.error(c.value->range,
                     fmt::format("force on body '{}' ({}) needs {} component{}, got {}", b.name,
                                 axes_of(b), axes.size(), axes.size() == 1 ? "" : "s", given));
            return;
        }
        f.positions = axes;
        for (std::size_t i = 0; i < given; ++i) {
            auto e = resolve(vec ? *vec->elements[i] : *c.value, ctx);
            if (e) {
                f.components.push_back(e);
            }
        }
    }

    void check_gravity(const ast::Component& c, std::uint32_t index) {
        auto mods = modifiers_of(c, {"x", "y", "z"}, {}, false);
        Gravity& g = out_.gravity[index];
        g.name = c.name.text;
        g.range = c.name.range;
        g.scope = c.scope;
        Context ctx("a gravity field");
        ctx.time = ctx.vibrations = true;
        for (int axis = 0; axis < 3; ++axis) {
            g.acceleration[static_cast<std::size_t>(axis)] = number(0);
            if (auto m = mods.get(axis_names[axis])) {
                if (auto e = resolve(*m->value, ctx)) {
                    g.acceleration[static_cast<std::size_t>(axis)] = e;
                }
            }
        }
        if (out_.bodies.empty()) {
            d_.warning(c.name.range, fmt::format("gravity '{}' acts on bodies, and the model has "
                                                 "none",
                                                 c.name.text));
        }
    }

    // Degree of an expression in time: 0 constant, 1 affine, -1 anything else.
    static int time_degree(const Expr& e) {
        using K = Expr::Kind;
        auto deg = [](const ExprPtr& x) {
            return time_degree(*x);
        };
        switch (e.kind) {
        case K::time:
            return 1;
        case K::negate:
            return deg(e.args[0]);
        case K::add:
        case K::sub: {
            int a = deg(e.args[0]), b = deg(e.args[1]);
            return a < 0 || b < 0 ? -1 : std::max(a, b);
        }
        case K::mul: {
            int a = deg(e.args[0]), b = deg(e.args[1]);
            return a < 0 || b < 0 || a + b > 1 ? -1 : a + b;
        }
        case K::div: {
            int a = deg(e.args[0]), b = deg(e.args[1]);
            return a < 0 || b != 0 ? -1 : a;
        }
        case K::pow:
        case K::call:
        case K::compare:
        case K::select:
            for (const auto& a : e.args) {
                if (deg(a) != 0) {
                    return -1;
                }
            }
            return 0;
        default:
            return 0;
        }
    }

    void check_vibration(const ast::Component& c, std::uint32_t index) {
        Vibration& v = out_.vibrations[index];
        v.range = c.name.range;
        const ast::Modifier* phase = nullptr;
        for (const auto& a : c.arguments) {
            if (!a.modifier || a.modifier->nested || a.modifier->text || phase) {
                d_.error(a.range, fmt::format("vibration '{}' takes one argument, its phase: "
                                              "'vibration {}(theta = omega*time) = ...'",
                                              c.name.text, c.name.text));
                return;
            }
            phase = &*a.modifier;
        }
        if (!phase) {
            d_.error(c.name.range, fmt::format("vibration '{}' needs its phase: 'vibration "
                                               "{}(theta = omega*time) = ...'",
                                               c.name.text, c.name.text));
            return;
        }
        if (!require_value(c, "a function of its phase, e.g. '= vmax*omega*cos(theta)'")) {
            return;
        }
        v.phase_name = phase->name.text;
        if (names_.count(v.phase_name) || is_builtin_name(v.phase_name)) {
            d_.error(phase->name.range, fmt::format("the phase variable '{}' hides a name "
                                                    "declared elsewhere; choose another name",
                                                    v.phase_name));
            return;
        }
        Context phase_ctx("a vibration's phase");
        phase_ctx.time = true;
        v.phase = resolve(*phase->value, phase_ctx);
        Context value_ctx("a vibration's value");
        value_ctx.phase_of = static_cast<int>(index);
        value_ctx.phase_name = v.phase_name;
        v.value = resolve(*c.value, value_ctx);
        if (!v.phase || !v.value) {
            return;
        }
        if (time_degree(*v.phase) != 1) {
            d_.error(phase->value->range,
                     fmt::format("the phase of vibration '{}' must be affine in time, "
                                 "omega*time + theta0, with omega and theta0 from parameters",
                                 c.name.text));
            return;
        }
        if (!depends_on(*v.value, Expr::Kind::phase)) {
            d_.warning(c.value->range, fmt::format("vibration '{}' does not depend on its phase "
                                                   "'{}'",
                                                   c.name.text, v.phase_name));
        }
        if (!phase_defaults_known()) {
            return;
        }
        auto params = out_.default_parameters();
        if (const Periodicity p = vibration_periodicity(*v.value, index, params); !p.periodic) {
            d_.error(c.value->range,
                     fmt::format("vibration '{}' is not 2*pi-periodic in its phase '{}': its "
                                 "value is {:.6g} at {} = {:.6g} but {:.6g} at {} + 2*pi; the "
                                 "multiscale methods average over one period (write the phase's "
                                 "integer multiples, e.g. cos(2*{}), or a slower phase)",
                                 c.name.text, v.phase_name, p.value, v.phase_name, p.phase,
                                 p.shifted, v.phase_name, v.phase_name));
            return;
        }
        double at0 = evaluate(*v.phase, Values(params, 0.0));
        double at1 = evaluate(*v.phase, Values(params, 1.0));
        v.omega = at1 - at0;
        if (v.omega == 0) {
            d_.error(phase->value->range,
                     fmt::format("the phase of vibration '{}' does not advance with time "
                                 "(omega = 0 with the parameters' default values)",
                                 c.name.text));
        }
    }

    // Parameters have values only when none of them failed.
    bool phase_defaults_known() const {
        return out_.parameter_order.size() == out_.parameters.size();
    }

    // ---- Constraints and equations -----------------------------------------------------

    void check_constraint(const ast::Constraint& c) {
        Context ctx("a constraint");
        ctx.positions = true;
        auto lhs = resolve(*c.lhs, ctx);
        auto rhs = resolve(*c.rhs, ctx);
        if (!lhs || !rhs) {
            return;
        }
        auto residual = binary(Expr::Kind::sub, lhs, rhs, c.range);
        if (!depends_on(*residual, Expr::Kind::position)) {
            d_.error(c.name.range,
                     fmt::format("constraint '{}' does not depend on any position", c.name.text));
            return;
        }
        out_.constraints.push_back({c.name.text, residual, c.name.range});
    }

    // der(der(name)) -> the NameRef, else null.
    static const ast::NameRef* acceleration_of(const ast::Expr& e, Range& range) {
        const ast::Call* outer = e.as<ast::Call>();
        if (!outer || outer->callee.text != "der" || outer->args.size() != 1) {
            return nullptr;
        }
        const ast::Call* inner = outer->args[0]->as<ast::Call>();
        if (!inner || inner->callee.text != "der" || inner->args.size() != 1) {
            return nullptr;
        }
        range = inner->args[0]->range;
        return inner->args[0]->as<ast::NameRef>();
    }

    void check_equation(const ast::Equation& eq) {
        const ast::Expr& lhs = *eq.lhs;
        Range target_range;
        const ast::NameRef* target = acceleration_of(lhs, target_range);
        const ast::Expr* factor = nullptr;
        if (!target) {
            if (const auto* b = lhs.as<ast::Binary>(); b && b->op == ast::BinaryOp::mul) {
                if ((target = acceleration_of(*b->rhs, target_range))) {
                    factor = b->lhs.get();
                } else if ((target = acceleration_of(*b->lhs, target_range))) {
                    factor = b->rhs.get();
                }
            }
        }
        if (target) {
            return second_order_equation(eq, *target, target_range, factor);
        }
        const ast::Call* der = lhs.as<ast::Call>();
        if (der && der->callee.text == "der" && der->args.size() == 1 &&
            der->args[0]->as<ast::NameRef>()) {
            return first_order_equation(eq, *der->args[0]->as<ast::NameRef>(), der->args[0]->range);
        }
        d_.error(lhs.range, "the left side of an equation must be der(der(q)), m*der(der(q)) or "
                            "der(x)");
    }

    void second_order_equation(const ast::Equation& eq, const ast::NameRef& target, Range range,
                               const ast::Expr* factor) {
        auto name = resolve_name(target, range, force_context("an equation"));
        if (!name) {
            return;
        }
        if (name->kind == Expr::Kind::state) {
            d_.error(range,
                     fmt::format("'{}' is a first-order state; write der({}) = ...",
                                 out_.states[name->index].name, out_.states[name->index].name));
            return;
        }
        if (name->kind != Expr::Kind::position) {
            d_.error(range, fmt::format("der(der(...)) takes a coordinate; '{}' is a {}",
                                        target.parts[0].text,
                                        describe(names_.at(target.parts[0].text).kind)));
            return;
        }
        Position& p = out_.positions[name->index];
        if (p.body >= 0) {
            d_.error(range,
                     fmt::format("'{}' is a component of body '{}': its motion follows "
                                 "from the body's mass and the forces on it, not from an "
                                 "equation",
                                 p.name, out_.bodies[static_cast<std::size_t>(p.body)].name));
            return;
        }
        auto [it, inserted] = equation_of_.emplace(name->index, eq.range);
        if (!inserted) {
            d_.error(eq.range, fmt::format("a second equation for coordinate '{}'", p.name));
            d_.note(it->second, "the first one is here");
            return;
        }
        if (auto m = coordinate_mass_.find(name->index); m != coordinate_mass_.end()) {
            d_.error(eq.range, fmt::format("coordinate '{}' has both a mass 'm' and an "
                                           "equation; give it one or the other",
                                           p.name));
            d_.note(m->second, "the mass is given here");
            return;
        }
        ExprPtr mass = number(1);
        if (factor) {
            mass = resolve(*factor, parameter_context("the mass factor of an equation"));
            if (!mass) {
                return;
            }
        }
        p.mass = mass;
        auto rhs = resolve(*eq.rhs, force_context("an equation's right side"));
        if (rhs) {
            out_.equations.push_back({name->index, rhs, eq.range});
        }
    }

    void first_order_equation(const ast::Equation& eq, const ast::NameRef& target, Range range) {
        auto name = resolve_name(target, range, force_context("an equation"));
        if (!name) {
            return;
        }
        if (name->kind == Expr::Kind::position) {
            d_.error(range, fmt::format("'{}' is a second-order coordinate; write der(der({})) "
                                        "= ...",
                                        out_.positions[name->index].name,
                                        out_.positions[name->index].name));
            return;
        }
        if (name->kind != Expr::Kind::state) {
            d_.error(range, "der(x) = ... takes a state declared with 'Real x'");
            return;
        }
        State& s = out_.states[name->index];
        auto [it, inserted] = state_equation_of_.emplace(name->index, eq.range);
        if (!inserted) {
            d_.error(eq.range, fmt::format("a second equation for state '{}'", s.name));
            d_.note(it->second, "the first one is here");
            return;
        }
        s.rate = resolve(*eq.rhs, force_context("an equation's right side"));
    }

    void check_square() {
        for (std::uint32_t i = 0; i < out_.positions.size(); ++i) {
            const Position& p = out_.positions[i];
            auto bound = names_.find(p.name);
            if (p.body >= 0 || bound == names_.end() ||
                bound->second.kind != NameKind::coordinate) {
                continue; // a body's component, or a redefinition already reported
            }
            if (auto k = kinetic_of_.find(i); k != kinetic_of_.end()) {
                out_.positions[i].kinetic = true;
                const Kinetic& kinetic = out_.kinetic[k->second];
                if (auto m = coordinate_mass_.find(i); m != coordinate_mass_.end()) {
                    d_.error(m->second,
                             fmt::format("coordinate '{}' gets its inertia from kinetic energy "
                                         "'{}'; remove its mass 'm'",
                                         p.name, kinetic.name));
                    d_.note(kinetic.range, "the kinetic energy is declared here");
                }
                if (auto e = equation_of_.find(i); e != equation_of_.end()) {
                    d_.error(e->second,
                             fmt::format("coordinate '{}' gets its inertia from kinetic energy "
                                         "'{}' and takes no equation; write the forces on it "
                                         "as potentials or 'force' declarations",
                                         p.name, kinetic.name));
                    d_.note(kinetic.range, "the kinetic energy is declared here");
                }
                out_.positions[i].mass = nullptr;
                continue;
            }
            if (!equation_of_.count(i) && !coordinate_mass_.count(i)) {
                d_.error(p.range,
                         fmt::format("coordinate '{}' has no equation and no mass: add "
                                     "'der(der({})) = ...' or give it a mass 'm = ...' so that "
                                     "potentials, forces and constraints move it",
                                     p.name, p.name));
            }
        }
        for (std::uint32_t i = 0; i < out_.states.size(); ++i) {
            if (!state_equation_of_.count(i)) {
                d_.error(out_.states[i].range,
                         fmt::format("state '{}' has no equation: add 'der({}) = ...'",
                                     out_.states[i].name, out_.states[i].name));
            }
        }
    }

    // ---- Annotation ----------------------------------------------------------------------

    void check_annotation(const ast::Annotation& a) {
        for (const auto& m : a.modifiers) {
            if (m.name.text != "experiment" || !m.nested) {
                d_.warning(m.name.range, fmt::format("ignoring annotation '{}'; mdl reads "
                                                     "'experiment(...)'",
                                                     m.name.text));
                continue;
            }
            for (const auto& s : m.children) {
                check_setting(s);
            }
        }
    }

    void check_setting(const ast::Modifier& s) {
        const std::string& key = s.name.text;
        bool numeric = std::find(numeric_settings.begin(), numeric_settings.end(), key) !=
                       numeric_settings.end();
        bool text =
            std::find(text_settings.begin(), text_settings.end(), key) != text_settings.end();
        if (!numeric && !text) {
            std::vector<std::string> all = numeric_settings;
            all.insert(all.end(), text_settings.begin(), text_settings.end());
            d_.warning(s.name.range, fmt::format("ignoring unknown experiment setting '{}'{}", key,
                                                 did_you_mean(key, all)));
            return;
        }
        if (s.nested || (text && !s.text) || (numeric && !s.value)) {
            d_.error(s.range, fmt::format("experiment setting '{}' takes {}", key,
                                          text ? "a string, e.g. \"hmm\"" : "a number"));
            return;
        }
        if (out_.experiment.count(key)) {
            d_.error(s.name.range, fmt::format("experiment setting '{}' given twice", key));
            return;
        }
        ExperimentSetting setting;
        setting.range = s.range;
        if (text) {
            setting.is_text = true;
            setting.text = *s.text;
        } else {
            setting.value = resolve(*s.value, parameter_context("an experiment setting"));
            if (!setting.value) {
                return;
            }
        }
        out_.experiment.emplace(key, std::move(setting));
    }

    // ---- Fast scales -------------------------------------------------------------------

    void collect_fast_scales() { out_.fast_scales = fast_scales(out_, out_.default_parameters()); }

    const ast::Model& m_;
    source::Diagnostics& d_;
    CheckedModel out_;
    std::map<std::string, NameInfo> names_;
    std::vector<std::uint32_t> component_index_;
    std::map<std::uint32_t, Range> coordinate_mass_;    // coordinates given m = ...
    std::map<std::uint32_t, Range> equation_of_;        // coordinate -> its equation
    std::map<std::uint32_t, Range> state_equation_of_;  // state -> its equation
    std::map<std::uint32_t, std::uint32_t> kinetic_of_; // coordinate -> first kinetic using it
};

} // namespace

bool is_builtin_name(const std::string& name) {
    return name == "time" || name == "pi" || name == "der" || find_function(name) != nullptr;
}

std::optional<CheckedModel> check_model(const ast::Model& model, source::Diagnostics& diagnostics) {
    Checker checker(model, diagnostics);
    return checker.run();
}

} // namespace mdl::check
