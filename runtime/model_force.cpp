#include "runtime/model_force.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mdl::runtime {

ModelForce::ModelForce(const Model& model)
    : model_(&model), theta_(Vector::Zero(model.vibrations())),
      omega_(Vector::Zero(model.vibrations())), theta0_(Vector::Zero(model.vibrations())),
      shifted_(Vector::Zero(model.positions())), f_plus_(Vector::Zero(model.positions())),
      f_minus_(Vector::Zero(model.positions())) {
    model.phase_rates(omega_);
}

void ModelForce::set_phase_origin(double t0, const Vector& theta0, double time_offset) {
    model_->phase_rates(omega_); // parameters may have changed since construction
    t0_ = t0;
    time_offset_ = time_offset;
    theta0_ = theta0;
    phase_origin_set_ = true;
}

const Vector& ModelForce::phases_at(double t) {
    if (phase_origin_set_) {
        theta_ = theta0_ + omega_ * (t - t0_);
    } else {
        model_->phases(t, theta_);
    }
    return theta_;
}

void ModelForce::acceleration(double t, const Vector& q, const Vector& v, const Vector& x,
                              Vector& a) {
    ++evaluations_;
    if (model_->mass_constant_diagonal()) {
        model_->acceleration(t + time_offset_, q, v, x, phases_at(t), a);
        return;
    }
    model_->force(t + time_offset_, q, v, x, phases_at(t), a);
    model_->mass_matrix(q, mass_);
    solve_mass_matrix(*model_, t + time_offset_, mass_, llt_.llt, a);
}

void ModelForce::solve_last_mass(Matrix& B) const {
    if (model_->mass_constant_diagonal()) {
        B.array().colwise() *= model_->inverse_mass().array();
        return;
    }
    llt_.llt.solveInPlace(B);
}

void ModelForce::rates(double t, const Vector& q, const Vector& v, const Vector& x, Vector& xdot) {
    model_->rates(t + time_offset_, q, v, x, phases_at(t), xdot);
}

void ModelForce::force_jacobian_values(double t, const Vector& q, const Vector& v, const Vector& x,
                                       double* f_q, double* f_v) {
    const Vector& theta = phases_at(t);
    const std::vector<double>& p = model_->parameters();
    const mdl_kernel_args a{t + time_offset_,
                            q.size() ? q.data() : nullptr,
                            v.size() ? v.data() : nullptr,
                            x.size() ? x.data() : nullptr,
                            theta.size() ? theta.data() : nullptr,
                            p.empty() ? nullptr : p.data()};
    const mdl_kernels& k = model_->kernels();
    k.force_dq_values(&a, f_q);
    k.force_dv_values(&a, f_v);
}

void ModelForce::acceleration_jacobians(double t, const Vector& q, const Vector& v, const Vector& x,
                                        Matrix& a_q, Matrix& a_v) {
    const Vector& theta = phases_at(t);
    t += time_offset_;
    const Vector& inverse_mass = model_->inverse_mass();
    if (model_->has_force_jacobians()) {
        model_->force_jacobians(t, q, v, x, theta, a_q, a_v);
    } else {
        // Central differences, step ~ cbrt(eps) relative: error O(eps^(2/3)), enough for
        // Newton's matrix (the residual is exact, only convergence speed depends on it).
        const double root = std::cbrt(std::numeric_limits<double>::epsilon());
        const Eigen::Index n = q.size();
        for (int which = 0; which < 2; ++which) {
            const Vector& base = which == 0 ? q : v;
            Matrix& out = which == 0 ? a_q : a_v;
            if (which == 1 && !model_->velocity_dependent()) {
                out.setZero();
                continue;
            }
            for (Eigen::Index j = 0; j < n; ++j) {
                const double step = root * std::max(1.0, std::abs(base[j]));
                const double up = base[j] + step;
                const double down = base[j] - step;
                shifted_ = base;
                shifted_[j] = up;
                if (which == 0) {
                    model_->force(t, shifted_, v, x, theta, f_plus_);
                } else {
                    model_->force(t, q, shifted_, x, theta, f_plus_);
                }
                shifted_[j] = down;
                if (which == 0) {
                    model_->force(t, shifted_, v, x, theta, f_minus_);
                } else {
                    model_->force(t, q, shifted_, x, theta, f_minus_);
                }
                out.col(j) = (f_plus_ - f_minus_) / (up - down);
            }
        }
        evaluations_ += static_cast<std::size_t>(4 * n);
    }
    if (!model_->mass_constant_diagonal()) {
        model_->mass_matrix(q, mass_);
        llt_.llt.compute(mass_);
        a_q = llt_.llt.solve(a_q);
        a_v = llt_.llt.solve(a_v);
        return;
    }
    for (Eigen::Index i = 0; i < a_q.rows(); ++i) {
        a_q.row(i) *= inverse_mass[i];
        a_v.row(i) *= inverse_mass[i];
    }
}

} // namespace mdl::runtime
