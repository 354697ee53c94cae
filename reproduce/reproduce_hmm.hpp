// Reruns the experiments of Calvo & Sanz-Serna, "Heterogeneous multiscale methods for
// mechanical systems with vibrations" (Calvo & Sanz-Serna, SIAM J. Sci. Comput. 32 (2010)) with
// the reproduction settings of docs/hmm.md, and returns our numbers beside the paper's.
//
// The models come compiled by the caller (this library does not link the compiler):
// models/kapitza.mdl for Tables 2.1-2.3 and models/double_pendulum.mdl for Figure 4.1, with
// their start states and CompiledModel::force_even_in_phase(0).
#pragma once

#include "runtime/model.hpp"
#include "runtime/multiscale/hmm.hpp"
#include "runtime/state.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace mdl::runtime::multiscale {

// Q(t_k) of the averaged equation Q'' = (g/l - vmax^2/(2 l^2) cos Q) sin Q (eqs. 2.5-2.6) at
// t_k = t0 + k H, by our DOPRI5 at rtol = 1e-13 with dense output; g, l, vmax are the model's
// parameters, (Q(0), P(0)) the start state.
struct AveragedSolution {
    std::vector<double> t, Q;
};
AveragedSolution averaged_pendulum_solution(const Model& kapitza, const State& start, double H,
                                            double t_end = 1.0);

struct TableRow {
    std::string table; // "2.1", "2.2", "2.3"
    double H = 0.0;
    double omega = 0.0;
    double paper = 0.0; // the published error
    double ours = 0.0;  // max_n |Q_n - Q(t_n)|
    std::size_t paper_microsteps = 0;
    std::size_t microsteps = 0;
    std::size_t force_evaluations = 0;
    double seconds = 0.0;
};

// One HMM run of the Kapitza pendulum at the given omega (set on the model), its error
// against the averaged solution at the macro step points.
TableRow kapitza_error(Model& kapitza, const State& start, const HmmOptions& options, double omega,
                       const AveragedSolution& reference);

// The tables; `only_H` restricts to the listed macro steps (empty: every row the paper has).
// Table 2.1: synchronous, exponential kernel, eta = 40 periods, full window.
// Table 2.2: asynchronous, exponential kernel, eta = 40 periods, half window when even.
// Table 2.3: asynchronous, simple filtering.
std::vector<TableRow> reproduce_table_2_1(Model& kapitza, const State& start, bool force_even,
                                          const std::vector<double>& only_H = {});
std::vector<TableRow> reproduce_table_2_2(Model& kapitza, const State& start, bool force_even,
                                          const std::vector<double>& only_H = {});
std::vector<TableRow> reproduce_table_2_3(Model& kapitza, const State& start, bool force_even,
                                          const std::vector<double>& only_H = {});

// Figure 4.1: the vibrated double pendulum in descriptor form, SHAKE-SHAKE or RATTLE-SHAKE with
// simple filtering, T_macro = 0.4 s. Angles q1 = atan(x1/y1), q2 = atan((x2-x1)/(y2-y1)).
struct PendulumRun {
    double H = 0.0, omega = 0.0;
    std::vector<double> t, q1, q2, lambda1, lambda2;
    double max_residual = 0.0; // max over step points and constraints of |g_i|
    HmmStats stats;
    double seconds = 0.0;
};
PendulumRun run_double_pendulum(Model& pendulum, const State& start, HmmMacro macro, double H,
                                double omega, bool force_even);

// Markdown tables of rows (paper vs ours), grouped by table, and of pendulum runs.
std::string table_markdown(const std::vector<TableRow>& rows);
std::string pendulum_markdown(const std::vector<PendulumRun>& runs);

} // namespace mdl::runtime::multiscale
