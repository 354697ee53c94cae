// Planar rigid bodies, the points fixed on them, and the joints between points. A rigid body is
// three positions with constant inertia (x, y with its mass m, phi with its moment of inertia
// J about the centre of mass); a point is an expression of those positions; a joint is a set of
// holonomic constraints on the points' positions and the bodies' angles. Everything after the
// checker (gradients, Jacobians, curvature terms) is derived from these expressions like any
// other.
#include "check/checker_impl.hpp"

namespace mdl::check::detail {

namespace {

ExprPtr call(Function f, ExprPtr arg, Range range) {
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::call;
    e->function = f;
    e->args = {std::move(arg)};
    e->range = range;
    return e;
}

ExprPtr negate(ExprPtr a, Range r) {
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::negate;
    e->args = {std::move(a)};
    e->range = r;
    return e;
}

// The keyword that declares a joint, for messages that show how to write one.
const char* joint_keyword(ast::ComponentKind k) {
    return k == ast::ComponentKind::prismatic ? "prismatic"
           : k == ast::ComponentKind::weld    ? "weld"
                                              : "revolute";
}

ExprPtr add(ExprPtr a, ExprPtr b, Range r) {
    return binary(Expr::Kind::add, std::move(a), std::move(b), r);
}
ExprPtr sub(ExprPtr a, ExprPtr b, Range r) {
    return binary(Expr::Kind::sub, std::move(a), std::move(b), r);
}
ExprPtr mul(ExprPtr a, ExprPtr b, Range r) {
    return binary(Expr::Kind::mul, std::move(a), std::move(b), r);
}

bool is_zero(const ExprPtr& e) {
    return e->kind == Expr::Kind::number && e->value == 0;
}

// R(phi) (px, py): the body-frame vector (px, py) in the plane (zero offsets left out, so
// that `mdl check` prints the constraints as one would write them).
std::array<ExprPtr, 2> rotate(const ExprPtr& phi, const ExprPtr& px, const ExprPtr& py, Range r) {
    ExprPtr c = call(Function::cos, phi, r), s = call(Function::sin, phi, r);
    if (is_zero(py)) {
        return {mul(px, c, r), mul(px, s, r)};
    }
    if (is_zero(px)) {
        return {negate(mul(py, s, r), r), mul(py, c, r)};
    }
    return {sub(mul(px, c, r), mul(py, s, r), r), add(mul(px, s, r), mul(py, c, r), r)};
}

} // namespace

void Checker::check_rigid(const ast::Component& c, std::uint32_t index) {
    auto mods = modifiers_of(c, {"m", "J"}, {"x", "y", "phi", "vx", "vy", "vphi"}, false);
    Body& b = out_.bodies[index];
    if (!mods.get("m")) {
        d_.error(c.name.range,
                 fmt::format("rigid body '{}' needs a mass: add 'm = ...'", c.name.text));
    }
    if (auto j = mods.get("J")) {
        b.inertia = resolve(*j->value, parameter_context("a moment of inertia"));
    } else {
        d_.error(c.name.range, fmt::format("rigid body '{}' needs its moment of inertia about "
                                           "the centre of mass: add 'J = ...'",
                                           c.name.text));
    }
    const int coordinates[3] = {b.position[0], b.position[1], b.rotation};
    const char* names[3] = {"x", "y", "phi"};
    const char* velocities[3] = {"vx", "vy", "vphi"};
    for (std::size_t i = 0; i < 3; ++i) {
        Position& p = out_.positions[static_cast<std::size_t>(coordinates[i])];
        p.mass = i == 2 ? b.inertia : b.mass;
        if (auto m = mods.get(names[i])) {
            if (auto s = nested_start(*m, c.name.text, &p.fixed)) {
                p.start = s;
            }
        }
        if (auto v = mods.get(velocities[i])) {
            if (auto s = nested_start(*v, c.name.text)) {
                p.velocity_start = s;
            }
        }
    }
}

void Checker::resolve_points() {
    for (std::size_t ci = 0; ci < m_.components.size(); ++ci) {
        if (m_.components[ci].kind == ComponentKind::point) {
            check_point(m_.components[ci], component_index_[ci]);
        }
    }
}

void Checker::check_point(const ast::Component& c, std::uint32_t index) {
    auto mods = modifiers_of(c, {"x", "y"}, {}, true);
    Point& p = out_.points[index];
    p.range = c.name.range;
    std::vector<const ast::Argument*> positional;
    for (const auto& arg : c.arguments) {
        if (!arg.modifier) {
            positional.push_back(&arg);
        }
    }
    if (positional.size() != 1) {
        d_.error(positional.size() > 1 ? positional[1]->range : c.name.range,
                 fmt::format("point '{}' is fixed on one rigid body: write 'point {}(body, x = "
                             "..., y = ...)', got {} bodies",
                             c.name.text, c.name.text, positional.size()));
        return;
    }
    const ast::Expr& e = *positional[0]->positional;
    const ast::NameRef* r = e.as<ast::NameRef>();
    auto it = r && r->parts.size() == 1 ? names_.find(r->parts[0].text) : names_.end();
    if (it == names_.end() || it->second.kind != NameKind::body ||
        out_.bodies[it->second.index].rotation < 0) {
        std::vector<std::string> rigid;
        for (const auto& b : out_.bodies) {
            if (b.rotation >= 0) {
                rigid.push_back(b.name);
            }
        }
        const std::string written(r && r->parts.size() == 1 ? r->parts[0].text : "");
        d_.error(e.range,
                 fmt::format("a point is fixed on a rigid body; '{}' is {}{}",
                             written.empty() ? "this" : written,
                             it == names_.end()                  ? "not declared"
                             : it->second.kind == NameKind::body ? "a point mass (body)"
                                                                 : describe(it->second.kind),
                             written.empty() ? "" : did_you_mean(written, rigid)));
        return;
    }
    p.body = it->second.index;
    const Body& b = out_.bodies[p.body];
    for (std::size_t axis = 0; axis < 2; ++axis) {
        p.offset[axis] = number(0, c.name.range);
        if (auto m = mods.get(axis_names[axis])) {
            if (auto v = resolve(*m->value, parameter_context("a point's offset"))) {
                p.offset[axis] = v;
            }
        }
    }
    const Range at = c.name.range;
    const ExprPtr phi = make(Expr::Kind::position, at, static_cast<std::uint32_t>(b.rotation));
    const ExprPtr omega = make(Expr::Kind::velocity, at, static_cast<std::uint32_t>(b.rotation));
    const auto offset = rotate(phi, p.offset[0], p.offset[1], at);
    for (std::size_t axis = 0; axis < 2; ++axis) {
        const auto q = static_cast<std::uint32_t>(b.position[axis]);
        p.position[axis] = add(make(Expr::Kind::position, at, q), offset[axis], at);
    }
    // d/dt R(phi) r = omega (-(R r)_y, (R r)_x)
    p.velocity[0] = sub(make(Expr::Kind::velocity, at, static_cast<std::uint32_t>(b.position[0])),
                        mul(omega, offset[1], at), at);
    p.velocity[1] = add(make(Expr::Kind::velocity, at, static_cast<std::uint32_t>(b.position[1])),
                        mul(omega, offset[0], at), at);
    p.position[2] = number(0, at);
    p.velocity[2] = number(0, at);
}

std::optional<Checker::JointEnd> Checker::joint_end(const ast::Component& c, const ast::Expr& e) {
    const char* kind = ast::to_string(c.kind);
    const ast::NameRef* r = e.as<ast::NameRef>();
    auto it = r && r->parts.size() == 1 ? names_.find(r->parts[0].text) : names_.end();
    if (!r || r->parts.size() != 1) {
        d_.error(e.range, fmt::format("a {} joins two points, rigid bodies, bodies or anchors; "
                                      "expected a name",
                                      kind));
        return std::nullopt;
    }
    if (it == names_.end()) {
        auto candidates = names_of([](NameKind k) {
            return k == NameKind::body || k == NameKind::anchor || k == NameKind::point;
        });
        d_.error(e.range, fmt::format("use of undeclared name '{}'{}", r->parts[0].text,
                                      did_you_mean(r->parts[0].text, candidates)));
        return std::nullopt;
    }
    JointEnd end;
    end.name = r->parts[0].text;
    const Range at = e.range;
    auto angle_of = [&](const Body& b) {
        if (b.rotation >= 0) {
            end.angle = make(Expr::Kind::position, at, static_cast<std::uint32_t>(b.rotation));
            end.angle_start = out_.positions[static_cast<std::size_t>(b.rotation)].start;
        }
    };
    switch (it->second.kind) {
    case NameKind::point: {
        const Point& p = out_.points[it->second.index];
        if (!p.position[0]) {
            return std::nullopt; // the point's own error was reported
        }
        end.position = {p.position[0], p.position[1]};
        end.body = static_cast<int>(p.body);
        angle_of(out_.bodies[p.body]);
        return end;
    }
    case NameKind::body: {
        const Body& b = out_.bodies[it->second.index];
        if (b.position[0] < 0 || b.position[1] < 0 || b.position[2] >= 0) {
            d_.error(e.range, fmt::format("a {} is planar; body '{}' has the components {} "
                                          "instead of x and y",
                                          kind, b.name, axes_of(b)));
            return std::nullopt;
        }
        for (std::size_t axis = 0; axis < 2; ++axis) {
            end.position[axis] =
                make(Expr::Kind::position, at, static_cast<std::uint32_t>(b.position[axis]));
        }
        end.body = static_cast<int>(it->second.index);
        angle_of(b);
        end.oriented = b.rotation >= 0; // a point mass has no orientation
        return end;
    }
    case NameKind::anchor: {
        const Anchor& a = out_.anchors[it->second.index];
        for (std::size_t axis = 0; axis < 2; ++axis) {
            end.position[axis] = a.coordinate[axis]; // a moving anchor makes g(t, q)
        }
        return end;
    }
    default:
        d_.error(e.range,
                 fmt::format("'{}' is a {}; a {} joins two points, rigid bodies, bodies or "
                             "anchors",
                             end.name, describe(it->second.kind), kind));
        return std::nullopt;
    }
}

void Checker::check_joint(const ast::Component& c) {
    const bool prismatic = c.kind == ComponentKind::prismatic;
    const bool weld = c.kind == ComponentKind::weld;
    auto mods = modifiers_of(c,
                             prismatic ? std::vector<std::string>{"x", "y", "angle", "offset"}
                                       : std::vector<std::string>{"angle"},
                             {}, true);
    // A prescribed angle or offset may move with time (a driven joint, rheonomic).
    Context drive("a joint's angle or offset");
    drive.time = true;
    drive.vibrations = true;
    const char* kind = ast::to_string(c.kind);
    std::vector<const ast::Argument*> positional;
    for (const auto& arg : c.arguments) {
        if (!arg.modifier) {
            positional.push_back(&arg);
        }
    }
    if (positional.size() != 2) {
        d_.error(positional.size() > 2 ? positional[2]->range : c.name.range,
                 fmt::format("{} '{}' joins two points: write '{} {}(A, B{})', got {}", kind,
                             c.name.text, joint_keyword(c.kind), c.name.text,
                             prismatic ? ", x = ..., y = ..." : "", positional.size()));
        return;
    }
    auto a = joint_end(c, *positional[0]->positional);
    auto b = joint_end(c, *positional[1]->positional);
    if (!a || !b) {
        return;
    }
    if (a->body < 0 && b->body < 0) {
        d_.error(c.name.range, fmt::format("{} '{}' joins two anchors; at least one end must move",
                                           kind, c.name.text));
        return;
    }
    if (a->body >= 0 && a->body == b->body) {
        d_.error(c.name.range,
                 fmt::format("{} '{}' joins two points of the same body '{}'", kind, c.name.text,
                             out_.bodies[static_cast<std::size_t>(a->body)].name));
        return;
    }
    const Range at = c.name.range;
    auto constraint = [&](const char* suffix, ExprPtr residual) {
        out_.constraints.push_back({c.name.text + "." + suffix, std::move(residual), at});
    };
    // The relative angle phi_B - phi_A (an anchor is the ground: angle 0), held at `angle`, by
    // default its start value. A point mass has no orientation to hold.
    auto fix_rotation = [&]() {
        for (const JointEnd* e : {&*a, &*b}) {
            if (!e->oriented) {
                d_.error(c.name.range,
                         fmt::format("{} '{}' fixes the relative rotation of its ends, and '{}' "
                                     "is a point mass without an orientation; join a rigid "
                                     "body, a point of one, or an anchor",
                                     kind, c.name.text, e->name));
                return;
            }
        }
        const ExprPtr relative = !a->angle   ? b->angle
                                 : !b->angle ? negate(a->angle, at)
                                             : sub(b->angle, a->angle, at);
        ExprPtr angle;
        if (auto m = mods.get("angle")) {
            angle = resolve(*m->value, drive);
        } else {
            ExprPtr start_a = a->angle ? a->angle_start : number(0, at);
            ExprPtr start_b = b->angle ? b->angle_start : number(0, at);
            angle = sub(start_b, start_a, at);
        }
        if (angle) {
            constraint("phi", sub(relative, angle, at));
        }
    };
    if (!prismatic) {
        for (std::size_t axis = 0; axis < 2; ++axis) {
            constraint(axis_names[axis], sub(b->position[axis], a->position[axis], at));
        }
        // weld: the rotation is fixed; revolute with `angle = e`: driven to e (its multiplier
        // j.phi is the torque the drive applies to B)
        if (weld || mods.get("angle")) {
            fix_rotation();
        }
        return;
    }
    // Prismatic: B moves along the axis (x, y) fixed in A's frame (the plane's frame when A
    // does not turn) and the relative rotation is fixed: (B - A) . R(phi_A) (-y, x) = 0.
    ExprPtr axis[2] = {number(1, at), number(0, at)};
    for (std::size_t i = 0; i < 2; ++i) {
        if (auto m = mods.get(axis_names[i])) {
            if (auto v = resolve(*m->value, parameter_context("a joint's axis"))) {
                axis[i] = v;
            }
        }
    }
    const ExprPtr minus_y = negate(axis[1], at);
    std::array<ExprPtr, 2> normal = {minus_y, axis[0]};
    if (a->angle) {
        normal = rotate(a->angle, minus_y, axis[0], at);
    }
    ExprPtr across = add(mul(sub(b->position[0], a->position[0], at), normal[0], at),
                         mul(sub(b->position[1], a->position[1], at), normal[1], at), at);
    constraint("normal", across);
    if (a->oriented && b->oriented) {
        fix_rotation(); // a point mass slides without turning: nothing to fix
    }
    // `offset = s`: B held at s along the unit axis (a driven slider; the multiplier
    // j.offset is the force the drive applies to B along the axis):
    // (B - A) . R(phi_A) (x, y) / |(x, y)| - s = 0
    if (auto m = mods.get("offset")) {
        ExprPtr offset = resolve(*m->value, drive);
        if (!offset) {
            return;
        }
        std::array<ExprPtr, 2> direction = {axis[0], axis[1]};
        if (a->angle) {
            direction = rotate(a->angle, axis[0], axis[1], at);
        }
        ExprPtr along = add(mul(sub(b->position[0], a->position[0], at), direction[0], at),
                            mul(sub(b->position[1], a->position[1], at), direction[1], at), at);
        const bool unit =
            (is_zero(axis[1]) && axis[0]->kind == Expr::Kind::number && axis[0]->value == 1) ||
            (is_zero(axis[0]) && axis[1]->kind == Expr::Kind::number && axis[1]->value == 1);
        if (!unit) {
            ExprPtr length = call(
                Function::sqrt, add(mul(axis[0], axis[0], at), mul(axis[1], axis[1], at), at), at);
            along = binary(Expr::Kind::div, along, length, at);
        }
        constraint("offset", sub(along, offset, at));
    }
}

} // namespace mdl::check::detail
