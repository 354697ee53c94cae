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
// a or a.b (a body's or anchor's member).
struct NameRef {
    std::vector<Identifier> parts;
};
struct Negate {
    ExprPtr operand;
};
enum class BinaryOp { add, sub, mul, div, pow };
struct Binary {
    BinaryOp op;
    ExprPtr lhs, rhs;
    Range op_range;
};
// Built-in functions and der(); which names exist is the checker's business.
struct Call {
    Identifier callee;
    std::vector<ExprPtr> args;
};
// {a, b}: a body force's components.
struct VectorLiteral {
    std::vector<ExprPtr> elements;
};

struct Expr {
    Range range;
    std::variant<Number, NameRef, Negate, Binary, Call, VectorLiteral> node;
    std::uint32_t depth = 1; // height of the tree below and including this node

    template <typename T>
    const T* as() const {
        return std::get_if<T>(&node);
    }
};

// name = value, name = "text", or name(modifiers).
struct Modifier {
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
    kinetic
};
const char* to_string(ComponentKind kind);

// kind name [(arguments)] [= value] [fast [(modifiers)]] ["description"];
struct Component {
    ComponentKind kind;
    Range kind_range;
    Identifier name;
    bool has_arguments = false;
    std::vector<Argument> arguments;
    ExprPtr value;
    bool fast = false;
    Range fast_range;
    std::vector<Modifier> fast_modifiers;
    std::optional<std::string> description;
    Range range;
};

struct Parameter {
    Identifier type;
    Identifier name;
    ExprPtr value;
    std::optional<std::string> description;
    Range range;
};

struct Constraint {
    Identifier name;
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

struct Model {
    Identifier name;
    std::optional<std::string> description;
    std::vector<Parameter> parameters;
    std::vector<Component> components; // in declaration order
    std::vector<Constraint> constraints;
    std::vector<Annotation> annotations;
    std::vector<Equation> equations;
    Identifier end_name;
};

} // namespace mdl::ast
