// The checker's internals, shared by the files that implement it, one concern each:
//   checker.cpp      the order of the checks (Checker::run) and the public entry points
//   names.cpp        declaring names, looking them up, "did you mean"
//   expressions.cpp  resolving expressions: names, members, calls, der(), conditionals
//   parameters.cpp   parameter values and their dependency order
//   declarations.cpp the mechanical declarations: coordinates, bodies, anchors, springs,
//                    dampers, potentials, kinetic energy and the mass matrix, forces, gravity,
//                    vibrations
//   rigid_bodies.cpp planar rigid bodies, their points, and joints (revolute, prismatic, weld)
//   equations.cpp    constraints, equations, and the system being square
//   when_clauses.cpp when-clauses: event conditions, reinit and terminate
//   settings.cpp     the experiment annotation and the fast scales
// Arrays, loops and components never reach the checker: compiler/flatten unrolls them first.
// Not installed, not part of the API.
#pragma once

#include "check/checker.hpp"
#include "check/evaluate.hpp"
#include "check/fast_scales.hpp"
#include "check/vibration_periodicity.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace mdl::check::detail {

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

inline const BuiltinFunction* find_function(const std::string& name) {
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
inline const std::vector<std::string> numeric_settings = {
    "StartTime", "StopTime", "Interval",        "Tolerance",       "atol",
    "rtol",      "step",     "every",           "window",          "micro_steps_per_period",
    "order",     "rho_inf",  "reproject_every", "macro_time_scale"};
inline const std::vector<std::string> text_settings = {"method", "algorithm", "filter", "macro",
                                                       "micro"};

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
    bool pre = false;        // pre(x): in the values of reinit only
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
    kinetic,
    point,
    joint
};

inline const char* describe(NameKind k) {
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
    case NameKind::point:
        return "point";
    case NameKind::joint:
        return "joint";
    }
    return "name";
}

struct NameInfo {
    NameKind kind;
    std::uint32_t index; // into the table of its kind (positions for coordinates)
    Range range;
};

inline void walk(const Expr& e, const std::function<void(const Expr&)>& visit) {
    visit(e);
    for (const auto& a : e.args) {
        walk(*a, visit);
    }
}

inline bool depends_on(const Expr& e, Expr::Kind kind) {
    bool found = false;
    walk(e, [&](const Expr& x) { found = found || x.kind == kind; });
    return found;
}

class Checker {
public:
    Checker(const ast::Model& model, source::Diagnostics& diagnostics)
        : m_(model), d_(diagnostics) {}

    std::optional<CheckedModel> run();

private:
    // ---- Names -------------------------------------------------------------------------

    bool declare(const ast::Identifier& id, NameKind kind, std::uint32_t index);

    static std::string member_modifier_name(const ast::Argument& a);

    void declare_names();

    std::vector<std::string> names_of(const std::function<bool(NameKind)>& keep) const;

    std::string did_you_mean(const std::string& name, std::vector<std::string> candidates);

    // ---- Expressions -------------------------------------------------------------------

    ExprPtr make(Expr::Kind kind, Range range, std::uint32_t index = 0);

    void not_allowed(Range r, const Context& ctx, const std::string& what);

    // A condition (relation, and/or/not, true/false, or an if-expression choosing between
    // conditions) rather than a Real value.
    static bool is_condition(const ast::Expr& e);

    // A Real value: the expression every declaration and equation takes.
    ExprPtr resolve(const ast::Expr& e, const Context& ctx);

    // A condition: 1 where it holds, 0 elsewhere.
    ExprPtr resolve_condition(const ast::Expr& e, const Context& ctx);

    ExprPtr select(ExprPtr c, ExprPtr a, ExprPtr b, Range range);

    ExprPtr resolve_any(const ast::Expr& e, const Context& ctx);

    ExprPtr resolve_call(const ast::Call& c, Range range, const Context& ctx);

    // der(q) is the velocity of a position; der(der(q)) only on an equation's left side.
    ExprPtr resolve_der(const ast::Call& c, Range range, const Context& ctx);

    ExprPtr resolve_name(const ast::NameRef& r, Range range, const Context& ctx);

    ExprPtr resolve_member(const ast::NameRef& r, Range range, const NameInfo& info,
                           const Context& ctx);

    static Context parameter_context(const char* place);

    // ---- Parameters --------------------------------------------------------------------

    void check_parameters();

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
                           const std::vector<std::string>& nested, bool positional_ok);

    // x(start = e): the start expression of a nested modifier. With `fixed`, the modifier may
    // also say `fixed = true` (kept by consistent initialization) and *fixed tells whether it
    // did.
    ExprPtr nested_start(const ast::Modifier& m, const std::string& owner, bool* fixed = nullptr);

    // fixed = true or fixed = false.
    bool fixed_value(const ast::Modifier& m);

    void reject_value_and_fast(const ast::Component& c);

    void check_component(const ast::Component& c, std::uint32_t index);

    void check_coordinate(const ast::Component& c, std::uint32_t index);

    void check_state(const ast::Component& c, std::uint32_t index);

    // Body masses are resolved before any other declaration, so that `b.m` can be used in
    // start values, potentials and forces wherever the body is declared.
    void resolve_body_masses();

    void check_body(const ast::Component& c, std::uint32_t index);

    void check_anchor(const ast::Component& c, std::uint32_t index);

    // ---- Rigid bodies, points, joints (rigid_bodies.cpp) --------------------------------

    // rigid r(m = , J = , x(start), y(start), phi(start), vx, vy, vphi): a body with the
    // positions x, y (mass m) and phi (inertia J).
    void check_rigid(const ast::Component& c, std::uint32_t index);

    // Points are resolved before any other declaration (like body masses), so that springs,
    // forces and joints declared before a point can use it.
    void resolve_points();

    // point P(r, x = px, y = py): a point fixed on rigid body r.
    void check_point(const ast::Component& c, std::uint32_t index);

    // revolute / prismatic / weld j(A, B, ...): holonomic constraints between two points.
    void check_joint(const ast::Component& c);

    // What a joint needs of one of its ends: its position and, when it can turn, its angle.
    struct JointEnd {
        std::string name;
        std::array<ExprPtr, 2> position;
        ExprPtr angle;        // phi of a rigid body (itself or the body a point is fixed on)
        ExprPtr angle_start;  // its start value
        int body = -1;        // the body it moves with, -1 for an anchor
        bool oriented = true; // has an angle: a rigid body or its point, or the ground (0)
    };
    std::optional<JointEnd> joint_end(const ast::Component& c, const ast::Expr& e);

    std::string axes_of(const Body& b) const;

    // The two ends of a spring or damper: bodies or anchors, at least one body, and two bodies
    // with the same components.
    bool endpoints(const ast::Component& c, Endpoint& a, Endpoint& b);

    void check_spring(const ast::Component& c, std::uint32_t index);

    void check_damper(const ast::Component& c, std::uint32_t index);

    bool require_value(const ast::Component& c, const char* example);

    void check_potential(const ast::Component& c, std::uint32_t index);

    // kinetic T = expression; a quadratic form in the velocities of coordinates.
    void check_kinetic(const ast::Component& c, std::uint32_t index);

    // The degree of e as a homogeneous polynomial in the velocities, with coefficients any
    // functions of positions and parameters; -1 after reporting why e is not one (a sum of
    // terms of different degrees, a velocity inside a function or a denominator, a power of
    // velocities that is not a whole number). A syntactic proof: degree 2 means a quadratic
    // form 1/2 v^T M(q) v, so M = d2T/dv2 does not depend on v and T has no terms constant or
    // linear in v.
    int velocity_degree(const Expr& e);

    // M = d2T/dv2 at the start state, by polarization (exact for a quadratic form:
    // M_ii = 2 T(e_i), M_ij = T(e_i + e_j) - T(e_i) - T(e_j)), must be positive definite:
    // Cholesky with a pivot above 1e-12 of its diagonal entry.
    void check_mass_matrix();

    static Context force_context(const char* place);

    void check_force(const ast::Component& c, std::uint32_t index);

    void check_gravity(const ast::Component& c, std::uint32_t index);

    // Degree of an expression in time: 0 constant, 1 affine, -1 anything else.
    static int time_degree(const Expr& e);

    void check_vibration(const ast::Component& c, std::uint32_t index);

    // Parameters have values only when none of them failed.
    bool phase_defaults_known() const;

    // ---- Constraints and equations -----------------------------------------------------

    void check_constraint(const ast::Constraint& c);

    // der(der(name)) -> the NameRef, else null.
    static const ast::NameRef* acceleration_of(const ast::Expr& e, Range& range);

    void check_equation(const ast::Equation& eq);

    void second_order_equation(const ast::Equation& eq, const ast::NameRef& target, Range range,
                               const ast::Expr* factor);

    void first_order_equation(const ast::Equation& eq, const ast::NameRef& target, Range range);

    void check_square();

    // ---- When-clauses (when_clauses.cpp) ---------------------------------------------

    void check_when(const ast::When& w, std::uint32_t clause);
    // impact name(q >= s, restitution = e): the event of q crossing into s with the reinit
    // der(q) = der(s) - e (pre(der(q)) - der(s)).
    void check_impact(const ast::WhenBranch& b, std::uint32_t clause);
    // d/dt of a surface of time and parameters; null after an error located at its part.
    ExprPtr time_derivative(const ExprPtr& e);

    // pre(x): x just before the event, allowed in the value of a reinit.
    ExprPtr resolve_pre(const ast::Call& c, Range range, const Context& ctx);

    // ---- Annotation ----------------------------------------------------------------------

    void check_annotation(const ast::Annotation& a);

    void check_setting(const ast::Modifier& s);

    // ---- Fast scales -------------------------------------------------------------------

    void collect_fast_scales();

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

} // namespace mdl::check::detail
