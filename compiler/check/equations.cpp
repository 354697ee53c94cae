#include "check/checker_impl.hpp"

namespace mdl::check::detail {

void Checker::check_constraint(const ast::Constraint& c) {
    Context ctx("a constraint");
    ctx.positions = true;
    ctx.time = true; // rheonomic g(t, q): time, vibrations, moving anchors
    ctx.vibrations = true;
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

const ast::NameRef* Checker::acceleration_of(const ast::Expr& e, Range& range) {
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

void Checker::check_equation(const ast::Equation& eq) {
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

void Checker::second_order_equation(const ast::Equation& eq, const ast::NameRef& target,
                                    Range range, const ast::Expr* factor) {
    auto name = resolve_name(target, range, force_context("an equation"));
    if (!name) {
        return;
    }
    if (name->kind == Expr::Kind::state) {
        d_.error(range, fmt::format("'{}' is a first-order state; write der({}) = ...",
                                    out_.states[name->index].name, out_.states[name->index].name));
        return;
    }
    if (name->kind != Expr::Kind::position) {
        d_.error(range,
                 fmt::format("der(der(...)) takes a coordinate; '{}' is a {}", target.parts[0].text,
                             describe(names_.at(target.parts[0].text).kind)));
        return;
    }
    Position& p = out_.positions[name->index];
    if (p.body >= 0) {
        d_.error(range, fmt::format("'{}' is a component of body '{}': its motion follows "
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

void Checker::first_order_equation(const ast::Equation& eq, const ast::NameRef& target,
                                   Range range) {
    auto name = resolve_name(target, range, force_context("an equation"));
    if (!name) {
        return;
    }
    if (name->kind == Expr::Kind::position) {
        d_.error(range,
                 fmt::format("'{}' is a second-order coordinate; write der(der({})) "
                             "= ...",
                             out_.positions[name->index].name, out_.positions[name->index].name));
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

void Checker::check_square() {
    for (std::uint32_t i = 0; i < out_.positions.size(); ++i) {
        const Position& p = out_.positions[i];
        auto bound = names_.find(p.name);
        if (p.body >= 0 || bound == names_.end() || bound->second.kind != NameKind::coordinate) {
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

} // namespace mdl::check::detail
