// Reruns the inverted-pendulum experiments of Calvo, Chartier, Murua & Sanz-Serna, "A
// stroboscopic numerical method for highly oscillatory problems"
// (Calvo, Chartier, Murua & Sanz-Serna, Springer LNCSE 82 (2012), Sect. IV(A)) with the
// reproduction settings of docs/stroboscopic.md, and returns our numbers beside the paper's.
//
// The model comes compiled by the caller (this library does not link the compiler):
// models/kapitza_eps.mdl, q'' = (g + a)/l sin q, a = (vmax/eps) cos(t/eps + theta0), with its
// start state (q(0) = 0.25, p(0) = 0). eps is set on the model for each column.
//
// Settings: macro and micro RK4, H = (2 pi/50)/2^nu, h = (2 pi eps/10)/2^nu, floor(T/H) macro
// steps, T = 1; error = max over the macro points t_n = n H (stroboscopic times) of
// |q_n - q(t_n)| (and |p_n - p(t_n)|) against our DOPRI5 on the oscillatory problem at
// rtol = 1e-13, which lands exactly on every t_n.
#pragma once

#include "runtime/model.hpp"
#include "runtime/multiscale/stroboscopic.hpp"
#include "runtime/state.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace mdl::runtime::multiscale {

// q and p on the grid t_k = t0 + k dt, k = 0..floor((t_end - t0)/dt).
struct GridSolution {
    double eps = 0.0;
    double dt = 0.0;
    std::vector<double> t, q, p;
};

// The oscillatory problem itself, by the runtime's DOPRI5 (rtol, atol = rtol/10), stopping
// exactly at every grid point. Sets eps on the model.
GridSolution oscillatory_reference(Model& kapitza_eps, const State& start, double eps, double dt,
                                   double t_end = 1.0, double rtol = 1e-13);

// The eps -> 0 limit of the stroboscopic samples, an independent computation: the
// first-order averaged pendulum Q' = P, P' = (g/l) sin Q - vmax^2/(2 l^2) sin Q cos Q, with
// P = p - (vmax/l) sin(t/eps + theta0) sin q, so that at the stroboscopic times (phase
// theta0) q = Q + O(eps) and p = P + (vmax/l) sin(theta0) sin Q + O(eps). DOPRI5 at rtol 1e-13.
GridSolution averaged_limit_reference(const Model& kapitza_eps, const State& start, double dt,
                                      double t_end = 1.0);

// One stroboscopic run (RK4/RK4, the paper's h for this H) against a reference on a grid
// that contains every t_n = n H.
struct StroboRun {
    int order = 4;
    double H = 0.0, eps = 0.0;
    double q_error = 0.0, p_error = 0.0; // max over the macro points
    StroboscopicStats stats;
    double seconds = 0.0;
};
StroboRun stroboscopic_error(Model& kapitza_eps, const State& start, int order, double H,
                             double eps, const GridSolution& reference);

// The paper's micro steps per period for H = (2 pi/50)/2^nu: 10 * 2^nu.
std::size_t paper_micro_steps_per_period(double H);

struct StroboRow {
    std::string table; // "q4" (max error in q, 4th order), "p4" (in p), "q2" (q, 2nd order)
    double H = 0.0;
    double eps = 0.0;
    double paper = 0.0; // the published error
    double ours = 0.0;
    std::size_t paper_microsteps = 0;
    std::size_t microsteps = 0;
    std::size_t force_evaluations = 0;
    double seconds = 0.0;
};

// The published tables; `only_H` / `only_eps` restrict the entries (empty: every entry the
// paper has, H = pi/25 .. pi/1600). One run serves the q4 and p4 entries of the same (H, eps).
std::vector<StroboRow> reproduce_stroboscopic_tables(Model& kapitza_eps, const State& start,
                                                     const std::vector<std::string>& tables,
                                                     const std::vector<double>& only_H = {},
                                                     const std::vector<double>& only_eps = {});

// The paper's remark: eps = 1e-9 at the cost of eps = 1/400 and accurate. Error against
// averaged_limit_reference, with the paper's 1/3200 entry (whose eps^4 part is negligible)
// as the expected value.
StroboRow tiny_eps_row(Model& kapitza_eps, const State& start, double H, double eps = 1e-9);

// Markdown tables: paper vs ours, one table per kind, with microsteps.
std::string stroboscopic_markdown(const std::vector<StroboRow>& rows);

} // namespace mdl::runtime::multiscale
