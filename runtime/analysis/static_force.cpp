#include "runtime/analysis/static_force.hpp"

#include "runtime/numerical_failure.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace mdl::runtime {

namespace {

// Points per phase: 16 for one or two vibrations (exact for harmonics up to 15), fewer for
// more, keeping the grid at most 4096 points.
int points_per_phase(Eigen::Index vibrations) {
    const double per = std::pow(4096.0, 1.0 / static_cast<double>(vibrations));
    return std::clamp(static_cast<int>(std::floor(per + 1e-9)), 4, 16);
}

std::vector<Vector> phase_grid(Eigen::Index r) {
    std::vector<Vector> grid;
    if (r == 0) {
        return grid;
    }
    const int per = points_per_phase(r);
    std::vector<int> index(static_cast<std::size_t>(r), 0);
    while (true) {
        Vector theta(r);
        for (Eigen::Index i = 0; i < r; ++i) {
            theta[i] = 2 * std::numbers::pi * index[static_cast<std::size_t>(i)] / per;
        }
        grid.push_back(theta);
        std::size_t i = 0;
        while (i < index.size() && ++index[i] == per) {
            index[i++] = 0;
        }
        if (i == index.size()) {
            return grid;
        }
    }
}

} // namespace

StaticForce::StaticForce(const Model& model)
    : model_(model), phases_(phase_grid(model.vibrations())) {
    if (model.states() > 0) {
        throw std::invalid_argument(
            "model '" + model.name() + "' has first-order states ('" + model.state_name(0) +
            "'): an equilibrium and modes are defined here for mechanical models only (positions "
            "and velocities)");
    }
    if (model.rheonomic()) {
        throw std::invalid_argument(
            "model '" + model.name() +
            "' has constraints that depend on time (a moving anchor or a driven joint): a "
            "prescribed motion has no equilibrium");
    }
    if (!model.has_force_jacobians()) {
        throw std::invalid_argument("model '" + model.name() +
                                    "' was compiled without the force Jacobian kernels");
    }
}

void StaticForce::force_at(double t, const Vector& q, Vector& f) const {
    const Eigen::Index n = positions();
    const Vector v = Vector::Zero(n), x;
    f.setZero(n);
    if (phases_.empty()) {
        model_.force(t, q, v, x, Vector(), f);
        return;
    }
    Vector one(n);
    for (const Vector& theta : phases_) {
        model_.force(t, q, v, x, theta, one);
        f += one;
    }
    f /= static_cast<double>(phases_.size());
}

void StaticForce::jacobians_at(double t, const Vector& q, Matrix& f_q, Matrix& f_v) const {
    const Eigen::Index n = positions();
    const Vector v = Vector::Zero(n), x;
    f_q.setZero(n, n);
    f_v.setZero(n, n);
    if (phases_.empty()) {
        model_.force_jacobians(t, q, v, x, Vector(), f_q, f_v);
        return;
    }
    Matrix one_q(n, n), one_v(n, n);
    for (const Vector& theta : phases_) {
        model_.force_jacobians(t, q, v, x, theta, one_q, one_v);
        f_q += one_q;
        f_v += one_v;
    }
    f_q /= static_cast<double>(phases_.size());
    f_v /= static_cast<double>(phases_.size());
}

void StaticForce::force(const Vector& q, Vector& f) const {
    force_at(0.0, q, f);
}

void StaticForce::jacobians(const Vector& q, Matrix& f_q, Matrix& f_v) const {
    jacobians_at(0.0, q, f_q, f_v);
}

void StaticForce::check_autonomous(const Vector& q) const {
    if (!model_.time_dependent()) {
        return;
    }
    const Eigen::Index n = positions();
    Vector f0, f;
    Matrix q0, v0, fq, fv;
    force_at(0.0, q, f0);
    jacobians_at(0.0, q, q0, v0);
    const double scale = 1 + f0.lpNorm<Eigen::Infinity>() + q0.lpNorm<Eigen::Infinity>() +
                         v0.lpNorm<Eigen::Infinity>();
    for (const double t : {0.37, 1.3, 2.9, 7.1}) {
        force_at(t, q, f);
        jacobians_at(t, q, fq, fv);
        for (Eigen::Index i = 0; i < n; ++i) {
            const double change =
                std::max({std::abs(f[i] - f0[i]), (fq.row(i) - q0.row(i)).lpNorm<Eigen::Infinity>(),
                          (fv.row(i) - v0.row(i)).lpNorm<Eigen::Infinity>()});
            if (change > 1e-12 * scale) {
                throw std::invalid_argument(
                    "the force on '" + model_.position_name(i) + "' of model '" + model_.name() +
                    "' depends on time explicitly (it changes by " + format_number(change) +
                    " between t = 0 and t = " + format_number(t) +
                    "): modes need an autonomous model; write the forcing as a vibration "
                    "(averaged out) or set its amplitude to 0");
            }
        }
    }
}

} // namespace mdl::runtime
