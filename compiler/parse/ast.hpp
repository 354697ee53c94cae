// The abstract syntax tree of one .mdl model. Every node carries its source range, so each
// later stage can point at the text it complains about.
#pragma once

#include "source/source_file.hpp"

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace mdl::ast {

using source::Range;

struct Identifier {
    std::string text;
    Range range;
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Number {
    double value = 0;
};
// a, a.b (a body's or anchor's member, an instance's declaration), a[i], a[i].b[j].x.
// subscripts[k] are the subscripts of parts[k]; `subscripts` is empty or as long as `parts`.
struct NameRef {
    std::vector<Identifier> parts;
    std::vector<std::vector<ExprPtr>> subscripts;

    bool subscripted() const;
};
struct Negate {
    ExprPtr operand;
};
struct Not {
    ExprPtr operand;
};
// Relations and logical operators yield a Boolean; only conditions take one.
enum class BinaryOp { add, sub, mul, div, pow, lt, le, gt, ge, eq, ne, logical_and, logical_or };
const char* to_string(BinaryOp op);
struct Binary {
    BinaryOp op;
    ExprPtr lhs, rhs;
    Range op_range;
};
// for i in first:last or first:step:last (step 1 when absent).
struct Iterator {
    Identifier variable;
    ExprPtr first, step, last;
    Range range;
};
// Built-in functions and der(); which names exist is the checker's business. With an
// iterator, a reduction: sum(e for i in 1:n).
struct Call {
    Identifier callee;
    std::vector<ExprPtr> args;
    std::shared_ptr<Iterator> iterator;
};
// {a, b}: an array (a body force's components, an array's values); with an iterator, the
// comprehension {e for i in 1:n}.
struct VectorLiteral {
    std::vector<ExprPtr> elements;
    std::shared_ptr<Iterator> iterator;
};
struct Boolean {
    bool value = false;
};
// if c1 then a elseif c2 then b else d
struct If {
    std::vector<std::pair<ExprPtr, ExprPtr>> branches; // (condition, value)
    ExprPtr otherwise;
};

struct Expr {
    Range range;
    std::variant<Number, NameRef, Negate, Binary, Call, VectorLiteral, Not, Boolean, If> node;
    std::uint32_t depth = 1; // height of the tree below and including this node

    template <typename T>
    const T* as() const {
        return std::get_if<T>(&node);
    }
};

// name = value, name = "text", or name(modifiers); `each` before it on an array declaration.
struct Modifier {
    bool each = false;
    Identifier name;
    Range range;
    ExprPtr value;                   // name = expr
    std::optional<std::string> text; // name = "text"
    std::vector<Modifier> children;  // name(children)
    bool nested = false;
};

// A component's argument: a modifier (k = 1, x(start = 0)) or a positional expression (the
// bodies a spring connects).
struct Argument {
    std::optional<Modifier> modifier;
    ExprPtr positional;
    Range range;
};

enum class ComponentKind {
    coordinate,
    body,
    anchor,
    spring,
    damper,
    potential,
    force,
    gravity,
    vibration,
    real,
    kinetic,
    instance, // of another model: Pendulum left(l = 0.2)
    rigid,    // a planar rigid body: x, y, phi
    point,    // a point fixed on a rigid body
    revolute, // joints: holonomic constraints between two points
    prismatic,
    weld
};
const char* to_string(ComponentKind kind);

// kind name [(arguments)] [= value] [fast [(modifiers)]] ["description"];
// An instance: Type name [(modifiers)] ["description"], with `type` the model's name.
struct Component {
    ComponentKind kind;
    Range kind_range;
    Identifier type; // instances only
    Identifier name;
    std::vector<ExprPtr> subscripts; // body b[n]: the sizes; in a loop, spring s[i]: the element
    bool has_arguments = false;
    std::vector<Argument> arguments;
    ExprPtr value;
    bool fast = false;
    Range fast_range;
    std::vector<Modifier> fast_modifiers;
    std::optional<std::string> description;
    Range range;
    std::string scope; // set by flattening: the instance ("left.") a declaration belongs to
};

struct Parameter {
    Identifier type;
    Identifier name;
    std::vector<ExprPtr> subscripts; // parameter Real k[3]: the sizes
    std::vector<Modifier> modifiers; // parameter Real l(unit = "m"): its attributes
    ExprPtr value;
    std::optional<std::string> description;
    Range range;
};

struct Constraint {
    Identifier name;
    std::vector<ExprPtr> subscripts; // in a loop, constraint c[i]: the element
    ExprPtr lhs, rhs;
    Range range;
};

struct Annotation {
    std::vector<Modifier> modifiers;
    Range range;
};

struct Equation {
    ExprPtr lhs, rhs;
    Range range;
};

// reinit(target, value); inside a when-clause.
struct Reinit {
    ExprPtr target, value;
    Range range;
};
// `impact name(condition, restitution = e);`: a when-clause of one branch whose reinit the
// checker derives from its condition (docs/events.md).
struct Impact {
    Identifier name;
    ExprPtr restitution;
};
// One branch of a when-clause: `when condition then ...` or `elsewhen condition then ...`.
struct WhenBranch {
    ExprPtr condition; // of an impact: the side the position keeps, `b.y >= s`
    std::vector<Reinit> reinits;
    std::optional<std::string> terminate; // terminate("message")
    Range terminate_range;
    std::optional<Impact> impact; // an impact statement, its only branch
    Range range;
};
// when c then ... elsewhen c2 then ... end when;
struct When {
    std::vector<WhenBranch> branches;
    Range range;
};

struct ForLoop;

// Which table a statement went to, in source order (the flattening stage reads statements in
// this order, so that loops keep their place among the declarations around them).
enum class StatementKind { parameter, component, constraint, annotation, equation, loop, when };
struct StatementRef {
    StatementKind kind;
    std::uint32_t index; // into the table of that kind
};

// A model, or the body of a for-loop. After flattening (compiler/flatten) a model has no loops,
// no instances and no subscripts: the checker sees only that flat form.
struct Model {
    Identifier name;
    std::optional<std::string> description;
    std::vector<Parameter> parameters;
    std::vector<Component> components; // in declaration order
    std::vector<Constraint> constraints;
    std::vector<Annotation> annotations;
    std::vector<Equation> equations;
    std::vector<std::shared_ptr<ForLoop>> loops;
    std::vector<When> whens;
    std::vector<StatementRef> statements; // every statement above, in source order
    Identifier end_name;
    Range range;
};

// for variable in range loop body end for;
struct ForLoop {
    Iterator iterator;
    Model body;
    Range range;
};

// A file: one or more models. The last is the one a file is run as; the others are components.
struct File {
    std::vector<Model> models;
};

} // namespace mdl::ast
