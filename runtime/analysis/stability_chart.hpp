// Stability charts: the verdict "stable or unstable" of a periodic solution over a grid of two
// parameters, with the boundaries between stable and unstable refined by bisection, so that
// the curves come out to a tolerance rather than to the grid's spacing (the Ince-Strutt
// diagram of the Mathieu equation; the stability region of the inverted pendulum with a
// vibrating pivot in amplitude and frequency). What decides a point's verdict is a callable:
// the library's Floquet multipliers of a model (mdl/stability_chart.hpp), or anything else.
//
//     ChartAxis a{"a", -2, 10, 61}, q{"q", 0, 5, 26};
//     StabilityChart chart = stability_chart(a, q, [](double a, double q) { ... }, {.threads = 2});
//     write_grid_csv(out, chart); write_boundary_csv(out, chart);
//
// The grid is evaluated first, points handed to the threads one at a time. Then every pair of
// neighbouring grid points (along either axis) whose verdicts differ, one stable and one
// unstable, is bisected along the segment between them until the bracket is narrower than
// `tolerance` times the axis' span (in log10 of the value on a logarithmic axis): one boundary
// point per such pair, located where the verdict changes. Brackets are refined concurrently.
//
// What a grid cannot show: a stable or unstable band narrower than the grid's spacing with the
// same verdict at both neighbours (the thin tongues of the Mathieu chart at small q), and more
// than one crossing between two neighbours (bisection finds one of them).
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace mdl::runtime::analysis {

// One parameter's range: `points` values from `lo` to `hi`, both included, evenly spaced (in
// log10 of the value when `log`, then lo and hi must be positive).
struct ChartAxis {
    std::string name;
    double lo = 0.0, hi = 1.0;
    std::size_t points = 2;
    bool log = false;

    double value(std::size_t i) const;
    // The value a fraction s of the way from a to b (s in [0, 1]; geometric on a log axis).
    double between(double a, double b, double s) const;
    // The axis' span in the coordinate that bisection halves: hi - lo, or log10(hi / lo).
    double span() const;
    // The distance from a to b in that coordinate.
    double distance(double a, double b) const;
};

// Throws std::invalid_argument naming the axis: fewer than 2 points, a bound that is not
// finite, lo == hi, or a logarithmic axis with a bound <= 0.
void check_axis(const ChartAxis& axis);

// What a point's periodic solution is: stable (every Floquet multiplier inside the unit circle
// or on it, within the caller's tolerance), unstable, or not decided (the solution could not
// be computed: `message` says why).
struct Verdict {
    enum class Kind { stable, unstable, failed };
    Kind kind = Kind::failed;
    double max_multiplier = std::numeric_limits<double>::quiet_NaN(); // max |mu|
    std::string message;

    static Verdict failure(std::string why) {
        Verdict v;
        v.message = std::move(why);
        return v;
    }
};

const char* to_string(Verdict::Kind kind); // "stable", "unstable", "failed"

// The verdict at (x, y), the two parameters' values. Called concurrently from `threads`
// threads: it must be thread-safe. An exception it throws becomes a failed verdict with the
// exception's message.
using VerdictFunction = std::function<Verdict(double x, double y)>;

struct ChartOptions {
    std::size_t threads = 1; // 0: one per hardware thread
    // Brackets are bisected until narrower than tolerance * (the span of the axis bisected).
    double tolerance = 1e-6;
    bool refine = true; // false: the grid's verdicts only
    // Called after each evaluation, from the thread that made it, with the evaluations done so
    // far and the number planned (the grid's, then the grid's plus the brackets'); return
    // false to stop: points not evaluated become failed verdicts ("stopped"), brackets stop
    // where they are. Must be thread-safe.
    std::function<bool(std::size_t done, std::size_t planned)> progress{};
};

// A point where the verdict changes, found by bisection between grid points (i, j) and
// (i + 1, j) (along x) or (i, j) and (i, j + 1) (along y).
struct BoundaryPoint {
    double x = 0.0, y = 0.0; // the middle of the last bracket
    bool along_x = true;
    std::size_t i = 0, j = 0;
    double width = 0.0;        // the last bracket's width, in the bisected coordinate
    bool converged = false;    // width <= tolerance * span (else: a failed point or a stop)
    bool stable_first = false; // the grid point (i, j) is the stable end
    // max |mu| just inside the bracket's ends: stable end, unstable end
    double stable_multiplier = 0.0, unstable_multiplier = 0.0;
};

struct StabilityChart {
    ChartAxis x, y;
    // x.points * y.points verdicts, x varying slowest: verdict (i, j) at i * y.points + j.
    std::vector<Verdict> verdicts;
    std::vector<BoundaryPoint> boundary; // ordered by (along_x, i, j)
    double tolerance = 0.0;
    std::size_t evaluations = 0; // calls of the verdict function
    bool stopped = false;        // the progress callback stopped it

    const Verdict& at(std::size_t i, std::size_t j) const { return verdicts[i * y.points + j]; }
    std::size_t count(Verdict::Kind kind) const;
};

// Evaluates the chart. Throws std::invalid_argument for a bad axis (check_axis), a tolerance
// that is not in (0, 1), or two axes with the same name.
StabilityChart stability_chart(const ChartAxis& x, const ChartAxis& y,
                               const VerdictFunction& verdict, const ChartOptions& options = {});

// The grid as CSV: <x name>,<y name>,verdict,max_multiplier,message (one row per point, in
// the order of `verdicts`; numbers in their shortest exact form).
void write_grid_csv(std::ostream& out, const StabilityChart& chart);
// The boundary points as CSV: <x name>,<y name>,along,i,j,width,converged,stable_side,
// stable_multiplier,unstable_multiplier (along: the bisected parameter's name; stable_side:
// "lower" when the stable end has the smaller bisected value, else "upper").
void write_boundary_csv(std::ostream& out, const StabilityChart& chart);

} // namespace mdl::runtime::analysis
