#include "check/checked_model.hpp"

namespace mdl::check {

const char* to_string(Function f) {
    static constexpr const char* names[] = {"sin",  "cos",  "tan",   "exp",  "log",
                                            "sqrt", "abs",  "atan2", "sinh", "cosh",
                                            "tanh", "asin", "acos",  "atan", "pow"};
    return names[static_cast<int>(f)];
}

ExprPtr number(double value, Range range) {
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::number;
    e->value = value;
    e->range = range;
    return e;
}

ExprPtr binary(Expr::Kind kind, ExprPtr lhs, ExprPtr rhs, Range range) {
    auto e = std::make_shared<Expr>();
    e->kind = kind;
    e->args = {std::move(lhs), std::move(rhs)};
    e->range = range;
    return e;
}

std::vector<double> CheckedModel::default_parameters() const {
    std::vector<double> values;
    values.reserve(parameters.size());
    for (const auto& p : parameters) {
        values.push_back(p.default_value);
    }
    return values;
}

} // namespace mdl::check
