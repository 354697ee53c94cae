// Gragg–Bulirsch–Stoer extrapolation of the explicit midpoint rule for y' = F(t, y), with
// step-size control (Hairer, Nørsett & Wanner, Solving Ordinary Differential Equations I,
// Springer, Sect. II.9): each step H takes the midpoint rule with n_j = 2, 4, ..., 2K
// substeps and extrapolates the results to h = 0 (Aitken–Neville in h^2), an order-2K
// method. The difference of the last two extrapolated values estimates the error of the
// lower one; the step is accepted when
//   err = sqrt(1/N sum_i (d_i / (atol + rtol max(|y0_i|, |y1_i|)))^2) <= 1
// and the next size is H (0.65/err)^(1/(2K-1)), clipped to [H/5, 4H]. At tolerances of
// 1e-10..1e-13 on smooth fields this takes a few steps per period where Dormand–Prince 5(4)
// takes hundreds: the periodic-orbit solvers (monodromy.hpp) integrate the flow and its
// variational equations over one period with it.
#pragma once

#include "runtime/state.hpp"

#include <array>
#include <cstddef>
#include <functional>

namespace mdl::runtime::analysis {

// dydt <- F(t, y); dydt has y's size.
using VectorField = std::function<void(double t, const Vector& y, Vector& dydt)>;

struct ExtrapolationOptions {
    double rtol = 1e-12;
    double atol = 1e-12;
    std::size_t max_steps = 100000; // accepted plus rejected, per integrate() call
};

class Extrapolation {
public:
    static constexpr int columns = 7; // K: substeps 2, 4, ..., 14; order 14

    Extrapolation(Eigen::Index dimension, ExtrapolationOptions options = {});

    // y(t0) -> y(t1), t1 > t0 (t1 == t0: nothing). h is the first step's size (<= 0: a
    // guess of (t1 - t0)/4) and returns the last proposed size, for the next call. Returns
    // the number of accepted steps. Throws NumericalFailure (method "extrapolation", the time)
    // when y becomes non-finite, the step size underflows or max_steps is exhausted; `name`
    // names the component whose error dominates then.
    std::size_t integrate(const VectorField& f, double t0, double t1, Vector& y, double& h,
                          const std::function<std::string(Eigen::Index)>& name = {});

    std::size_t evaluations() const { return evaluations_; }
    const ExtrapolationOptions& options() const { return options_; }

private:
    // The midpoint rule with n substeps of H/n from (t, y) with slope f0: result in out.
    void midpoint(const VectorField& f, double t, const Vector& y, double H, int n, Vector& out);
    double error_norm(const Vector& y0, const Vector& y1, const Vector& d) const;

    ExtrapolationOptions options_;
    std::array<Vector, columns> previous_; // row j-1 of the tableau
    std::array<Vector, columns> current_;  // row j
    Vector f0_, z0_, z1_, fz_;
    std::size_t evaluations_ = 0;
};

} // namespace mdl::runtime::analysis
