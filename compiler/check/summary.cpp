#include "check/summary.hpp"

#include "check/evaluate.hpp"

#include <cmath>
#include <fmt/format.h>

namespace mdl::check {

namespace {

int precedence(const Expr& e) {
    switch (e.kind) {
    case Expr::Kind::add:
    case Expr::Kind::sub:
        return 1;
    case Expr::Kind::mul:
    case Expr::Kind::div:
        return 2;
    case Expr::Kind::negate:
        return 3;
    case Expr::Kind::pow:
        return 4;
    case Expr::Kind::select:
        return -1; // if-expressions are parenthesized wherever they stand inside another
    case Expr::Kind::compare:
        return 0;
    default:
        return 5;
    }
}

std::string source_of(const Expr& e, const CheckedModel& m, int context) {
    using K = Expr::Kind;
    std::string s;
    switch (e.kind) {
    case K::number:
        s = fmt::format("{}", e.value);
        break;
    case K::parameter:
        s = m.parameters[e.index].name;
        break;
    case K::position:
        s = m.positions[e.index].name;
        break;
    case K::velocity:
        s = m.positions[e.index].velocity_name;
        break;
    case K::state:
        s = m.states[e.index].name;
        break;
    case K::time:
        s = "time";
        break;
    case K::phase:
        s = m.vibrations[e.index].phase_name;
        break;
    case K::vibration:
        s = m.vibrations[e.index].name;
        break;
    case K::negate:
        s = "-";
        s += source_of(*e.args[0], m, 3); // not "-" + ...: GCC 12 -O3 warns falsely (PR 105329)
        break;
    case K::call: {
        s = std::string(to_string(e.function)) + "(";
        for (std::size_t i = 0; i < e.args.size(); ++i) {
            s += (i ? ", " : "") + source_of(*e.args[i], m, 0);
        }
        s += ")";
        break;
    }
    case K::compare:
        s = source_of(*e.args[0], m, 1) + " " + to_string(e.comparison) + " " +
            source_of(*e.args[1], m, 1);
        break;
    case K::select:
        s = "if " + source_of(*e.args[0], m, 0) + " then " + source_of(*e.args[1], m, 0) +
            " else " + source_of(*e.args[2], m, 0);
        break;
    default: {
        static constexpr const char* ops[] = {" + ", " - ", "*", "/", "^"};
        int p = precedence(e);
        int index = static_cast<int>(e.kind) - static_cast<int>(K::add);
        // Left-associative operators need parentheses on the right at equal precedence, '^'
        // on the left.
        bool right_assoc = e.kind == K::pow;
        s = source_of(*e.args[0], m, right_assoc ? p + 1 : p) + ops[index] +
            source_of(*e.args[1], m, right_assoc ? p : p + 1);
        break;
    }
    }
    return precedence(e) < context ? "(" + s + ")" : s;
}

} // namespace

std::string to_source(const Expr& e, const CheckedModel& model) {
    return source_of(e, model, 0);
}

std::string summary(const CheckedModel& m) {
    auto params = m.default_parameters();
    Values values(params);
    auto num = [&](const ExprPtr& e) {
        return e ? evaluate(*e, values) : 0.0;
    };
    std::string out =
        fmt::format("model {}{}\n", m.name, m.description.empty() ? "" : ": " + m.description);

    // " unit m/s" when the model was checked for units and this one is known (check/units.hpp)
    auto unit = [](const std::vector<std::string>& units, std::size_t i) {
        return i < units.size() && !units[i].empty() ? " unit " + units[i] : std::string();
    };
    out += fmt::format("  positions ({}):\n", m.positions.size());
    for (std::size_t i = 0; i < m.positions.size(); ++i) {
        const auto& p = m.positions[i];
        const std::string mass = p.kinetic ? "kinetic" : fmt::format("{:g}", num(p.mass));
        std::string units = unit(m.units.positions, i);
        if (!units.empty() && !m.units.velocities[i].empty()) {
            units += ", velocity " + m.units.velocities[i];
        }
        out += fmt::format("    {:<12} mass {:<10} start {:<10g} velocity {:g}{}\n", p.name, mass,
                           num(p.start), num(p.velocity_start), units);
    }
    if (!m.states.empty()) {
        out += fmt::format("  first-order states ({}):\n", m.states.size());
        for (std::size_t i = 0; i < m.states.size(); ++i) {
            out += fmt::format("    {:<12} start {:g}{}\n", m.states[i].name,
                               num(m.states[i].start), unit(m.units.states, i));
        }
    }
    if (!m.bodies.empty()) {
        out += fmt::format("  bodies ({}):", m.bodies.size());
        for (const auto& b : m.bodies) {
            out += " " + b.name;
        }
        out += "\n";
    }
    auto list = [&](const char* label, const auto& items) {
        if (items.empty()) {
            return;
        }
        out += fmt::format("  {} ({}):", label, items.size());
        for (const auto& x : items) {
            out += " " + x.name;
        }
        out += "\n";
    };
    list("anchors", m.anchors);
    list("points", m.points);
    list("springs", m.springs);
    list("dampers", m.dampers);
    list("potentials", m.potentials);
    list("kinetic energies", m.kinetic);
    list("forces", m.forces);
    list("gravity", m.gravity);
    out += fmt::format("  constraints ({}):\n", m.constraints.size());
    for (const auto& c : m.constraints) {
        out += fmt::format("    {}: {} = 0\n", c.name, to_source(*c.residual, m));
    }
    out += fmt::format("  parameters ({}):\n", m.parameters.size());
    for (std::size_t i = 0; i < m.parameters.size(); ++i) {
        const auto& p = m.parameters[i];
        std::string line =
            m.units.parameters.empty()
                ? fmt::format("    {:<12} = {:<12g} {}", p.name, p.default_value, p.description)
                : fmt::format("    {:<12} = {:<12g} {:<8} {}", p.name, p.default_value,
                              m.units.parameters[i].empty() ? "?" : m.units.parameters[i],
                              p.description);
        out += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
    }
    if (!m.structural.empty()) {
        out += fmt::format("  Integer parameters ({}), structural: a new value recompiles "
                           "(-p name=value):\n",
                           m.structural.size());
        for (const auto& p : m.structural) {
            out += fmt::format("    {:<12} = {}{}\n", p.name, p.value,
                               p.overridden ? " (set by -p)" : "");
        }
    }
    if (m.fast_scales.empty()) {
        out += "  fast scale: none\n";
    }
    for (const auto& f : m.fast_scales) {
        out += fmt::format("  fast scale: {}, omega = {:g} rad/s, period {:g}\n", f.source, f.omega,
                           2 * M_PI / f.omega);
    }
    if (!m.experiment.empty()) {
        out += "  experiment:";
        for (const auto& [key, s] : m.experiment) {
            out += s.is_text ? fmt::format(" {} = \"{}\"", key, s.text)
                             : fmt::format(" {} = {:g}", key, num(s.value));
        }
        out += "\n";
    }
    return out;
}

} // namespace mdl::check
