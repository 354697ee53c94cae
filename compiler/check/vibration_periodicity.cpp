#include "check/vibration_periodicity.hpp"

#include "check/evaluate.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

namespace mdl::check {

namespace {

using K = Expr::Kind;

bool has_phase(const Expr& e) {
    return e.kind == K::phase || std::any_of(e.args.begin(), e.args.end(),
                                             [](const ExprPtr& a) { return has_phase(*a); });
}

// Affine in the phase: sums, differences and negations of phase-free terms and of the phase
// times (or divided by) phase-free factors.
bool affine_in_phase(const Expr& e) {
    if (!has_phase(e)) {
        return true;
    }
    switch (e.kind) {
    case K::phase:
        return true;
    case K::negate:
        return affine_in_phase(*e.args[0]);
    case K::add:
    case K::sub:
        return affine_in_phase(*e.args[0]) && affine_in_phase(*e.args[1]);
    case K::mul:
        return (!has_phase(*e.args[0]) && affine_in_phase(*e.args[1])) ||
               (!has_phase(*e.args[1]) && affine_in_phase(*e.args[0]));
    case K::div:
        return affine_in_phase(*e.args[0]) && !has_phase(*e.args[1]);
    default:
        return false;
    }
}

struct Prover {
    std::uint32_t index;
    std::span<const double> parameters;

    double at(const Expr& e, double theta) const {
        std::vector<double> phases(index + 1, 0.0);
        phases[index] = theta;
        Values v(parameters);
        v.phases = phases;
        return evaluate(e, v);
    }

    // k theta + c with k a nonzero whole number
    bool integer_multiple(const Expr& e) const {
        if (!affine_in_phase(e)) {
            return false;
        }
        const double k = at(e, 1.0) - at(e, 0.0);
        return std::isfinite(k) && k != 0.0 && std::abs(k - std::round(k)) <= 1e-12 * std::abs(k);
    }

    bool periodic(const Expr& e) const {
        if (!has_phase(e)) {
            return true;
        }
        if (e.kind == K::call &&
            (e.function == Function::sin || e.function == Function::cos ||
             e.function == Function::tan) &&
            integer_multiple(*e.args[0])) {
            return true;
        }
        switch (e.kind) {
        case K::phase:
            return false;
        case K::negate:
        case K::add:
        case K::sub:
        case K::mul:
        case K::div:
        case K::pow:
        case K::call:
        case K::compare:
        case K::select:
            return std::all_of(e.args.begin(), e.args.end(),
                               [&](const ExprPtr& a) { return periodic(*a); });
        default:
            return false;
        }
    }
};

} // namespace

Periodicity vibration_periodicity(const Expr& value, std::uint32_t index,
                                  std::span<const double> parameters) {
    const Prover prover{index, parameters};
    Periodicity out;
    if (prover.periodic(value)) {
        return out;
    }
    out.proved = false;
    constexpr double two_pi = 2.0 * std::numbers::pi;
    double scale = 0.0;
    std::vector<double> phases, values, shifted;
    for (int j = 0; j < 8; ++j) {
        const double theta = 0.1 + 0.77 * j; // irregular points over [0.1, 5.5]
        phases.push_back(theta);
        values.push_back(prover.at(value, theta));
        shifted.push_back(prover.at(value, theta + two_pi));
        scale = std::max({scale, std::abs(values.back()), std::abs(shifted.back())});
    }
    for (std::size_t j = 0; j < phases.size(); ++j) {
        const double gap = std::abs(values[j] - shifted[j]);
        if (!(gap <= 1e-9 * scale) && !(values[j] == shifted[j])) {
            out.periodic = false;
            out.phase = phases[j];
            out.value = values[j];
            out.shifted = shifted[j];
            return out;
        }
    }
    return out;
}

} // namespace mdl::check
