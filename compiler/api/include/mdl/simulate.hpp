// Simulation of a compiled model with any method of `mdl run` (classical integrators, HMM,
// stroboscopic averaging, stiff HMM), in-process: the same code the command line runs, so a
// host gets the numbers `mdl run` writes, bit for bit.
//
//     mdl::CompiledModel model = mdl::compile_file("models/kapitza.mdl");
//     mdl::SimulationSettings s;
//     s.method = "hmm";
//     s.stop = 1.0;
//     s.step = 1.0 / 80;
//     mdl::SimulationResult r = mdl::simulate(model, s);
//     r.t[i], r.positions[i * r.sizes.positions + j], r.statistics.force_evaluations
//
// Errors: std::invalid_argument for bad settings (the message names the option as `mdl run`
// does: "--step: ..."); mdl::NumericalFailure when the integration fails (time, variable or
// constraint, method). Nothing here calls exit().
#pragma once

#include "mdl/compiled_model.hpp"
#include "mdl/simulation_settings.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace mdl {

// A numerical failure of the integration: what went wrong ("non-finite value", "step size
// underflow", ...), at which time, in which variable or constraint, in which method. what()
// is the message `mdl run` prints after "mdl: error: ".
class NumericalFailure : public std::runtime_error {
public:
    NumericalFailure(const std::string& message, std::string kind, std::string method, double time,
                     std::string where, std::string detail);
    const std::string& kind() const { return kind_; }
    const std::string& method() const { return method_; }
    double time() const { return time_; }
    const std::string& where() const { return where_; } // "der(q)", "constraint 'rod'"; or ""
    const std::string& detail() const { return detail_; }

private:
    std::string kind_, method_;
    double time_;
    std::string where_, detail_;
};

// An estimate of a multiscale run's error at its end, made from the run itself and split into
// the parts the theory separates (docs/methods.md, "Error estimates"): the micro integration
// (the period map or the micro problems, from h and h/2), the macro integration (step
// doubling, an embedded pair, or a second-order macro's third differences), and the averaging
// (the 1/omega or epsilon terms and the filter's residual). Each is an estimate of the error it
// adds to the positions, in the max norm over the positions, at the stop time; `total` is
// their sum. `tolerance` is atol + rtol * (the largest |q_i| of the run), from --rtol and
// --atol (default 1e-3 and 1e-6): settings left to their defaults are refined until the
// estimate meets it (the run is repeated); a run whose estimate still exceeds it keeps the
// settings that were fixed and says so here (`total > tolerance`, `remedy`), or stops with a
// NumericalFailure when nothing was fixed.
struct ErrorEstimate {
    double total = 0.0;
    double micro = 0.0, macro = 0.0, averaging = 0.0;
    double tolerance = 0.0; // what the run was held to (from --rtol and --atol)
    std::string dominant;   // the largest part: "micro", "macro" or "averaging"
    double rtol = 0.0, atol = 0.0;
    std::size_t runs = 1; // runs made to meet the tolerance (1: the settings met it at once)
    // What the estimate cost beyond the method's own work (the method's counts exclude it).
    std::size_t estimate_force_evaluations = 0;
    // When total > tolerance: what would reduce the dominant part ("reduce --step", ...).
    std::string remedy;
    bool met() const { return total <= tolerance; }
};

// What a run cost and how it was set up.
struct SimulationStatistics {
    std::string method; // as run: "verlet", "hmm-shake", "strobo", ...
    double start = 0.0, stop = 0.0;
    std::size_t steps = 0;       // (macro) steps taken
    std::size_t rejected = 0;    // adaptive methods
    std::size_t micro_steps = 0; // multiscale methods
    std::size_t force_evaluations = 0;
    std::size_t rows = 0; // output rows
    double seconds = 0.0; // wall time of the integration
    bool stopped = false; // ended early by the observer (the last row is where it stopped)
    std::string summary;  // one line, as `mdl run` prints it: method, settings and cost
    // Multiscale methods (hmm, hmm-shake, hmm-rattle, hmm-stiff, strobo): the run's own
    // estimate of its error; empty for the classical methods.
    std::optional<ErrorEstimate> error_estimate;
    // What the run wants its caller to know, one line each, which the library does not print
    // (`mdl run` writes them on stderr): each start value the consistent start changed
    // ("consistent start: changed 'rod.x' from 0.4 to 0.3951 (by -0.0049)").
    std::vector<std::string> notes;
};

// The layout of an output row: the columns of `mdl run`'s CSV, in its order:
//   time, <positions>, der(<positions>), <states>, residual(<constraint>)...,
//   lambda(<constraint>)..., energy
// (residuals and multipliers when the model has constraints, energy when it is conservative).
struct OutputLayout {
    std::vector<std::string> columns;
    std::size_t positions = 0, states = 0, constraints = 0;
    bool residuals = false, multipliers = false, energy = false;
    // The model has events (when-clauses): rows at an event's time carry its name
    // (OutputRow::event), which the CSV writes as a last column `event` (docs/events.md).
    bool events = false;
};

// One output row as the observer sees it; the spans are valid during the call only.
struct OutputRow {
    double t = 0.0;
    std::span<const double> positions, velocities, states, residuals, multipliers;
    std::optional<double> energy;
    std::span<const double> values; // the whole row, in the layout's column order
    // Multiscale methods: the running error estimate (ErrorEstimate::total up to this row's
    // time, in position units); empty for the classical methods.
    std::optional<double> error_estimate;
    // At an event: its name, on the two rows at its time, before and after its reinits;
    // empty otherwise.
    std::string_view event;
};

// Called with each output row; return false to stop the run there (statistics.stopped).
using RowObserver = std::function<bool(const OutputRow& row)>;
// Called with the time of each integrator state (also those --every skips), for progress
// bars and cancellation; return false to stop the run there (the state becomes the last row).
using StepObserver = std::function<bool(double t)>;

// The size of what a run writes, before it starts: output rows x columns. Fixed-step
// methods, and adaptive ones with an output interval (--step), are counted from the settings:
// the states from start to stop, every `--every`-th of them and the last (rows of events,
// two per event, are not foreseen). An adaptive method writing every step has no count known
// in advance: its forecast is projected from the mean spacing of the states so far, after
// 10^3, 10^4, ... of them (`projected`, `states`).
struct OutputForecast {
    // At most 25 bytes a value in the CSV: 24 characters for the shortest form that reads
    // back as the same double ("-2.2250738585072014e-308"), and the separator.
    static constexpr double max_csv_value_bytes = 25.0;
    double rows = 0.0;
    std::size_t columns = 0; // the CSV's, the event column included
    bool projected = false;
    std::size_t states = 0; // projected: the states observed when projecting
    double max_csv_bytes() const {
        return rows * static_cast<double>(columns) * max_csv_value_bytes;
    }
};
// Called with the forecast before the run starts, and for an adaptive run writing every step
// with each projection.
using ForecastObserver = std::function<void(const OutputForecast& forecast)>;

// The whole trajectory, row by row: row i of a matrix is at [i * width, (i + 1) * width).
struct SimulationResult {
    OutputLayout layout;
    std::vector<double> t;
    std::vector<double> positions;   // rows x layout.positions
    std::vector<double> velocities;  // rows x layout.positions
    std::vector<double> states;      // rows x layout.states
    std::vector<double> residuals;   // rows x layout.constraints, or empty
    std::vector<double> multipliers; // rows x layout.constraints, or empty
    std::vector<double> energy;      // rows, or empty
    SimulationStatistics statistics;

    std::size_t rows() const { return t.size(); }
    // A column by its CSV name ("time", "q", "der(q)", "lambda(rod)", "energy"): rows values.
    // std::invalid_argument for a name not in the layout.
    std::vector<double> column(std::string_view name) const;
};

// The layout of the rows a run of `model` with `settings` writes.
OutputLayout output_layout(const CompiledModel& model);

// Runs `model` with its current parameters and `settings`; every row into the result.
SimulationResult simulate(const CompiledModel& model, const SimulationSettings& settings = {});

// The streaming form: each row to `rows` as it is computed (nothing kept), each state's time
// to `steps` (either may be empty). Returns the statistics. Rows written before a
// NumericalFailure stay valid: the observer has seen the trajectory up to the failure.
SimulationStatistics simulate(const CompiledModel& model, const SimulationSettings& settings,
                              const RowObserver& rows, const StepObserver& steps = {});
// The same, also telling `forecast` what the run will write (OutputForecast).
SimulationStatistics simulate(const CompiledModel& model, const SimulationSettings& settings,
                              const RowObserver& rows, const StepObserver& steps,
                              const ForecastObserver& forecast);

// What a run of `model` with `settings` would write, without running it; nullopt for an
// adaptive method writing every step (OutputForecast). Throws std::invalid_argument for bad
// settings, as simulate does.
std::optional<OutputForecast> forecast_output(const CompiledModel& model,
                                              const SimulationSettings& settings);

} // namespace mdl
