#include "check/checker_impl.hpp"

namespace mdl::check::detail {

ExprPtr Checker::make(Expr::Kind kind, Range range, std::uint32_t index) {
    auto e = std::make_shared<Expr>();
    e->kind = kind;
    e->range = range;
    e->index = index;
    return e;
}

void Checker::not_allowed(Range r, const Context& ctx, const std::string& what) {
    d_.error(r, fmt::format("{} may not depend on {}", ctx.place, what));
}

bool Checker::is_condition(const ast::Expr& e) {
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

ExprPtr Checker::resolve(const ast::Expr& e, const Context& ctx) {
    if (is_condition(e)) {
        d_.error(e.range, fmt::format("{} must be a Real value, not a condition; write "
                                      "'if condition then value else value'",
                                      ctx.place_name()));
        return nullptr;
    }
    return resolve_any(e, ctx);
}

ExprPtr Checker::resolve_condition(const ast::Expr& e, const Context& ctx) {
    if (!is_condition(e)) {
        d_.error(e.range, "expected a condition such as 'x > 0' (a relation, 'and', 'or', "
                          "'not', true or false), not a Real value");
        return nullptr;
    }
    return resolve_any(e, ctx);
}

ExprPtr Checker::select(ExprPtr c, ExprPtr a, ExprPtr b, Range range) {
    auto out = std::make_shared<Expr>();
    out->kind = Expr::Kind::select;
    out->range = range;
    out->args = {std::move(c), std::move(a), std::move(b)};
    return out;
}

ExprPtr Checker::resolve_any(const ast::Expr& e, const Context& ctx) {
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

ExprPtr Checker::resolve_call(const ast::Call& c, Range range, const Context& ctx) {
    const std::string& name = c.callee.text;
    if (name == "der") {
        return resolve_der(c, range, ctx);
    }
    if (name == "pre") {
        return resolve_pre(c, range, ctx);
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
            d_.error(c.callee.range,
                     fmt::format("'{}' is a {}, not a function", name, describe(it->second.kind)));
        } else {
            d_.error(c.callee.range,
                     fmt::format("unknown function '{}'{}", name, did_you_mean(name, candidates)));
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

ExprPtr Checker::resolve_der(const ast::Call& c, Range range, const Context& ctx) {
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

ExprPtr Checker::resolve_name(const ast::NameRef& r, Range range, const Context& ctx) {
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
            d_.error(head.range,
                     fmt::format("'{}' is a function; call it as {}(...)", head.text, head.text));
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

ExprPtr Checker::resolve_member(const ast::NameRef& r, Range range, const NameInfo& info,
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
        if (b.rotation >= 0) {
            members.insert(members.end(), {"phi", "vphi", "J"});
            const auto phi = static_cast<std::uint32_t>(b.rotation);
            if (member.text == "phi" && !ctx.positions) {
                not_allowed(range, ctx, fmt::format("the angle '{}.phi'", owner));
                return nullptr;
            }
            if (member.text == "vphi" && !ctx.velocities) {
                not_allowed(range, ctx, fmt::format("the angular velocity '{}.vphi'", owner));
                return nullptr;
            }
            if (member.text == "phi") {
                return make(Expr::Kind::position, range, phi);
            }
            if (member.text == "vphi") {
                return make(Expr::Kind::velocity, range, phi);
            }
            if (member.text == "J") {
                if (!ctx.body_masses) {
                    not_allowed(range, ctx, fmt::format("the inertia of body '{}'", owner));
                    return nullptr;
                }
                return b.inertia; // null after the body's own error
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
    if (info.kind == NameKind::point) {
        const Point& p = out_.points[info.index];
        for (std::size_t axis = 0; axis < 2; ++axis) {
            const bool position = member.text == axis_names[axis];
            const bool velocity = member.text == velocity_names[axis];
            if (!position && !velocity) {
                continue;
            }
            if (position ? !ctx.positions : !ctx.velocities) {
                not_allowed(range, ctx,
                            fmt::format("the {} '{}.{}'", position ? "position" : "velocity", owner,
                                        member.text));
                return nullptr;
            }
            return position ? p.position[axis] : p.velocity[axis]; // null after its error
        }
        d_.error(member.range, fmt::format("point '{}' has no member '{}'; points have x, y, "
                                           "vx and vy",
                                           owner, member.text));
        return nullptr;
    }
    d_.error(member.range,
             fmt::format("'{}' is a {} and has no members", owner, describe(info.kind)));
    return nullptr;
}

Context Checker::parameter_context(const char* place) {
    return Context(place);
}

} // namespace mdl::check::detail
