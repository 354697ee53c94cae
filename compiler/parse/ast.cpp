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
    case ComponentKind::kinetic:
        return "kinetic";
    }
    return "component";
}

} // namespace mdl::ast
