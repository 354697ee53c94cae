#include "parse/ast.hpp"

namespace mdl::ast {

const char* to_string(ComponentKind kind) {
    switch (kind) {
    case ComponentKind::coordinate:
        return "coordinate";
    case ComponentKind::body:
        return "body";
    case ComponentKind::anchor:
        return "anchor";
    case ComponentKind::spring:
        return "spring";
    case ComponentKind::damper:
        return "damper";
    case ComponentKind::potential:
        return "potential";
    case ComponentKind::force:
        return "force";
    case ComponentKind::gravity:
        return "gravity";
    case ComponentKind::vibration:
        return "vibration";
    case ComponentKind::real:
        return "Real";
    case ComponentKind::instance:
        return "instance";
    case ComponentKind::kinetic:
        return "kinetic";
    case ComponentKind::rigid:
        return "rigid body";
    case ComponentKind::point:
        return "point";
    case ComponentKind::revolute:
        return "revolute joint";
    case ComponentKind::prismatic:
        return "prismatic joint";
    case ComponentKind::weld:
        return "weld joint";
    }
    return "component";
}

const char* to_string(BinaryOp op) {
    switch (op) {
    case BinaryOp::add:
        return "+";
    case BinaryOp::sub:
        return "-";
    case BinaryOp::mul:
        return "*";
    case BinaryOp::div:
        return "/";
    case BinaryOp::pow:
        return "^";
    case BinaryOp::lt:
        return "<";
    case BinaryOp::le:
        return "<=";
    case BinaryOp::gt:
        return ">";
    case BinaryOp::ge:
        return ">=";
    case BinaryOp::eq:
        return "==";
    case BinaryOp::ne:
        return "<>";
    case BinaryOp::logical_and:
        return "and";
    case BinaryOp::logical_or:
        return "or";
    }
    return "?";
}

bool NameRef::subscripted() const {
    for (const auto& s : subscripts) {
        if (!s.empty()) {
            return true;
        }
    }
    return false;
}

} // namespace mdl::ast
