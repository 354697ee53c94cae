#include "check/checker_impl.hpp"

namespace mdl::check::detail {

Checker::Modifiers Checker::modifiers_of(const ast::Component& c,
                                         const std::vector<std::string>& allowed,
                                         const std::vector<std::string>& nested,
                                         bool positional_ok) {
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
        if (n == "unit" && !m.nested &&
            (c.kind == ComponentKind::coordinate || c.kind == ComponentKind::real)) {
            continue; // read and checked by check_units (check/units.hpp)
        }
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

bool Checker::fixed_value(const ast::Modifier& m) {
    const ast::Boolean* b = m.value ? m.value->as<ast::Boolean>() : nullptr;
    if (!b) {
        d_.error(m.range, "'fixed' takes true or false");
        return false;
    }
    return b->value;
}

ExprPtr Checker::nested_start(const ast::Modifier& m, const std::string& owner, bool* fixed) {
    ExprPtr start;
    for (const auto& child : m.children) {
        if (fixed && child.name.text == "fixed" && !child.nested && !child.text) {
            *fixed = fixed_value(child);
            continue;
        }
        if (child.name.text != "start" || child.nested || child.text) {
            d_.error(child.name.range,
                     fmt::format("unknown modifier '{}' in '{}.{}'; expected 'start = ...'{}",
                                 child.name.text, owner, m.name.text,
                                 fixed ? " or 'fixed = true'" : ""));
            continue;
        }
        start = resolve(*child.value, parameter_context("a start value"));
    }
    return start;
}

void Checker::reject_value_and_fast(const ast::Component& c) {
    const char* kind = ast::to_string(c.kind);
    if (c.value && c.kind != ComponentKind::potential && c.kind != ComponentKind::force &&
        c.kind != ComponentKind::vibration && c.kind != ComponentKind::kinetic) {
        d_.error(c.value->range,
                 fmt::format("{} '{}' takes no '= value'{}", kind, c.name.text,
                             c.kind == ComponentKind::coordinate || c.kind == ComponentKind::real
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

void Checker::check_component(const ast::Component& c, std::uint32_t index) {
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
    case ComponentKind::rigid:
        return check_rigid(c, index);
    case ComponentKind::point:
        return; // resolve_points
    case ComponentKind::revolute:
    case ComponentKind::prismatic:
    case ComponentKind::weld:
        return; // after every body's start values (Checker::run)
    }
}

void Checker::check_coordinate(const ast::Component& c, std::uint32_t index) {
    auto mods = modifiers_of(c, {"start", "vstart", "m", "fixed"}, {}, false);
    Position& p = out_.positions[index];
    if (auto f = mods.get("fixed")) {
        p.fixed = fixed_value(*f);
    }
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

void Checker::check_state(const ast::Component& c, std::uint32_t index) {
    auto mods = modifiers_of(c, {"start"}, {}, false);
    if (auto s = mods.get("start")) {
        out_.states[index].start = resolve(*s->value, parameter_context("a start value"));
    }
}

void Checker::resolve_body_masses() {
    for (std::size_t ci = 0; ci < m_.components.size(); ++ci) {
        const ast::Component& c = m_.components[ci];
        if (c.kind != ComponentKind::body && c.kind != ComponentKind::rigid) {
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

void Checker::check_body(const ast::Component& c, std::uint32_t index) {
    auto mods = modifiers_of(c, {"m"}, {"x", "y", "z", "vx", "vy", "vz"}, false);
    Body& b = out_.bodies[index];
    if (!mods.get("m")) {
        d_.error(c.name.range, fmt::format("body '{}' needs a mass: add 'm = ...'", c.name.text));
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
            if (auto s = nested_start(*m, c.name.text, &pos.fixed)) {
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

void Checker::check_anchor(const ast::Component& c, std::uint32_t index) {
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

std::string Checker::axes_of(const Body& b) const {
    std::string s;
    for (int axis = 0; axis < 3; ++axis) {
        if (b.position[static_cast<std::size_t>(axis)] >= 0) {
            s += (s.empty() ? "" : ", ") + std::string(axis_names[axis]);
        }
    }
    return s;
}

bool Checker::endpoints(const ast::Component& c, Endpoint& a, Endpoint& b) {
    std::vector<const ast::Argument*> positional;
    for (const auto& arg : c.arguments) {
        if (!arg.modifier) {
            positional.push_back(&arg);
        }
    }
    const char* kind = ast::to_string(c.kind);
    if (positional.size() != 2) {
        d_.error(positional.empty() ? c.name.range : positional[0]->range,
                 fmt::format("{} '{}' connects two bodies or anchors, got {}", kind, c.name.text,
                             positional.size()));
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
            auto candidates = names_of([](NameKind k) {
                return k == NameKind::body || k == NameKind::anchor || k == NameKind::point;
            });
            d_.error(e.range, fmt::format("use of undeclared name '{}'{}", r->parts[0].text,
                                          did_you_mean(r->parts[0].text, candidates)));
            return false;
        }
        if (it->second.kind == NameKind::point) {
            const Point& p = out_.points[it->second.index];
            if (!p.position[0]) {
                return false; // the point's own error was reported
            }
            ends[i] = {false, p.body, static_cast<int>(it->second.index)};
            continue;
        }
        if (it->second.kind != NameKind::body && it->second.kind != NameKind::anchor) {
            d_.error(e.range, fmt::format("'{}' is a {}; a {} connects bodies, points or anchors",
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
                                     kind, c.name.text, b0.name, axes_of(b0), b1.name, axes_of(b1),
                                     kind));
                return false;
            }
        }
    }
    a = ends[0];
    b = ends[1];
    return true;
}

void Checker::check_spring(const ast::Component& c, std::uint32_t index) {
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

void Checker::check_damper(const ast::Component& c, std::uint32_t index) {
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

bool Checker::require_value(const ast::Component& c, const char* example) {
    if (!c.value) {
        d_.error(c.name.range, fmt::format("{} '{}' needs a value: {}", ast::to_string(c.kind),
                                           c.name.text, example));
        return false;
    }
    return true;
}

void Checker::check_potential(const ast::Component& c, std::uint32_t index) {
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

void Checker::check_kinetic(const ast::Component& c, std::uint32_t index) {
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
                             p.velocity_name, out_.bodies[static_cast<std::size_t>(p.body)].name));
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

int Checker::velocity_degree(const Expr& e) {
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

void Checker::check_mass_matrix() {
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
            const double mij = kinetic_energy(coordinates[i], coordinates[j]) - unit[i] - unit[j];
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
                     fmt::format(
                         "the mass matrix M = d2T/dv2 of the kinetic energy is not "
                         "positive definite at the start state: {}",
                         !(diagonal > 0.0)
                             ? fmt::format("its diagonal entry for {} is {:g}", velocity, diagonal)
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

Context Checker::force_context(const char* place) {
    Context ctx(place);
    ctx.positions = ctx.velocities = ctx.states = ctx.time = ctx.vibrations = true;
    return ctx;
}

void Checker::check_force(const ast::Component& c, std::uint32_t index) {
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
    if (!require_value(c, fmt::format("'force {}(target) = expression;'", c.name.text).c_str())) {
        return;
    }
    const ast::Expr& target = *positional[0]->positional;
    const ast::NameRef* r = target.as<ast::NameRef>();
    auto it = r && r->parts.size() == 1 ? names_.find(r->parts[0].text) : names_.end();
    if (it == names_.end() ||
        (it->second.kind != NameKind::coordinate && it->second.kind != NameKind::body &&
         it->second.kind != NameKind::point)) {
        d_.error(target.range,
                 "a force acts on a coordinate, a body or a point; expected its name");
        return;
    }
    Context ctx = force_context("a force");
    const auto* vec = c.value->as<ast::VectorLiteral>();
    if (it->second.kind == NameKind::point) {
        const Point& p = out_.points[it->second.index];
        if (!p.position[0]) {
            return; // the point's own error was reported
        }
        if (!vec || vec->elements.size() != 2) {
            d_.error(c.value->range, fmt::format("force on point '{}' needs 2 components "
                                                 "{{fx, fy}}, got {}",
                                                 p.name, vec ? vec->elements.size() : 1));
            return;
        }
        const Body& b = out_.bodies[p.body];
        f.positions = {static_cast<std::uint32_t>(b.position[0]),
                       static_cast<std::uint32_t>(b.position[1]),
                       static_cast<std::uint32_t>(b.rotation)};
        f.at = {p.position[0], p.position[1]};
        for (const auto& element : vec->elements) {
            if (auto e = resolve(*element, ctx)) {
                f.components.push_back(e);
            }
        }
        return;
    }
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
    if (b.rotation >= 0) {
        axes.push_back(static_cast<std::uint32_t>(b.rotation)); // the torque
    }
    std::size_t given = vec ? vec->elements.size() : 1;
    if (given != axes.size() || (!vec && axes.size() != 1)) {
        d_.error(c.value->range,
                 fmt::format("force on body '{}' ({}) needs {} component{}, got {}", b.name,
                             b.rotation >= 0 ? "x, y and the torque on phi" : axes_of(b),
                             axes.size(), axes.size() == 1 ? "" : "s", given));
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

void Checker::check_gravity(const ast::Component& c, std::uint32_t index) {
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

int Checker::time_degree(const Expr& e) {
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

void Checker::check_vibration(const ast::Component& c, std::uint32_t index) {
    Vibration& v = out_.vibrations[index];
    v.range = c.name.range;
    const ast::Modifier* phase = nullptr;
    for (const auto& a : c.arguments) {
        if (a.modifier && a.modifier->name.text == "unit" && !a.modifier->nested) {
            continue; // read and checked by check_units (check/units.hpp)
        }
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
                             c.name.text, v.phase_name, p.value, v.phase_name, p.phase, p.shifted,
                             v.phase_name, v.phase_name));
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

bool Checker::phase_defaults_known() const {
    return out_.parameter_order.size() == out_.parameters.size();
}

} // namespace mdl::check::detail
