#include "check/comparison.hpp"

namespace mdl::check {

const char* to_string(Comparison c) {
    switch (c) {
    case Comparison::lt:
        return "<";
    case Comparison::le:
        return "<=";
    case Comparison::gt:
        return ">";
    case Comparison::ge:
        return ">=";
    case Comparison::eq:
        return "==";
    case Comparison::ne:
        return "<>";
    }
    return "?";
}

} // namespace mdl::check
