// The propagation of a multiscale run's rate errors (an error in the averaged acceleration,
// held between the samples that measure it) through the linearized slow flow, instead of free
// motion (error_estimate.hpp, ErrorAccumulator). Free motion turns an acceleration error da
// held for a time tau into a position error da tau^2/2: exact for a drifting motion, but about
// a stable equilibrium of the averaged motion (the Kapitza pendulum held up by its vibration)
// the error stays bounded, near 2 da/w^2 for a slow frequency w, and the free-motion estimate
// is many times too large; where the slow motion amplifies errors it is too small.
//
// Here the error obeys the variational equation of the averaged motion X'' = A(t, X, V),
//   e'' = J e + C e' + da,   J = dA/dX, C = dA/dV,
// with J and C measured by the method (finite differences of the averaged force, at the rate
// samples) and held between samples. Each held rate acts from its sample to the next (a
// group); since only its size is known, a group's contribution is its size times the largest
// response over the directions (the max-norm of the position response to a unit acceleration
// in each coordinate), and the groups add in absolute value. With J = C = 0 this is the
// free-motion estimate; the linearized flow makes it tight about stable equilibria and larger
// where the motion is unstable. It is first-order: like the rates, the Jacobians are samples.
#pragma once

#include "runtime/state.hpp"

#include <cstddef>
#include <vector>

namespace mdl::runtime::multiscale {

class LinearizedErrorPropagation {
public:
    explicit LinearizedErrorPropagation(Eigen::Index n = 0);

    // The slow flow's Jacobians from now on: J = dA/dX and C = dA/dV (n x n; C may be empty:
    // no velocity dependence).
    void set_jacobians(const Matrix& J, const Matrix& C);
    // A held acceleration error of size `rate` from now on (the previous one stops acting).
    void set_rate(double rate);
    // Propagates every group over dt (RK4 sub-steps resolving the slow frequencies).
    void advance(double dt);
    // The position error so far: the sum over the groups of their size times the max-norm of
    // their position response; infinite once a step's slow flow grew faster than the
    // propagation resolves (dt sqrt(|J| + |C|^2) above max_growth: an amplification beyond
    // e^max_growth, where the linearization says nothing).
    double position() const;
    std::size_t groups() const { return rates_.size() + (rate_ > 0.0 ? 1 : 0); }

private:
    // P' = W, W' = J P + C W (+ I when forced): one RK4 step of h on the columns of P and W
    void rk4(Matrix& P, Matrix& W, bool forced, double h) const;
    void retire_active();

    Eigen::Index n_ = 0;
    Matrix J_, C_;
    double norm_ = 0.0; // a bound on |J| + |C|^2, for the sub-steps
    // The response of e to a unit acceleration in each coordinate: positions P and velocities W
    // (n x n, column j for coordinate j). The active group's is forced; the past groups' evolve
    // side by side, n columns each, with their sizes in `rates_`.
    Matrix P_, W_, past_P_, past_W_;
    double rate_ = 0.0; // the active group's size (0: none)
    std::vector<double> rates_;
    // Groups beyond this many: a new rate enlarges the active group's size instead (held at the
    // largest rate sampled, as a held rate is an assumption anyway) so the cost stays bounded.
    static constexpr std::size_t max_groups = 64;
    static constexpr double max_growth = 1000.0;
    bool unbounded_ = false;
};

} // namespace mdl::runtime::multiscale
