// Pseudo-arclength continuation of periodic orbits in one parameter (Keller; Doedel, Keller
// & Kernévez, "Numerical analysis and control of bifurcation problems (II)", Int. J.
// Bifurcation and Chaos 1 (1991); Seydel, Practical Bifurcation and Stability Analysis,
// Springer): the shooting equations R(z) = 0 of shooting.hpp with the parameter lambda among
// the unknowns, z = (y0[, T], lambda), followed along the arclength s of the branch:
//     predictor  z* = z_k + ds tau_k,
//     corrector  Newton on [R(z); tau_k . (z - z*)] = 0,
//     tangent    [dR/dz; tau_k^T] tau_{k+1} = [0; 1], normalized,
// so the branch passes turning points (folds), where lambda turns back. dR/dy0 = Phi - I
// and dR/dT come from the monodromy (variational equations); dR/dlambda by a forward
// difference quotient of the end state (no kernel gives df/dp). The step ds grows by 1.5
// after an easy corrector (<= 3 iterations), is halved when Newton fails or the tangent
// turns by more than 30 degrees, and the continuation stops when ds falls below ds_min.
//
// Stability at each point from the Floquet multipliers. Bifurcations are detected by sign
// changes of test functions between consecutive points and located by the secant method
// (Illinois) on the arclength:
//     fold              the tangent's lambda component (a real multiplier through +1);
//     period doubling   prod (mu_i + 1) (a real multiplier through -1);
//     Neimark-Sacker    prod_{i<j} (mu_i mu_j - 1) (a complex pair through the unit circle;
//                       a neutral saddle, mu_i mu_j = 1 with real mu, is not reported).
// A forced branch also has its peak: the largest amplitude, by a parabola through the three
// points around it.
#pragma once

#include "runtime/analysis/shooting.hpp"

#include <string>
#include <vector>

namespace mdl::runtime::analysis {

struct ContinuationOptions {
    std::string parameter;       // the continued parameter's name
    double from = 0.0, to = 0.0; // start at `from`; stop where the branch leaves [from, to]
    double ds = 0.05;            // first step (arclength in (y0[, T], lambda))
    double ds_min = 1e-7;
    double ds_max = 0.2;
    int max_points = 5000;
    double period = 0.0; // a forced model with explicit time: its period; autonomous: a guess
    ShootingOptions shooting = {};
    Eigen::Index samples = 256; // RK4 steps per period for the amplitudes (error ~1e-8)
};

struct BranchPoint {
    double parameter = 0.0;
    double period = 0.0;
    Vector q, v;      // the orbit's state at t = 0
    Vector amplitude; // per position: (max - min)/2 over one period
    FloquetMultipliers floquet;
    std::string label;  // "", "start", "end", "fold", "period-doubling", "neimark-sacker",
                        // "peak"
    int iterations = 0; // Newton iterations of the corrector
};

struct Branch {
    std::vector<BranchPoint> points; // in the order of the branch, labelled points inserted
    bool autonomous = false;
    std::string stop;            // why the continuation stopped ("reached Omega = 2", ...)
    std::size_t evaluations = 0; // right-hand side evaluations
};

// Continues the periodic orbit through the guess (q, v) at lambda = from. The model's other
// parameters keep their values. Throws MethodNotApplicable for a model Flow refuses or an
// unknown parameter, NumericalFailure when the first orbit is not found.
Branch continue_orbits(const Model& model, const Vector& q, const Vector& v,
                       const ContinuationOptions& options);

// (max - min)/2 of each position over the sampled period (samples from Flow::samples), the
// extremes refined by a parabola through the sample and its neighbours.
Vector amplitudes(const Matrix& samples, Eigen::Index positions);

} // namespace mdl::runtime::analysis
