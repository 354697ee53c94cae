// The static force of a model: f(t, q, v = 0) and its Jacobians df/dq, df/dv at v = 0, what an
// equilibrium and its linearization need (equilibrium.hpp, linearization.hpp).
//
// Vibrations are switched off by averaging over their phases: the force and its Jacobians are
// the mean over a uniform grid of phases theta_i in [0, 2 pi) (each vibration on its own axis,
// as if the frequencies were incommensurate). The trapezoidal rule on a periodic function is
// exact for trigonometric polynomials of degree below the number of points, so a forcing
// F cos(theta) drops out and a parametric load (g + a cos(theta)) y keeps its mean g y. This is
// the model without its vibrations, not Kapitza's averaged (effective) potential, whose
// second-order terms in 1/omega are a multiscale method's business (docs/analysis.md).
//
// Models outside the scope throw std::invalid_argument naming the reason: first-order states
// (their rates are not part of a mechanical equilibrium), rheonomic constraints (a prescribed
// motion has no equilibrium) and, found by check_autonomous at the equilibrium, a force that
// depends on time explicitly.
#pragma once

#include "runtime/model.hpp"

#include <vector>

namespace mdl::runtime {

class StaticForce {
public:
    // Throws std::invalid_argument for a model outside the scope above.
    explicit StaticForce(const Model& model);

    const Model& model() const { return model_; }
    Eigen::Index positions() const { return model_.positions(); }
    // Whether the model has vibrations, averaged over their phases.
    bool averaged() const { return !phases_.empty(); }
    // The number of phase points averaged over (1 without vibrations).
    std::size_t samples() const { return phases_.empty() ? 1 : phases_.size(); }

    void force(const Vector& q, Vector& f) const;                    // n
    void jacobians(const Vector& q, Matrix& f_q, Matrix& f_v) const; // n x n each

    // The force and its Jacobians at q do not change with time (evaluated at a few times
    // besides t = 0); std::invalid_argument naming the coordinate whose force does.
    void check_autonomous(const Vector& q) const;

private:
    void force_at(double t, const Vector& q, Vector& f) const;
    void jacobians_at(double t, const Vector& q, Matrix& f_q, Matrix& f_v) const;

    const Model& model_;
    std::vector<Vector> phases_; // the grid of phase vectors; empty without vibrations
};

} // namespace mdl::runtime
