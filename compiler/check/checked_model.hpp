// The checked model: every name resolved, every declaration validated, the system known to be
// square. It is what the symbolic stage builds on; nothing here refers to the AST.
#pragma once

#include "check/comparison.hpp"
#include "source/source_file.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mdl::check {

using source::Range;

enum class Function {
    sin,
    cos,
    tan,
    exp,
    log,
    sqrt,
    abs,
    atan2,
    sinh,
    cosh,
    tanh,
    asin,
    acos,
    atan,
    pow
};
const char* to_string(Function f);

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

// A resolved expression. Leaves refer to the model's tables by index.
struct Expr {
    enum class Kind {
        number,
        parameter, // parameters[index]
        position,  // positions[index]
        velocity,  // velocity of positions[index]
        state,     // states[index] (first-order)
        time,
        phase,     // the phase variable of vibrations[index], inside its value only
        vibration, // the value of vibrations[index] at the current time
        negate,
        add,
        sub,
        mul,
        div,
        pow,
        call,
        compare, // args[0] <comparison> args[1]: 1 when it holds, else 0
        select   // if args[0] != 0 then args[1] else args[2]; `and`, `or`, `not` are selects too
    };
    Kind kind = Kind::number;
    double value = 0;        // number
    std::uint32_t index = 0; // parameter, position, velocity, state, phase, vibration
    Function function = Function::sin;
    Comparison comparison = Comparison::lt; // compare
    std::vector<ExprPtr> args;              // operands of operators and calls
    Range range;
};

ExprPtr number(double value, Range range = {});
ExprPtr binary(Expr::Kind kind, ExprPtr lhs, ExprPtr rhs, Range range = {});

struct Parameter {
    std::string name;
    ExprPtr value;
    double default_value = 0; // value evaluated with every parameter at its default
    std::string description;
    Range range;
};

// One generalized position: a `coordinate`, or one component (x, y, z) of a body.
struct Position {
    std::string name;          // "q" or "b1.x"
    std::string velocity_name; // "der(q)" or "b1.vx"
    // the body's m, the coordinate's m, or its equation's factor; null for a coordinate whose
    // inertia comes from the kinetic energy (kinetic is then true)
    ExprPtr mass;
    ExprPtr start; // position at the start time
    ExprPtr velocity_start;
    int body = -1; // index into bodies, or -1 for a coordinate
    int axis = 0;  // 0, 1, 2 for x, y, z of a body; 3 for the angle phi of a rigid body
    Range range;
    bool kinetic = false; // its velocity appears in a `kinetic` declaration
    // x(start = 0, fixed = true): consistent initialization keeps this start value
    bool fixed = false;
};

struct State { // a first-order variable: der(x) = rate
    std::string name;
    ExprPtr start;
    ExprPtr rate;
    std::string description;
    Range range;
};

// A point mass, or a planar rigid body (`rigid`): then x, y are its centre of mass and
// `rotation` is its angle phi, with the moment of inertia J about the centre.
struct Body {
    std::string name;
    ExprPtr mass;
    std::array<int, 3> position{-1, -1, -1}; // index of the x, y, z positions, -1 if absent
    std::string description;
    Range range;
    int rotation = -1; // index of the position phi of a rigid body, -1 for a point mass
    ExprPtr inertia;   // J of a rigid body
};

// A point fixed on a rigid body at (px, py) in the body's frame: in the plane at
// x + px cos(phi) - py sin(phi), y + px sin(phi) + py cos(phi).
struct Point {
    std::string name;
    std::uint32_t body = 0;
    std::array<ExprPtr, 2> offset;   // px, py
    std::array<ExprPtr, 3> position; // x, y (z is 0), expressions of the body's positions
    std::array<ExprPtr, 3> velocity; // their time derivatives
    Range range;
};

struct Anchor {
    std::string name;
    std::array<ExprPtr, 3> coordinate; // x, y, z (number 0 where not given)
    Range range;
};

struct Endpoint {
    bool is_anchor = false;
    std::uint32_t index = 0; // into bodies or anchors (a point's body)
    int point = -1;          // into points when the end is a point fixed on body `index`
};

struct Spring {
    std::string name;
    Endpoint a, b;
    ExprPtr stiffness;   // k
    ExprPtr rest_length; // length (number 0 when not given: a linear spring)
    bool fast = false;
    ExprPtr fast_omega; // stated by fast(omega = ...), else null
    Range range;
};

struct Damper {
    std::string name;
    Endpoint a, b;
    ExprPtr coefficient; // c
    Range range;
};

struct Potential {
    std::string name;
    ExprPtr value;
    Range range;
};

// A term of the kinetic energy T(q, v) = 1/2 v^T M(q) v: a quadratic form in the velocities
// of coordinates (the checker proves the degree and that M is positive definite at the start).
struct Kinetic {
    std::string name;
    ExprPtr value;
    Range range;
};

// A generalized force on some positions: a coordinate (one component) or a body (one per axis;
// a rigid body: x, y and the torque on phi). On a point of a rigid body (`at` set) the
// components are the Cartesian force (fx, fy) applied there; the symbolic stage turns it into
// generalized forces on the body's x, y, phi.
struct Force {
    std::string name;
    std::vector<std::uint32_t> positions;
    std::vector<ExprPtr> components;
    Range range;
    std::vector<ExprPtr> at; // the point's x, y positions, or empty
};

struct Gravity {
    std::string name;
    std::array<ExprPtr, 3> acceleration; // x, y, z components of the field
    // The bodies it acts on: those whose names begin with `scope` ("" every body; "left." the
    // bodies of the instance left, where the field was declared).
    std::string scope;
    Range range;
};

struct Constraint {
    std::string name;
    ExprPtr residual; // lhs - rhs, zero on the constraint manifold
    Range range;
};

// A fast periodic forcing: value(theta) with theta = omega * time + offset.
struct Vibration {
    std::string name;
    std::string phase_name;
    ExprPtr phase;    // the affine phase expression in time and parameters
    ExprPtr value;    // in terms of Expr::Kind::phase
    double omega = 0; // d(phase)/dt with default parameter values
    Range range;
};

// An explicit second-order equation: mass * der(der(q)) = rhs.
struct Equation {
    std::uint32_t position = 0;
    ExprPtr rhs;
    Range range;
};

// reinit(target, value) in a when-clause: at the event, target jumps to value, evaluated on
// the state just before the event (where pre(x) is x).
struct Reinit {
    Expr::Kind target = Expr::Kind::velocity; // velocity, state or position
    std::uint32_t index = 0;                  // into positions (velocity, position) or states
    std::string target_name;                  // "b.vy", "der(q)", "x"
    ExprPtr value;
    Range range;
};

// One branch of a when-clause (docs/events.md). It fires when `indicator` crosses zero from
// below, i.e. when its condition becomes true: `a <= b` has indicator b - a, `a >= b` a - b.
struct Event {
    std::string name;         // the condition as written, blanks collapsed: "b.y <= 0"
    ExprPtr indicator;        // >= 0 where the condition holds
    std::uint32_t clause = 0; // the when-clause; of its branches firing at once the first wins
    std::vector<Reinit> reinits;
    std::optional<std::string> terminate; // terminate("message")
    Range range;                          // the condition
};

struct FastScale {
    std::string source; // "vibration a" or "spring s2"
    double omega = 0;   // rad per unit time, with default parameter values
};

struct ExperimentSetting {
    ExprPtr value;    // numeric settings
    std::string text; // string settings (method = "hmm")
    bool is_text = false;
    Range range;
};

// An Integer parameter: fixed when the model is compiled (arrays sizes, loop bounds), so a new
// value means a new compilation (`-p n=200` recompiles; Real parameters do not).
struct StructuralParameter {
    std::string name;
    long long value = 0;
    bool overridden = false; // set by a -p override rather than the model
};

// The unit of each quantity, declared or inferred ("m", "N/m", "rad/s"), by the index of the
// quantity in its table; "" where it is not known. Empty tables when the model was not checked
// for units (it declares none; check/units.hpp).
struct QuantityUnits {
    std::vector<std::string> parameters;
    std::vector<std::string> positions;
    std::vector<std::string> velocities; // of positions
    std::vector<std::string> states;
    std::vector<std::string> vibrations;
    std::vector<std::string> constraints; // of their sides; a multiplier is in J over it
};

struct CheckedModel {
    std::string name;
    std::string description;
    std::string file;

    std::vector<Parameter> parameters;
    std::vector<std::uint32_t> parameter_order; // evaluation order (dependencies first)
    std::vector<Position> positions;
    std::vector<State> states;
    std::vector<Body> bodies;
    std::vector<Anchor> anchors;
    std::vector<Point> points;
    std::vector<Spring> springs;
    std::vector<Damper> dampers;
    std::vector<Potential> potentials;
    std::vector<Kinetic> kinetic;
    std::vector<Force> forces;
    std::vector<Gravity> gravity;
    std::vector<Constraint> constraints;
    std::vector<Vibration> vibrations;
    std::vector<Equation> equations;
    std::vector<Event> events; // the branches of the when-clauses, in source order
    std::map<std::string, ExperimentSetting> experiment;
    std::vector<FastScale> fast_scales;
    std::vector<StructuralParameter> structural;
    QuantityUnits units;

    std::vector<double> default_parameters() const;
};

} // namespace mdl::check
