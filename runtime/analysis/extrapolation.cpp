#include "runtime/analysis/extrapolation.hpp"

#include "runtime/numerical_failure.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <string>

namespace mdl::runtime::analysis {

namespace {

constexpr const char* method_name = "extrapolation";

int substeps(int j) {
    return 2 * (j + 1);
}

} // namespace

Extrapolation::Extrapolation(Eigen::Index dimension, ExtrapolationOptions options)
    : options_(options) {
    for (int j = 0; j < columns; ++j) {
        previous_[static_cast<std::size_t>(j)].resize(dimension);
        current_[static_cast<std::size_t>(j)].resize(dimension);
    }
    f0_.resize(dimension);
    z0_.resize(dimension);
    z1_.resize(dimension);
    fz_.resize(dimension);
}

void Extrapolation::midpoint(const VectorField& f, double t, const Vector& y, double H, int n,
                             Vector& out) {
    const double h = H / n;
    z0_ = y;
    z1_ = y + h * f0_;
    for (int m = 1; m < n; ++m) {
        f(t + m * h, z1_, fz_);
        ++evaluations_;
        z0_ += 2.0 * h * fz_; // z_{m+1} = z_{m-1} + 2 h f(z_m)
        z0_.swap(z1_);
    }
    out = z1_;
}

double Extrapolation::error_norm(const Vector& y0, const Vector& y1, const Vector& d) const {
    const Eigen::Index size = y0.size();
    if (size == 0) {
        return 0.0;
    }
    double sum = 0.0;
    for (Eigen::Index i = 0; i < size; ++i) {
        const double scale =
            options_.atol + options_.rtol * std::max(std::abs(y0[i]), std::abs(y1[i]));
        const double e = d[i] / scale;
        sum += e * e;
    }
    return std::sqrt(sum / static_cast<double>(size));
}

std::size_t Extrapolation::integrate(const VectorField& f, double t0, double t1, Vector& y,
                                     double& h,
                                     const std::function<std::string(Eigen::Index)>& name) {
    if (!(t1 > t0)) {
        return 0;
    }
    const auto describe = [&](const Vector& d) {
        Eigen::Index at = 0;
        d.cwiseAbs().maxCoeff(&at);
        return name ? name(at) : fmt::format("component {}", at + 1);
    };
    double t = t0;
    if (!(h > 0.0)) {
        h = (t1 - t0) / 4.0;
    }
    f(t, y, f0_);
    ++evaluations_;
    std::size_t accepted = 0, attempts = 0;
    const double exponent = 1.0 / (2.0 * columns - 1.0);
    while (t < t1) {
        if (options_.max_steps > 0 && attempts >= options_.max_steps) {
            throw NumericalFailure(
                FailureKind::too_many_steps, method_name, t, describe(current_[0]),
                fmt::format("{} steps did not reach t = {} (rtol {}, atol {})", attempts,
                            format_number(t1), format_number(options_.rtol),
                            format_number(options_.atol)));
        }
        ++attempts;
        const bool last = t + h >= t1 - 4.0 * std::numeric_limits<double>::epsilon() * std::abs(t1);
        const double H = last ? t1 - t : h;
        if (H <= 16.0 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t))) {
            throw NumericalFailure(
                FailureKind::step_size_underflow, method_name, t, describe(current_[0]),
                fmt::format("step size {} below round-off of t", format_number(H)));
        }
        for (int j = 0; j < columns; ++j) {
            midpoint(f, t, y, H, substeps(j), current_[0]);
            // Aitken–Neville: T_{j,k} = T_{j,k-1} + (T_{j,k-1} - T_{j-1,k-1})/((n_j/n_{j-k})^2 - 1)
            if (j > 0) {
                // current_[0] holds T_{j,0}; build the row in place from the left
                for (int k = 1; k <= j; ++k) {
                    const auto uk = static_cast<std::size_t>(k);
                    const double ratio = static_cast<double>(substeps(j)) / substeps(j - k);
                    current_[uk] = current_[uk - 1] +
                                   (current_[uk - 1] - previous_[uk - 1]) / (ratio * ratio - 1.0);
                }
            }
            for (int k = 0; k <= j; ++k) {
                previous_[static_cast<std::size_t>(k)] = current_[static_cast<std::size_t>(k)];
            }
        }
        const Vector& best = current_[columns - 1];
        const Vector difference = best - current_[columns - 2];
        const double err = error_norm(y, best, difference);
        if (!std::isfinite(err)) {
            if (H > 1e-9 * (t1 - t0)) {
                h = H / 8.0; // a step into a region where the field overflows: retry smaller
                continue;
            }
            throw NumericalFailure(FailureKind::non_finite, method_name, t, describe(best),
                                   "the state became non-finite");
        }
        double factor = err == 0.0 ? 4.0 : 0.94 * std::pow(0.65 / err, exponent);
        factor = std::clamp(factor, 0.2, 4.0);
        if (err <= 1.0) {
            y = best;
            t = last ? t1 : t + H;
            ++accepted;
            if (t < t1) {
                f(t, y, f0_);
                ++evaluations_;
            }
            if (!last) {
                h = H * factor;
            }
        } else {
            h = H * std::min(factor, 0.9);
        }
    }
    return accepted;
}

} // namespace mdl::runtime::analysis
