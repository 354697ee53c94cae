// The drivers of every method of `mdl run`: the method chosen and its driver run
// (method_runs.hpp: one file a method; what they share in simulation_driver.hpp), its output
// rows handed to the host; the result's columns. The command line, `mdl sweep`, the C API and
// the Python module all run simulations through here.
#include "mdl/simulate.hpp"

#include "compiler/api/method_runs.hpp"
#include "compiler/api/multiscale_setup.hpp"
#include "compiler/api/option_checks.hpp"
#include "compiler/api/runtime_view.hpp"
#include "runtime/methods.hpp"
#include "runtime/multiscale/hmm.hpp"
#include "runtime/multiscale/stiff_hmm.hpp"
#include "runtime/multiscale/stroboscopic.hpp"
#include "runtime/numerical_failure.hpp"
#include "runtime/output/output_rows.hpp"
#include "runtime/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>
#include <numbers>
#include <string_view>
#include <utility>

namespace mdl {

bool is_multiscale_method(std::string_view method) {
    return method == "strobo" || method.starts_with("hmm");
}

MultiscaleSetup multiscale_setup(const SimulationSettings& settings, const CompiledModel& compiled,
                                 const std::string& method) {
    validate_settings(settings);
    MultiscaleSetup setup;
    setup.method = method;
    SimulationStatistics r;
    if (method == "strobo") {
        setup.options = simulation::strobo_options(settings, compiled, r);
    } else if (method == "hmm-stiff") {
        setup.options = simulation::stiff_hmm_options(settings, compiled, r, setup.omega_source);
    } else if (simulation::is_hmm(method)) {
        setup.options = simulation::hmm_options(settings, compiled, method, r);
    } else {
        throw std::invalid_argument("not a multiscale method: " + method);
    }
    setup.start = r.start;
    setup.stop = r.stop;
    return setup;
}

NumericalFailure::NumericalFailure(const std::string& message, std::string kind, std::string method,
                                   double time, std::string where, std::string detail)
    : std::runtime_error(message), kind_(std::move(kind)), method_(std::move(method)), time_(time),
      where_(std::move(where)), detail_(std::move(detail)) {}

std::vector<double> SimulationResult::column(std::string_view name) const {
    const auto& columns = layout.columns;
    const auto found = std::find(columns.begin(), columns.end(), name);
    if (found == columns.end()) {
        throw std::invalid_argument(fmt::format("no column '{}' in the result; its columns are {}",
                                                name, fmt::join(columns, ", ")));
    }
    const std::size_t c = static_cast<std::size_t>(found - columns.begin());
    const std::size_t n = layout.positions, k = layout.states, m = layout.constraints;
    const auto strided = [&](const std::vector<double>& matrix, std::size_t width, std::size_t j) {
        std::vector<double> out(rows());
        for (std::size_t i = 0; i < out.size(); ++i) {
            out[i] = matrix[i * width + j];
        }
        return out;
    };
    if (c == 0) {
        return t;
    }
    if (c < 1 + n) {
        return strided(positions, n, c - 1);
    }
    if (c < 1 + 2 * n) {
        return strided(velocities, n, c - 1 - n);
    }
    if (c < 1 + 2 * n + k) {
        return strided(states, k, c - 1 - 2 * n);
    }
    std::size_t next = 1 + 2 * n + k;
    if (layout.residuals) {
        if (c < next + m) {
            return strided(residuals, m, c - next);
        }
        next += m;
    }
    if (layout.multipliers && c < next + m) {
        return strided(multipliers, m, c - next);
    }
    return energy;
}

OutputLayout output_layout(const CompiledModel& compiled) {
    const runtime::Model model = runtime_model(compiled);
    const runtime::OutputRows rows(model);
    OutputLayout layout;
    layout.columns = rows.columns();
    layout.positions = static_cast<std::size_t>(model.positions());
    layout.states = static_cast<std::size_t>(model.states());
    layout.constraints = static_cast<std::size_t>(model.constraints());
    layout.residuals = rows.residuals();
    layout.multipliers = rows.multipliers();
    layout.energy = rows.energy();
    layout.events = model.has_events();
    return layout;
}

namespace {

SimulationStatistics run_method(const CompiledModel& compiled, const SimulationSettings& settings,
                                const simulation::Output& output) {
    validate_settings(settings);
    const runtime::Model model = runtime_model(compiled);
    const std::string method = settings.method.value_or(compiled.text_setting("method", ""));
    try {
        if (method == "strobo") {
            return simulation::run_strobo(settings, compiled, model, output);
        }
        if (method == "hmm-stiff") {
            return simulation::run_stiff_hmm(settings, compiled, model, output);
        }
        if (simulation::is_hmm(method)) {
            return simulation::run_hmm(settings, compiled, model, method, output);
        }
        return simulation::run_classical(settings, compiled, model, method, output);
    } catch (const runtime::NumericalFailure& e) {
        throw NumericalFailure(e.what(), std::string(runtime::to_string(e.kind())), e.method(),
                               e.time(), e.where(), e.detail());
    }
}

} // namespace

SimulationStatistics simulate(const CompiledModel& compiled, const SimulationSettings& settings,
                              const RowObserver& rows, const StepObserver& steps) {
    return simulate(compiled, settings, rows, steps, {});
}

SimulationStatistics simulate(const CompiledModel& compiled, const SimulationSettings& settings,
                              const RowObserver& rows, const StepObserver& steps,
                              const ForecastObserver& forecast) {
    return run_method(compiled, settings, simulation::Output{rows, steps, forecast});
}

std::optional<OutputForecast> forecast_output(const CompiledModel& compiled,
                                              const SimulationSettings& settings) {
    const RowObserver rows;
    const StepObserver steps;
    const ForecastObserver forecast;
    try {
        run_method(compiled, settings, simulation::Output{rows, steps, forecast, true});
    } catch (const simulation::Forecasted& f) {
        return f.forecast;
    }
    throw std::logic_error("forecast_output: the method ran instead of forecasting");
}

SimulationResult simulate(const CompiledModel& compiled, const SimulationSettings& settings) {
    SimulationResult result;
    result.layout = output_layout(compiled);
    const auto append = [](std::vector<double>& to, std::span<const double> values) {
        to.insert(to.end(), values.begin(), values.end());
    };
    result.statistics = simulate(compiled, settings, [&](const OutputRow& row) {
        result.t.push_back(row.t);
        append(result.positions, row.positions);
        append(result.velocities, row.velocities);
        append(result.states, row.states);
        append(result.residuals, row.residuals);
        append(result.multipliers, row.multipliers);
        if (row.energy) {
            result.energy.push_back(*row.energy);
        }
        return true;
    });
    return result;
}

} // namespace mdl
