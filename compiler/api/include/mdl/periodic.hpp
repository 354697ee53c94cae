// Periodic orbits, their Floquet stability and their continuation in a parameter, from a
// compiled model (docs/analysis.md; `mdl periodic`, `mdl continue`).
//
//     mdl::CompiledModel m = mdl::compile_file("models/duffing_response.mdl");
//     mdl::PeriodicOrbit orbit = mdl::periodic_orbit(m);        // period from the vibration
//     orbit.period, orbit.q, orbit.multipliers, orbit.stable
//     mdl::ContinuationSettings s{.parameter = "Omega", .from = 0.5, .to = 2};
//     mdl::Branch branch = mdl::continuation(m, s);             // folds located and labelled
//
// The orbit is found by single shooting with Newton's method on the monodromy matrix, which
// the variational equations give from the compiled Jacobian kernels df/dq, df/dv; its
// eigenvalues are the Floquet multipliers. A forced model's period is the common period of
// its vibrations (or `period`, which a force with explicit `time` needs); an autonomous
// model's period is an unknown (`period` is then a first guess, else one is found from a
// return of the flow). Models with constraints, first-order states, M(q) or events are not
// supported yet (std::invalid_argument with the reason). Newton's failure is an
// mdl::NumericalFailure naming the iterations, the residual and the parameter values.
#pragma once

#include "mdl/compiled_model.hpp"

#include <complex>
#include <string>
#include <vector>

namespace mdl {

struct PeriodicSettings {
    std::vector<ParameterValue> parameters; // set on a copy of the model first
    double period = 0.0;                    // 0: from the model (see above)
    std::vector<double> q, v;               // first guess at t = 0; empty: the start values
    double tolerance = 1e-10;               // Newton: max |residual| relative to max(1, |y|)
    int max_iterations = 40;
    std::size_t samples = 200; // rows of the orbit over one period (plus the closing row)
};

struct PeriodicOrbit {
    double period = 0.0;
    bool autonomous = false;
    std::vector<double> q, v;                      // the state at t = 0
    std::vector<std::complex<double>> multipliers; // by decreasing modulus
    int trivial = -1;              // index of an autonomous orbit's trivial multiplier 1; -1
    double max_modulus = 0.0;      // largest |mu| other than the trivial one
    bool stable = false;           // max_modulus <= 1 + 1e-6
    std::string stability;         // "stable", "marginal" (on the unit circle) or "unstable"
    std::vector<double> monodromy; // 2n x 2n, row-major, in (q, v)
    int iterations = 0;
    double residual = 0.0;
    std::vector<std::string> columns; // time, positions, velocities
    std::vector<double> orbit;        // samples + 1 rows x columns, row-major
};

PeriodicOrbit periodic_orbit(const CompiledModel& model, const PeriodicSettings& settings = {});

struct ContinuationSettings {
    std::string parameter;
    double from = 0.0, to = 0.0;
    std::vector<ParameterValue> parameters; // other parameters, set first
    double ds = 0.05;                       // first arclength step
    double ds_min = 1e-7;
    double ds_max = 0.2;
    int max_points = 5000;
    double period = 0.0;      // as PeriodicSettings::period
    std::vector<double> q, v; // first guess at `from`; empty: the start values
    double tolerance = 1e-10;
    std::size_t samples = 256; // RK4 steps per period for the amplitudes
};

struct BranchPoint {
    double parameter = 0.0;
    double period = 0.0;
    std::vector<double> q, v;      // the orbit's state at t = 0
    std::vector<double> amplitude; // per position: (max - min)/2 over a period
    std::vector<std::complex<double>> multipliers;
    double max_modulus = 0.0;
    bool stable = false;
    std::string stability;
    // "", "start", "end", "fold", "period-doubling", "neimark-sacker" or "peak"
    std::string label;
};

struct Branch {
    std::string parameter;
    bool autonomous = false;
    std::vector<std::string> positions;  // names
    std::vector<std::string> velocities; // names
    std::vector<BranchPoint> points;
    std::string stop;            // why the continuation stopped
    std::size_t evaluations = 0; // right-hand side evaluations

    // The table `mdl continue --csv` writes: parameter, period, amplitude(q_i)..., q_i...,
    // der(q_i)..., mu<j>_re, mu<j>_im..., max_abs_mu, stable (1/0); the labels apart
    // (labels()).
    std::vector<std::string> columns() const;
    std::vector<double> table() const; // points x columns, row-major
    std::vector<std::string> labels() const;
};

Branch continuation(const CompiledModel& model, const ContinuationSettings& settings);

} // namespace mdl
