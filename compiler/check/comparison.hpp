// The relations of `if` conditions, shared by the checker, the symbolic engine and the code
// generator: compare yields 1 when the relation holds, else 0, with IEEE semantics (a NaN
// operand makes every relation false except ne).
#pragma once

#include <cstdint>

namespace mdl::check {

enum class Comparison : std::uint8_t { lt, le, gt, ge, eq, ne };

// "<", "<=", ">", ">=", "==", "<>"
const char* to_string(Comparison c);

inline double compare(Comparison c, double a, double b) {
    bool holds = false;
    switch (c) {
    case Comparison::lt:
        holds = a < b;
        break;
    case Comparison::le:
        holds = a <= b;
        break;
    case Comparison::gt:
        holds = a > b;
        break;
    case Comparison::ge:
        holds = a >= b;
        break;
    case Comparison::eq:
        holds = a == b;
        break;
    case Comparison::ne:
        holds = a != b;
        break;
    }
    return holds ? 1.0 : 0.0;
}

} // namespace mdl::check
