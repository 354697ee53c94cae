#include "symbolic/evaluate.hpp"

#include "symbolic/numeric.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace mdl::symbolic {

namespace {

const char* kind_label(VarKind kind) {
    switch (kind) {
    case VarKind::parameter:
        return "p";
    case VarKind::position:
        return "q";
    case VarKind::velocity:
        return "v";
    case VarKind::state:
        return "x";
    case VarKind::time:
        return "t";
    case VarKind::phase:
        return "theta";
    }
    return "?";
}

double multiply(double a, double b) {
    return a * b;
}

} // namespace

double Evaluator::variable_value(ExprId id, const VariableValues& at) const {
    const Variable var = pool_->variable_of(id);
    std::span<const double> values;
    switch (var.kind) {
    case VarKind::time:
        return at.t;
    case VarKind::parameter:
        values = at.p;
        break;
    case VarKind::position:
        values = at.q;
        break;
    case VarKind::velocity:
        values = at.v;
        break;
    case VarKind::state:
        values = at.x;
        break;
    case VarKind::phase:
        values = at.theta;
        break;
    }
    if (var.index >= values.size()) {
        throw std::out_of_range(std::string("expression uses ") + kind_label(var.kind) + "[" +
                                std::to_string(var.index) + "] but only " +
                                std::to_string(values.size()) + " value(s) were given");
    }
    return values[var.index];
}

void Evaluator::evaluate(std::span<const ExprId> roots, const VariableValues& at,
                         std::span<double> out) {
    if (out.size() < roots.size()) {
        throw std::invalid_argument("evaluate: output span shorter than the list of expressions");
    }
    const ExprPool& pool = *pool_;
    const std::vector<ExprId> order = computation_order(pool, roots);
    const std::vector<std::uint8_t> shared = shared_reciprocals(pool, order);
    if (!order.empty() && values_.size() <= order.back().index) {
        values_.resize(order.back().index + 1);
    }
    const auto value = [&](ExprId id) {
        return values_[id.index];
    };
    for (ExprId id : order) {
        const Node& n = pool.node(id);
        const auto kids = pool.children(id);
        double result = 0.0;
        switch (n.op) {
        case Op::constant:
            result = n.value;
            break;
        case Op::variable:
            result = variable_value(id, at);
            break;
        case Op::add:
            result = value(kids[0]);
            for (std::size_t i = 1; i < kids.size(); ++i) {
                result += value(kids[i]);
            }
            break;
        case Op::mul: {
            // numeric.hpp: numerator left to right (with the shared reciprocals' powers in
            // their places), then one division by the denominator.
            bool have_numerator = false;
            bool have_denominator = false;
            double numerator = 1.0;
            double denominator = 1.0;
            for (ExprId k : kids) {
                if (is_denominator_factor(pool, k)) {
                    const ExprId base = pool.children(k)[0];
                    const auto n_unrolled =
                        *unrolled_exponent(pool.constant_value(pool.children(k)[1]));
                    if (shared[base.index] != 0) {
                        const double power =
                            power_by_squaring(1.0 / value(base), n_unrolled, multiply);
                        numerator = have_numerator ? numerator * power : power;
                        have_numerator = true;
                        continue;
                    }
                    const double power = power_by_squaring(value(base), n_unrolled, multiply);
                    denominator = have_denominator ? denominator * power : power;
                    have_denominator = true;
                } else {
                    numerator = have_numerator ? numerator * value(k) : value(k);
                    have_numerator = true;
                }
            }
            result = have_denominator ? numerator / denominator : numerator;
            break;
        }
        case Op::pow: {
            const double b = value(kids[0]);
            const ExprId exponent = kids[1];
            if (pool.is_constant(exponent)) {
                const double e = pool.constant_value(exponent);
                if (const auto n_unrolled = unrolled_exponent(e)) {
                    if (e < 0.0 && shared[kids[0].index] != 0) {
                        result = power_by_squaring(1.0 / b, *n_unrolled, multiply);
                    } else {
                        const double power = power_by_squaring(b, *n_unrolled, multiply);
                        result = e < 0.0 ? 1.0 / power : power;
                    }
                    break;
                }
            }
            result = std::pow(b, value(exponent));
            break;
        }
        case Op::call: {
            const auto f = static_cast<Func>(n.tag);
            result = kids.size() == 1 ? apply(f, value(kids[0]))
                                      : apply(f, value(kids[0]), value(kids[1]));
            break;
        }
        case Op::compare:
            result = check::compare(pool.comparison_of(id), value(kids[0]), value(kids[1]));
            break;
        case Op::select:
            result = select_value(value(kids[0]), value(kids[1]), value(kids[2]));
            break;
        }
        values_[id.index] = result;
    }
    for (std::size_t i = 0; i < roots.size(); ++i) {
        out[i] = values_[roots[i].index];
    }
}

std::vector<double> Evaluator::evaluate(std::span<const ExprId> roots, const VariableValues& at) {
    std::vector<double> out(roots.size());
    evaluate(roots, at, out);
    return out;
}

double Evaluator::evaluate(ExprId root, const VariableValues& at) {
    const ExprId roots[] = {root};
    double out = 0.0;
    evaluate(roots, at, std::span<double>(&out, 1));
    return out;
}

} // namespace mdl::symbolic
