#include "runtime/analysis/floquet.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>

namespace mdl::runtime::analysis {

FloquetMultipliers floquet_multipliers(const Matrix& phi, bool autonomous, double tolerance) {
    FloquetMultipliers result;
    if (phi.size() == 0) {
        result.stable = true;
        return result;
    }
    const Eigen::MatrixXd dense = phi;
    Eigen::EigenSolver<Eigen::MatrixXd> solver(dense, false);
    const Eigen::VectorXcd mu = solver.eigenvalues();
    result.multipliers.assign(mu.data(), mu.data() + mu.size());
    std::sort(result.multipliers.begin(), result.multipliers.end(),
              [](const std::complex<double>& a, const std::complex<double>& b) {
                  const double ma = std::abs(a), mb = std::abs(b);
                  if (ma != mb) {
                      return ma > mb;
                  }
                  if (a.real() != b.real()) {
                      return a.real() > b.real();
                  }
                  return a.imag() > b.imag();
              });
    if (autonomous) {
        double closest = INFINITY;
        for (std::size_t i = 0; i < result.multipliers.size(); ++i) {
            const double d = std::abs(result.multipliers[i] - 1.0);
            if (d < closest) {
                closest = d;
                result.trivial = static_cast<int>(i);
            }
        }
    }
    for (std::size_t i = 0; i < result.multipliers.size(); ++i) {
        if (static_cast<int>(i) != result.trivial) {
            result.max_modulus = std::max(result.max_modulus, std::abs(result.multipliers[i]));
        }
    }
    result.stable = result.max_modulus <= 1.0 + tolerance;
    result.marginal = result.stable && result.max_modulus >= 1.0 - tolerance;
    return result;
}

const char* stability_name(const FloquetMultipliers& floquet) {
    if (!floquet.stable) {
        return "unstable";
    }
    return floquet.marginal ? "marginal" : "stable";
}

} // namespace mdl::runtime::analysis
