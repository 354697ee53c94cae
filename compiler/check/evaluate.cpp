#include "check/evaluate.hpp"

#include <cmath>
#include <stdexcept>

namespace mdl::check {

double apply(Function f, double a, double b) {
    switch (f) {
    case Function::sin:
        return std::sin(a);
    case Function::cos:
        return std::cos(a);
    case Function::tan:
        return std::tan(a);
    case Function::exp:
        return std::exp(a);
    case Function::log:
        return std::log(a);
    case Function::sqrt:
        return std::sqrt(a);
    case Function::abs:
        return std::fabs(a);
    case Function::atan2:
        return std::atan2(a, b);
    case Function::sinh:
        return std::sinh(a);
    case Function::cosh:
        return std::cosh(a);
    case Function::tanh:
        return std::tanh(a);
    case Function::asin:
        return std::asin(a);
    case Function::acos:
        return std::acos(a);
    case Function::atan:
        return std::atan(a);
    case Function::pow:
        return std::pow(a, b);
    }
    return std::nan("");
}

namespace {
double at(std::span<const double> values, std::uint32_t i, const char* what) {
    if (i >= values.size()) {
        throw std::logic_error(std::string("evaluate: no value for ") + what);
    }
    return values[i];
}
} // namespace

double evaluate(const Expr& e, const Values& v) {
    using K = Expr::Kind;
    switch (e.kind) {
    case K::number:
        return e.value;
    case K::parameter:
        return at(v.parameters, e.index, "a parameter");
    case K::position:
        return at(v.positions, e.index, "a position");
    case K::velocity:
        return at(v.velocities, e.index, "a velocity");
    case K::state:
        return at(v.states, e.index, "a state");
    case K::time:
        return v.time;
    case K::phase:
        return at(v.phases, e.index, "a phase");
    case K::vibration: {
        if (v.model == nullptr) {
            throw std::logic_error("evaluate: a vibration needs the model");
        }
        const Vibration& vib = v.model->vibrations.at(e.index);
        double theta = evaluate(*vib.phase, v);
        std::vector<double> phases(v.model->vibrations.size(), 0.0);
        phases[e.index] = theta;
        Values inner = v;
        inner.phases = phases;
        return evaluate(*vib.value, inner);
    }
    case K::negate:
        return -evaluate(*e.args[0], v);
    case K::add:
        return evaluate(*e.args[0], v) + evaluate(*e.args[1], v);
    case K::sub:
        return evaluate(*e.args[0], v) - evaluate(*e.args[1], v);
    case K::mul:
        return evaluate(*e.args[0], v) * evaluate(*e.args[1], v);
    case K::div:
        return evaluate(*e.args[0], v) / evaluate(*e.args[1], v);
    case K::pow:
        return std::pow(evaluate(*e.args[0], v), evaluate(*e.args[1], v));
    case K::call:
        return apply(e.function, evaluate(*e.args[0], v),
                     e.args.size() > 1 ? evaluate(*e.args[1], v) : 0.0);
    case K::compare:
        return compare(e.comparison, evaluate(*e.args[0], v), evaluate(*e.args[1], v));
    case K::select:
        return evaluate(*e.args[0], v) != 0.0 ? evaluate(*e.args[1], v) : evaluate(*e.args[2], v);
    }
    return std::nan("");
}

} // namespace mdl::check
