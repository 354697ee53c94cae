#include "check/checker_impl.hpp"

namespace mdl::check::detail {

bool Checker::declare(const ast::Identifier& id, NameKind kind, std::uint32_t index) {
    if (is_builtin_name(id.text)) {
        d_.error(id.range, fmt::format("'{}' is a built-in name and cannot be declared", id.text));
        return false;
    }
    auto [it, inserted] = names_.emplace(id.text, NameInfo{kind, index, id.range});
    if (!inserted) {
        d_.error(id.range, fmt::format("redefinition of '{}'", id.text));
        d_.note(it->second.range, fmt::format("previous definition of '{}' ({}) is here", id.text,
                                              describe(it->second.kind)));
        return false;
    }
    return true;
}

std::string Checker::member_modifier_name(const ast::Argument& a) {
    return a.modifier ? a.modifier->name.text : "";
}

void Checker::declare_names() {
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
            Body b{c.name.text,  nullptr, {-1, -1, -1}, c.description.value_or(""),
                   c.name.range, -1,      nullptr};
            // The body's components are the axes its declaration names (x, y, z).
            for (int axis = 0; axis < 3; ++axis) {
                for (const auto& a : c.arguments) {
                    if (member_modifier_name(a) == axis_names[axis]) {
                        b.position[static_cast<std::size_t>(axis)] =
                            static_cast<int>(out_.positions.size());
                        out_.positions.push_back(Position{c.name.text + "." + axis_names[axis],
                                                          c.name.text + "." + velocity_names[axis],
                                                          nullptr, number(0), number(0),
                                                          static_cast<int>(index), axis, a.range});
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
            out_.anchors.push_back({c.name.text, {number(0), number(0), number(0)}, c.name.range});
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
        case ComponentKind::rigid: {
            // Always planar: the centre of mass x, y and the angle phi.
            index = idx(out_.bodies);
            Body b{c.name.text,  nullptr, {-1, -1, -1}, c.description.value_or(""),
                   c.name.range, -1,      nullptr};
            for (int axis = 0; axis < 3; ++axis) {
                const bool angle = axis == 2;
                const int p = static_cast<int>(out_.positions.size());
                (angle ? b.rotation : b.position[static_cast<std::size_t>(axis)]) = p;
                out_.positions.push_back(Position{
                    c.name.text + "." + (angle ? "phi" : axis_names[axis]),
                    c.name.text + "." + (angle ? "vphi" : velocity_names[axis]), nullptr, number(0),
                    number(0), static_cast<int>(index), angle ? 3 : axis, c.name.range});
            }
            out_.bodies.push_back(std::move(b));
            kind = NameKind::body;
            break;
        }
        case ComponentKind::point:
            index = idx(out_.points);
            out_.points.push_back({});
            out_.points.back().name = c.name.text;
            kind = NameKind::point;
            break;
        case ComponentKind::revolute:
        case ComponentKind::prismatic:
        case ComponentKind::weld:
            kind = NameKind::joint;
            break;
        }
        component_index_[ci] = index;
        declare(c.name, kind, index);
    }
    for (std::uint32_t i = 0; i < m_.constraints.size(); ++i) {
        declare(m_.constraints[i].name, NameKind::constraint, i);
    }
}

std::vector<std::string> Checker::names_of(const std::function<bool(NameKind)>& keep) const {
    std::vector<std::string> out;
    for (const auto& [name, info] : names_) {
        if (keep(info.kind)) {
            out.push_back(name);
        }
    }
    return out;
}

std::string Checker::did_you_mean(const std::string& name, std::vector<std::string> candidates) {
    std::string best = source::closest_name(name, candidates);
    return best.empty() ? "" : fmt::format("; did you mean '{}'?", best);
}

} // namespace mdl::check::detail
