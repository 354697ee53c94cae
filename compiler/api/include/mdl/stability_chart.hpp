// Stability charts of a compiled model (mdl stability-chart): the Floquet stability of one
// periodic solution over a grid of two Real parameters, with the boundaries between stable
// and unstable refined by bisection (docs/analysis.md, "Stability charts").
//
//     mdl::CompiledModel model = mdl::compile_file("mathieu.mdl");
//     mdl::StabilityChartSettings s;
//     s.x = {"a", -1, 6, 71};
//     s.y = {"q", 0, 3, 31};
//     s.threads = 2;
//     mdl::StabilityChart chart = mdl::stability_chart(model, s);
//     chart.at(i, j).verdict, chart.boundary[k].x, ...
//
// At each grid point the two parameters are set on a copy of the parameters (no
// recompilation). The solution is either
// - the start state, with the values of `at` replacing some of its positions and velocities,
//   which must stay a solution under the forcing: an equilibrium of the forced model (the
//   Mathieu equation's zero solution; the upright position of a pendulum whose pivot vibrates
//   vertically). It is checked: after one period of the forcing the flow must return to it
//   (else the point fails, naming the distance); or
// - with `orbit`, the periodic orbit found by shooting from that state (each grid point from
//   the same guess).
// Its monodromy matrix over the period comes from the variational equations with the compiled
// Jacobian kernels (runtime/analysis/monodromy.hpp); the solution is stable when every Floquet
// multiplier (but the trivial one of an autonomous orbit) has |mu| <= 1 + stability_tolerance
// (a conservative system's stable solutions have every |mu| = 1).
//
// Errors: std::invalid_argument for bad settings (an unknown parameter or coordinate, a bad
// range) and for models the variational equations do not cover (constraints, first-order
// states, M(q), events), naming the option or the reason. A point whose solution cannot be
// computed (no common period, an integration failure, not a solution) is a `failed` point
// with the reason in its message; the chart goes on.
#pragma once

#include "mdl/compiled_model.hpp"

#include <cstddef>
#include <functional>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

namespace mdl {

// A parameter's range: `points` values from lo to hi, both included, evenly spaced (in log10
// of the value when `log`).
struct ChartRange {
    std::string name{};
    double lo = 0.0, hi = 1.0;
    std::size_t points = 2;
    bool log = false;
};

struct StabilityChartSettings {
    ChartRange x{}, y{}; // x varies slowest in the grid
    // Replaced values of the start state: ("q", 3.14159...) a position, ("der(q)", 0) a
    // velocity, by the names of the CSV columns.
    std::vector<ParameterValue> at{};
    // Instead: the periodic orbit found by shooting from that state (runtime/analysis/
    // shooting.hpp): of the forcing's period, or, in an autonomous model, of unknown period
    // (guessed from `period` or the flow's first return).
    bool orbit = false;
    double period = 0.0;                 // of the forcing; 0: the vibrations' common period
    double tolerance = 1e-6;             // boundaries: bracket <= tolerance * the range's span
    double stability_tolerance = 1e-6;   // stable: max |mu| <= 1 + this
    double periodicity_tolerance = 1e-8; // relative return of the solution after one period
    double rtol = 1e-12;                 // of the flow and variational equations
    std::size_t threads = 1;             // 0: one per hardware thread
    // Called after each point's evaluation (from the thread that made it) with the number done
    // and planned; return false to stop (thread-safe).
    std::function<bool(std::size_t done, std::size_t planned)> progress{};
};

struct ChartPoint {
    enum class Verdict { stable, unstable, failed };
    Verdict verdict = Verdict::failed;
    double max_multiplier = std::numeric_limits<double>::quiet_NaN(); // max |mu|
    std::string message{};                                            // failed: why
};

// Where the verdict changes between grid points (i, j) and (i + 1, j) (along_x) or (i, j + 1).
struct ChartBoundaryPoint {
    double x = 0.0, y = 0.0;
    bool along_x = true;
    std::size_t i = 0, j = 0;
    double width = 0.0;     // of the last bracket, in the bisected coordinate
    bool converged = false; // width <= tolerance * span
    bool stable_first = false;
    double stable_multiplier = 0.0, unstable_multiplier = 0.0;
};

struct StabilityChart {
    ChartRange x{}, y{};
    std::vector<double> x_values{}, y_values{};
    std::vector<ChartPoint> points{}; // x.points * y.points, (i, j) at i * y.points + j
    std::vector<ChartBoundaryPoint> boundary{};
    double tolerance = 0.0;
    std::size_t evaluations = 0; // monodromy matrices computed
    bool stopped = false;
    std::string solution{}; // what was asked: "the start state with q = 0"

    const ChartPoint& at(std::size_t i, std::size_t j) const { return points[i * y.points + j]; }
};

StabilityChart stability_chart(const CompiledModel& model, const StabilityChartSettings& settings);

// The grid's CSV: <x>,<y>,verdict,max_multiplier,message; the boundary's CSV:
// <x>,<y>,along,i,j,width,converged,stable_side,stable_multiplier,unstable_multiplier.
void write_chart_grid_csv(std::ostream& out, const StabilityChart& chart);
void write_chart_boundary_csv(std::ostream& out, const StabilityChart& chart);
// The chart as an SVG image: the stable region shaded, the boundaries drawn.
std::string stability_chart_svg(const StabilityChart& chart, const std::string& title = "");

} // namespace mdl
