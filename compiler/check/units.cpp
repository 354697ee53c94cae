#include "check/units.hpp"

#include "check/unit_solver.hpp"

#include <fmt/format.h>
#include <map>
#include <unordered_map>

namespace mdl::check {

namespace {

using D = Dimension;
using source::Range;

const D metre = D::of(D::m);
const D second = D::of(D::s);
const D kilogram = D::of(D::kg);
const D radian = D::of(D::rad);

UnitForm known(D d) {
    return UnitForm::of(d);
}

class UnitChecker {
public:
    UnitChecker(const ast::Model& flat, CheckedModel& m, source::Diagnostics& d,
                const UnitOptions& options)
        : flat_(flat), m_(m), d_(d), options_(options), solver_(d) {}

    bool run() {
        const std::size_t errors = d_.error_count();
        const bool any = read_declarations();
        if (d_.error_count() > errors || (!any && !options_.require)) {
            return d_.error_count() == errors;
        }
        check_parameters();
        check_bodies();
        check_elements();
        check_energies_and_forces();
        check_constraints_and_equations();
        check_events();
        if (options_.require) {
            warn_undetermined();
        }
        fill_units();
        return d_.error_count() == errors;
    }

private:
    // ---- Declared units ------------------------------------------------------------------

    // unit = "..." of a declaration; nullopt (after an error when it is not a unit).
    std::optional<D> declared(const ast::Modifier& m, const std::string& owner, bool& any) {
        any = true;
        if (!m.text) {
            d_.error(m.range,
                     fmt::format("the unit of '{}' is a string, e.g. unit = \"m\"", owner));
            return std::nullopt;
        }
        std::string why;
        auto d = parse_unit(*m.text, why);
        if (!d) {
            d_.error(m.range, fmt::format("\"{}\" is not a unit: {}", *m.text, why));
        }
        return d;
    }

    bool read_declarations() {
        bool any = false;
        std::map<std::string, std::pair<std::optional<D>, std::string>> units;
        for (const auto& p : flat_.parameters) {
            for (const auto& m : p.modifiers) {
                if (m.name.text != "unit") {
                    d_.error(m.name.range, fmt::format("unknown modifier '{}' of parameter '{}'; "
                                                       "a parameter takes unit = \"...\"",
                                                       m.name.text, p.name.text));
                    continue;
                }
                units[p.name.text] = {declared(m, p.name.text, any), m.text.value_or("")};
            }
        }
        for (const auto& c : flat_.components) {
            if (c.kind != ast::ComponentKind::coordinate && c.kind != ast::ComponentKind::real &&
                c.kind != ast::ComponentKind::vibration) {
                continue;
            }
            for (const auto& a : c.arguments) {
                if (a.modifier && a.modifier->name.text == "unit" && !a.modifier->nested) {
                    units[c.name.text] = {declared(*a.modifier, c.name.text, any),
                                          a.modifier->text.value_or("")};
                }
            }
        }
        auto variable = [&](const std::string& name, std::string& text) {
            auto it = units.find(name);
            std::optional<D> unit;
            if (it != units.end()) {
                unit = it->second.first;
                text = it->second.second;
            }
            return solver_.add_variable(name, unit);
        };
        parameter_text_.resize(m_.parameters.size());
        for (std::size_t i = 0; i < m_.parameters.size(); ++i) {
            parameter_var_.push_back(variable(m_.parameters[i].name, parameter_text_[i]));
        }
        position_text_.resize(m_.positions.size());
        for (std::size_t i = 0; i < m_.positions.size(); ++i) {
            const Position& p = m_.positions[i];
            position_var_.push_back(p.body >= 0
                                        ? solver_.add_variable(p.name, p.axis == 3 ? radian : metre)
                                        : variable(p.name, position_text_[i]));
            if (p.body >= 0) {
                position_text_[i] = p.axis == 3 ? "rad" : "m";
            }
        }
        state_text_.resize(m_.states.size());
        for (std::size_t i = 0; i < m_.states.size(); ++i) {
            state_var_.push_back(variable(m_.states[i].name, state_text_[i]));
        }
        vibration_text_.resize(m_.vibrations.size());
        for (std::size_t i = 0; i < m_.vibrations.size(); ++i) {
            vibration_var_.push_back(variable(m_.vibrations[i].name, vibration_text_[i]));
        }
        return any;
    }

    // ---- Expressions ---------------------------------------------------------------------

    UnitForm position(std::uint32_t p) const { return UnitForm::variable(position_var_[p]); }

    UnitForm walk(const ExprPtr& e) {
        if (!e) {
            return UnitForm::error();
        }
        if (e.use_count() > 1) { // shared: a body's mass, an anchor's or a point's position
            auto it = memo_.find(e.get());
            if (it != memo_.end()) {
                return it->second;
            }
            return memo_[e.get()] = walk_node(*e);
        }
        return walk_node(*e);
    }

    // The operator written just before `rhs` ('+', '<=', '=', ...) and where it is; the whole
    // expression when the source has none there (sums expanded from a reduction).
    Range operator_before(Range rhs, Range whole, std::string& op) const {
        op.clear();
        if (rhs.file != whole.file || rhs.file >= d_.file_count() || rhs.begin <= whole.begin) {
            return whole;
        }
        const std::string& text = d_.file(rhs.file).text();
        std::uint32_t i =
            std::min<std::uint32_t>(rhs.begin, static_cast<std::uint32_t>(text.size()));
        while (i > whole.begin &&
               (std::isspace(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '(')) {
            --i;
        }
        if (i == whole.begin) {
            return whole;
        }
        const char c = text[i - 1];
        std::uint32_t begin = i - 1;
        if (c == '=' && begin > whole.begin &&
            std::string("<>=").find(text[begin - 1]) != std::string::npos) {
            --begin;
        } else if (c == '>' && begin > whole.begin && text[begin - 1] == '<') {
            --begin;
        } else if (std::string("+-*/^<>=").find(c) == std::string::npos) {
            return whole;
        }
        op = text.substr(begin, i - begin);
        return {begin, i, rhs.file};
    }

    UnitForm pick(const UnitForm& a, const UnitForm& b) const {
        if (a.invalid || b.invalid) {
            return UnitForm::error();
        }
        if (a.literal) {
            return b;
        }
        if (b.literal) {
            return a;
        }
        return solver_.resolved(a).terms.empty() ? a : b;
    }

    UnitForm same(const Expr& e, const char* what) {
        UnitForm l = walk(e.args[0]), r = walk(e.args[1]);
        std::string op;
        Range at = operator_before(e.args[1]->range, e.range, op);
        std::string message =
            op.empty()
                ? fmt::format("the {} have different units: {{0}} and {{1}}", what)
                : fmt::format("the two sides of '{}' have different units: {{0}} and {{1}}", op);
        if (!solver_.equal(l, r, at, message)) {
            return UnitForm::error();
        }
        return pick(l, r);
    }

    bool dimensionless(const UnitForm& f, Range at, const std::string& what) {
        return solver_.equal(known(D::one()), f, at,
                             what + " is in {1}; it must be dimensionless (a ratio or an angle)");
    }

    // The value of an expression of numbers only, or nullopt.
    static std::optional<double> constant(const Expr& e) {
        using K = Expr::Kind;
        if (e.kind == K::number) {
            return e.value;
        }
        std::optional<double> a, b;
        if (!e.args.empty()) {
            a = constant(*e.args[0]);
        }
        if (e.args.size() > 1) {
            b = constant(*e.args[1]);
        }
        switch (e.kind) {
        case K::negate:
            return a ? std::optional<double>(-*a) : std::nullopt;
        case K::add:
            return a && b ? std::optional<double>(*a + *b) : std::nullopt;
        case K::sub:
            return a && b ? std::optional<double>(*a - *b) : std::nullopt;
        case K::mul:
            return a && b ? std::optional<double>(*a * *b) : std::nullopt;
        case K::div:
            return a && b ? std::optional<double>(*a / *b) : std::nullopt;
        default:
            return std::nullopt;
        }
    }

    UnitForm power_of(const ExprPtr& base, const ExprPtr& exponent) {
        UnitForm b = walk(base), x = walk(exponent);
        if (!dimensionless(x, exponent->range, "the exponent")) {
            return UnitForm::error();
        }
        if (b.free()) {
            return b;
        }
        auto c = constant(*exponent);
        if (auto r = c ? to_rational(*c) : std::nullopt) {
            return power(b, *r);
        }
        const bool ok = solver_.equal(
            known(D::one()), b, base->range,
            c ? fmt::format("the base of a power with the exponent {} is in {{1}}; it "
                            "must be dimensionless (or the exponent a whole number or "
                            "a simple fraction)",
                            *c)
              : std::string("the base of a power whose exponent is not a constant is "
                            "in {1}; it must be dimensionless"));
        return ok ? known(D::one()) : UnitForm::error();
    }

    UnitForm call(const Expr& e) {
        const char* name = to_string(e.function);
        switch (e.function) {
        case Function::sqrt:
            return power(walk(e.args[0]), Rational(1, 2));
        case Function::abs:
            return walk(e.args[0]);
        case Function::pow:
            return power_of(e.args[0], e.args[1]);
        case Function::atan2: {
            UnitForm f = same(e, "arguments of atan2");
            return f.free() ? f : known(radian);
        }
        default: {
            UnitForm a = walk(e.args[0]);
            if (!dimensionless(a, e.args[0]->range, fmt::format("the argument of {}", name))) {
                return UnitForm::error();
            }
            if (a.free()) {
                return a;
            }
            const bool angle = e.function == Function::asin || e.function == Function::acos ||
                               e.function == Function::atan;
            return known(angle ? radian : D::one());
        }
        }
    }

    UnitForm walk_node(const Expr& e) {
        using K = Expr::Kind;
        switch (e.kind) {
        case K::number:
            return UnitForm::number();
        case K::parameter:
            return UnitForm::variable(parameter_var_[e.index]);
        case K::position:
            return position(e.index);
        case K::velocity:
            return product(position(e.index), known(second), -1);
        case K::state:
            return UnitForm::variable(state_var_[e.index]);
        case K::time:
            return known(second);
        case K::phase:
            return known(radian);
        case K::vibration:
            return UnitForm::variable(vibration_var_[e.index]);
        case K::negate:
            return walk(e.args[0]);
        case K::add:
        case K::sub:
            return same(e, "terms of this sum");
        case K::mul:
            return product(walk(e.args[0]), walk(e.args[1]));
        case K::div:
            return product(walk(e.args[0]), walk(e.args[1]), -1);
        case K::pow:
            return power_of(e.args[0], e.args[1]);
        case K::call:
            return call(e);
        case K::compare: {
            UnitForm f = same(e, "two sides of this comparison");
            return f.invalid ? f : UnitForm::number(); // a condition has no unit
        }
        case K::select: {
            walk(e.args[0]);
            UnitForm a = walk(e.args[1]), b = walk(e.args[2]);
            if (!solver_.equal(a, b, e.range,
                               "the branches of this if-expression have different units: {0} "
                               "and {1}")) {
                return UnitForm::error();
            }
            return pick(a, b);
        }
        }
        return UnitForm::error();
    }

    // `e` must be in `unit`; the message says what e is: "the mass of body 'b'".
    void expect(const ExprPtr& e, const UnitForm& unit, const std::string& what) {
        if (!e) {
            return;
        }
        UnitForm f = walk(e);
        solver_.equal(unit, f, e->range, what + " is in {1}; expected {0}");
    }

    // ---- Declarations --------------------------------------------------------------------

    void check_parameters() {
        for (std::size_t i = 0; i < m_.parameters.size(); ++i) {
            const Parameter& p = m_.parameters[i];
            expect(p.value, UnitForm::variable(parameter_var_[i]),
                   fmt::format("the value of parameter '{}'", p.name));
        }
    }

    void check_bodies() {
        for (const Body& b : m_.bodies) {
            expect(b.mass, known(kilogram), fmt::format("the mass of body '{}'", b.name));
            if (b.rotation >= 0) {
                expect(b.inertia, known(kilogram * metre.power(2)),
                       fmt::format("the moment of inertia of '{}'", b.name));
            }
        }
        for (std::size_t i = 0; i < m_.positions.size(); ++i) {
            const Position& p = m_.positions[i];
            const auto at = static_cast<std::uint32_t>(i);
            expect(p.start, position(at), fmt::format("the start value of '{}'", p.name));
            expect(p.velocity_start, product(position(at), known(second), -1),
                   fmt::format("the start value of '{}'", p.velocity_name));
        }
        for (std::size_t i = 0; i < m_.states.size(); ++i) {
            expect(m_.states[i].start, UnitForm::variable(state_var_[i]),
                   fmt::format("the start value of '{}'", m_.states[i].name));
        }
        for (const Anchor& a : m_.anchors) {
            for (std::size_t axis = 0; axis < 3; ++axis) {
                expect(a.coordinate[axis], known(metre),
                       fmt::format("the position of anchor '{}'", a.name));
            }
        }
        for (const Point& p : m_.points) {
            for (const auto& offset : p.offset) {
                expect(offset, known(metre), fmt::format("the offset of point '{}'", p.name));
            }
        }
    }

    void check_elements() {
        for (const Spring& s : m_.springs) {
            expect(s.stiffness, known(newton() / metre),
                   fmt::format("the stiffness of spring '{}'", s.name));
            expect(s.rest_length, known(metre), fmt::format("the length of spring '{}'", s.name));
            expect(s.fast_omega, known(second.power(-1)),
                   fmt::format("the fast frequency of spring '{}'", s.name));
        }
        for (const Damper& d : m_.dampers) {
            expect(d.coefficient, known(newton() * second / metre),
                   fmt::format("the coefficient of damper '{}'", d.name));
        }
        for (const Gravity& g : m_.gravity) {
            for (const auto& a : g.acceleration) {
                expect(a, known(metre / second.power(2)),
                       fmt::format("the acceleration of gravity '{}'", g.name));
            }
        }
        for (std::size_t i = 0; i < m_.vibrations.size(); ++i) {
            const Vibration& v = m_.vibrations[i];
            expect(v.phase, known(radian), fmt::format("the phase of vibration '{}'", v.name));
            expect(v.value, UnitForm::variable(vibration_var_[i]),
                   fmt::format("the value of vibration '{}'", v.name));
        }
    }

    // The unit of a generalized force on position p: N on a body's x, y, z; J on its angle;
    // on a coordinate, its equation's mass times its acceleration, or energy over its unit.
    UnitForm force_unit(std::uint32_t p) {
        const Position& pos = m_.positions[p];
        if (pos.body >= 0) {
            return known(pos.axis == 3 ? joule() : newton());
        }
        if (equation_mass_.count(p)) {
            return product(equation_mass_.at(p), product(position(p), known(second.power(2)), -1));
        }
        return product(known(joule()), position(p), -1);
    }

    void check_energies_and_forces() {
        for (const Equation& e : m_.equations) {
            UnitForm mass = walk(m_.positions[e.position].mass);
            equation_mass_[e.position] = mass.literal ? known(D::one()) : mass;
        }
        for (const Potential& p : m_.potentials) {
            expect(p.value, known(joule()), fmt::format("potential '{}', an energy,", p.name));
        }
        for (const Kinetic& k : m_.kinetic) {
            expect(k.value, known(joule()), fmt::format("kinetic energy '{}'", k.name));
        }
        for (std::size_t i = 0; i < m_.positions.size(); ++i) {
            const Position& p = m_.positions[i];
            const auto at = static_cast<std::uint32_t>(i);
            if (p.body < 0 && p.mass && !equation_mass_.count(at)) {
                // T = m/2 der(q)^2: m is an energy over the velocity squared
                expect(p.mass,
                       product(known(joule() * second.power(2)), power(position(at), 2), -1),
                       fmt::format("the mass of coordinate '{}'", p.name));
            }
        }
        for (const Force& f : m_.forces) {
            for (std::size_t c = 0; c < f.components.size(); ++c) {
                const bool at_point = !f.at.empty();
                expect(f.components[c], at_point ? known(newton()) : force_unit(f.positions[c]),
                       fmt::format("force '{}'{}", f.name,
                                   f.components.size() > 1 ? fmt::format(" (component {})", c + 1)
                                                           : std::string()));
            }
        }
    }

    void check_constraints_and_equations() {
        for (const Constraint& c : m_.constraints) {
            const Expr& r = *c.residual;
            if (r.args.size() != 2) {
                continue;
            }
            UnitForm l = walk(r.args[0]), rhs = walk(r.args[1]);
            std::string op;
            Range at = operator_before(r.args[1]->range, r.range, op);
            const bool same =
                solver_.equal(l, rhs, at,
                              fmt::format("the two sides of constraint '{}' have different "
                                          "units: {{0}} and {{1}}",
                                          c.name));
            constraint_forms_.push_back(same ? pick(l, rhs) : UnitForm::error());
        }
        for (const Equation& e : m_.equations) {
            const Position& p = m_.positions[e.position];
            UnitForm lhs = product(equation_mass_.at(e.position),
                                   product(position(e.position), known(second.power(2)), -1));
            UnitForm rhs = walk(e.rhs);
            std::string op;
            Range at = operator_before(e.rhs->range, e.range, op);
            solver_.equal(lhs, rhs, at,
                          fmt::format("the two sides of the equation of '{}' have different "
                                      "units: {{0}} and {{1}}",
                                      p.name));
        }
        for (std::size_t i = 0; i < m_.states.size(); ++i) {
            const State& s = m_.states[i];
            if (!s.rate) {
                continue;
            }
            UnitForm lhs = product(UnitForm::variable(state_var_[i]), known(second), -1);
            // the '=' before the rate, else the rate itself
            const Range rate = s.rate->range;
            std::string op;
            Range at = operator_before(
                rate, {rate.begin - std::min<std::uint32_t>(rate.begin, 64), rate.end, rate.file},
                op);
            solver_.equal(lhs, walk(s.rate), op == "=" ? at : rate,
                          fmt::format("the two sides of the equation of der({}) have different "
                                      "units: {{0}} and {{1}}",
                                      s.name));
        }
    }

    void check_events() {
        for (const Event& ev : m_.events) {
            walk(ev.indicator);
            for (const Reinit& r : ev.reinits) {
                UnitForm target = r.target == Expr::Kind::state
                                      ? UnitForm::variable(state_var_[r.index])
                                  : r.target == Expr::Kind::velocity
                                      ? product(position(r.index), known(second), -1)
                                      : position(r.index);
                expect(r.value, target, fmt::format("the new value of '{}'", r.target_name));
            }
        }
    }

    // ---- Results -------------------------------------------------------------------------

    void warn_undetermined() {
        auto warn = [&](std::uint32_t v, Range at, const char* kind, const std::string& name,
                        const char* example) {
            if (!solver_.value(v)) {
                d_.warning(at, fmt::format("the unit of {} '{}' is not determined by the model; "
                                           "declare it: {}",
                                           kind, name, fmt::format(fmt::runtime(example), name)));
            }
        };
        // each declaration of a kind with its unit's variable
        const auto warn_each = [&](const auto& variables, const auto& declarations,
                                   const char* kind, const char* example) {
            for (std::size_t i = 0; i < declarations.size(); ++i) {
                warn(variables[i], declarations[i].range, kind, declarations[i].name, example);
            }
        };
        warn_each(parameter_var_, m_.parameters, "parameter",
                  "'parameter Real {}(unit = \"...\") = ...'");
        warn_each(position_var_, m_.positions, "coordinate",
                  "'coordinate {}(unit = \"...\", ...)'");
        warn_each(state_var_, m_.states, "state", "'Real {}(unit = \"...\", ...)'");
        warn_each(vibration_var_, m_.vibrations, "vibration",
                  "'vibration {}(theta = ..., unit = \"...\") = ...'");
    }

    std::string text(std::uint32_t v, const std::string& declared_text) const {
        if (!declared_text.empty()) {
            return declared_text;
        }
        const auto& value = solver_.value(v);
        return value ? to_string(*value) : std::string();
    }

    void fill_units() {
        QuantityUnits& u = m_.units;
        for (std::size_t i = 0; i < m_.parameters.size(); ++i) {
            u.parameters.push_back(text(parameter_var_[i], parameter_text_[i]));
        }
        for (std::size_t i = 0; i < m_.positions.size(); ++i) {
            u.positions.push_back(text(position_var_[i], position_text_[i]));
            const auto& value = solver_.value(position_var_[i]);
            u.velocities.push_back(value ? to_string(*value / second) : std::string());
        }
        for (std::size_t i = 0; i < m_.states.size(); ++i) {
            u.states.push_back(text(state_var_[i], state_text_[i]));
        }
        for (std::size_t i = 0; i < m_.vibrations.size(); ++i) {
            u.vibrations.push_back(text(vibration_var_[i], vibration_text_[i]));
        }
        for (std::size_t i = 0; i < m_.constraints.size(); ++i) {
            const UnitForm f = i < constraint_forms_.size() ? solver_.resolved(constraint_forms_[i])
                                                            : UnitForm::error();
            u.constraints.push_back(f.free() || !f.terms.empty() ? std::string()
                                                                 : to_string(f.known));
        }
    }

    const ast::Model& flat_;
    CheckedModel& m_;
    source::Diagnostics& d_;
    const UnitOptions& options_;
    UnitSolver solver_;
    std::vector<std::uint32_t> parameter_var_, position_var_, state_var_, vibration_var_;
    std::vector<std::string> parameter_text_, position_text_, state_text_, vibration_text_;
    std::map<std::uint32_t, UnitForm> equation_mass_;
    std::vector<UnitForm> constraint_forms_; // by constraint
    std::unordered_map<const Expr*, UnitForm> memo_;
};

} // namespace

bool check_units(const ast::Model& flat, CheckedModel& model, source::Diagnostics& diagnostics,
                 const UnitOptions& options) {
    return UnitChecker(flat, model, diagnostics, options).run();
}

} // namespace mdl::check
