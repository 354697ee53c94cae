// The linearized propagation of held rate errors (linearized_error.hpp).
#include "runtime/multiscale/linearized_error.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mdl::runtime::multiscale {

LinearizedErrorPropagation::LinearizedErrorPropagation(Eigen::Index n)
    : n_(n), J_(Matrix::Zero(n, n)), P_(Matrix::Zero(n, n)), W_(Matrix::Zero(n, n)), past_P_(n, 0),
      past_W_(n, 0) {}

void LinearizedErrorPropagation::set_jacobians(const Matrix& J, const Matrix& C) {
    J_ = J;
    C_ = C;
    norm_ = J.size() > 0 ? J.cwiseAbs().rowwise().sum().maxCoeff() : 0.0;
    if (C.size() > 0) {
        const double c = C.cwiseAbs().rowwise().sum().maxCoeff();
        norm_ += c * c;
    }
}

// The active group joins the past ones (unforced from now on).
void LinearizedErrorPropagation::retire_active() {
    if (!(rate_ > 0.0)) {
        return;
    }
    const Eigen::Index k = past_P_.cols();
    past_P_.conservativeResize(n_, k + n_);
    past_W_.conservativeResize(n_, k + n_);
    past_P_.rightCols(n_) = P_;
    past_W_.rightCols(n_) = W_;
    rates_.push_back(rate_);
    P_.setZero();
    W_.setZero();
    rate_ = 0.0;
}

void LinearizedErrorPropagation::set_rate(double rate) {
    if (rate_ > 0.0 && rates_.size() + 1 >= max_groups) {
        rate_ = std::max(rate_, rate);
        return;
    }
    retire_active();
    rate_ = rate > 0.0 ? rate : 0.0;
}

void LinearizedErrorPropagation::rk4(Matrix& P, Matrix& W, bool forced, double h) const {
    const auto accel = [&](const Matrix& p, const Matrix& w) {
        Matrix a = J_ * p;
        if (C_.size() > 0) {
            a.noalias() += C_ * w;
        }
        if (forced) {
            a.diagonal().array() += 1.0;
        }
        return a;
    };
    const Matrix k1p = W, k1w = accel(P, W);
    const Matrix P2 = P + 0.5 * h * k1p, W2 = W + 0.5 * h * k1w;
    const Matrix k2p = W2, k2w = accel(P2, W2);
    const Matrix P3 = P + 0.5 * h * k2p, W3 = W + 0.5 * h * k2w;
    const Matrix k3p = W3, k3w = accel(P3, W3);
    const Matrix P4 = P + h * k3p, W4 = W + h * k3w;
    const Matrix k4p = W4, k4w = accel(P4, W4);
    P += (h / 6.0) * (k1p + 2.0 * k2p + 2.0 * k3p + k4p);
    W += (h / 6.0) * (k1w + 2.0 * k2w + 2.0 * k3w + k4w);
}

void LinearizedErrorPropagation::advance(double dt) {
    if (!(dt > 0.0) || (rate_ == 0.0 && rates_.empty())) {
        return;
    }
    // sub-steps of at most 0.25/sqrt(|J| + |C|^2): RK4 resolves the slow oscillation or growth
    const double growth = dt * std::sqrt(norm_);
    if (unbounded_ || !(growth <= max_growth)) {
        unbounded_ = true; // e^1000 and more: nothing to propagate (position() is infinite)
        return;
    }
    const std::size_t substeps =
        std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(growth / 0.25)));
    const double h = dt / static_cast<double>(substeps);
    for (std::size_t k = 0; k < substeps; ++k) {
        if (rate_ > 0.0) {
            rk4(P_, W_, true, h);
        }
        if (!rates_.empty()) {
            rk4(past_P_, past_W_, false, h);
        }
    }
}

double LinearizedErrorPropagation::position() const {
    if (unbounded_) {
        return std::numeric_limits<double>::infinity();
    }
    // a group's response in the worst direction: the largest row sum of |P|
    const auto worst = [&](const auto& P) {
        return P.cwiseAbs().rowwise().sum().maxCoeff();
    };
    double sum = rate_ > 0.0 ? rate_ * worst(P_) : 0.0;
    for (std::size_t i = 0; i < rates_.size(); ++i) {
        sum += rates_[i] * worst(past_P_.middleCols(static_cast<Eigen::Index>(i) * n_, n_));
    }
    return sum;
}

} // namespace mdl::runtime::multiscale
