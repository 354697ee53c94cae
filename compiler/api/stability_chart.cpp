#include "mdl/stability_chart.hpp"

#include "compiler/api/runtime_view.hpp"
#include "runtime/analysis/chart_plot.hpp"
#include "runtime/analysis/floquet.hpp"
#include "runtime/analysis/forcing_period.hpp"
#include "runtime/analysis/monodromy.hpp"
#include "runtime/analysis/shooting.hpp"
#include "runtime/analysis/stability_chart.hpp"
#include "runtime/numerical_failure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace mdl {

namespace {

namespace analysis = runtime::analysis;

constexpr const char* method = "stability-chart";

analysis::ChartAxis axis(const ChartRange& r) {
    return {r.name, r.lo, r.hi, r.points, r.log};
}
ChartRange range(const analysis::ChartAxis& a) {
    return {a.name, a.lo, a.hi, a.points, a.log};
}

// The state whose stability is asked: the start state with `at`'s replacements.
struct Solution {
    struct Replacement {
        bool velocity;
        Eigen::Index index;
        double value;
    };
    std::vector<Replacement> replacements;
    std::string description;

    Solution(const CompiledModel& model, const std::vector<ParameterValue>& at, bool orbit) {
        const auto& positions = model.position_names();
        const auto& velocities = model.velocity_names();
        for (const ParameterValue& replacement : at) {
            // not a structured binding: clang 14 cannot capture one in a lambda
            const std::string& name = replacement.first;
            const double value = replacement.second;
            auto find = [&](const std::vector<std::string>& names) {
                return static_cast<Eigen::Index>(std::find(names.begin(), names.end(), name) -
                                                 names.begin());
            };
            const Eigen::Index p = find(positions), v = find(velocities);
            if (p < static_cast<Eigen::Index>(positions.size())) {
                replacements.push_back({false, p, value});
            } else if (v < static_cast<Eigen::Index>(velocities.size())) {
                replacements.push_back({true, v, value});
            } else {
                throw std::invalid_argument(fmt::format(
                    "--at: '{}' is not a position or velocity of model {} (positions: {})", name,
                    model.name(), fmt::join(positions, ", ")));
            }
            if (!std::isfinite(value)) {
                throw std::invalid_argument(fmt::format("--at: {} is not finite", name));
            }
            description += fmt::format("{}{} = {}", description.empty() ? "" : ", ", name,
                                       runtime::format_number(value));
        }
        description =
            description.empty() ? "the start state" : "the start state with " + description;
        if (orbit) {
            description = "the periodic orbit from " + description;
        }
    }

    void apply(runtime::Vector& q, runtime::Vector& v) const {
        for (const Replacement& r : replacements) {
            (r.velocity ? v : q)(r.index) = r.value;
        }
    }
};

runtime::Vector vector(const std::vector<double>& values) {
    return Eigen::Map<const runtime::Vector>(values.data(),
                                             static_cast<Eigen::Index>(values.size()));
}

// The verdict at one grid point: the monodromy matrix of the solution over one period.
class PointVerdict {
public:
    PointVerdict(const CompiledModel& model, const StabilityChartSettings& settings)
        : model_(model), settings_(settings), solution_(model, settings.at, settings.orbit),
          start_(model.number_setting("StartTime", 0.0)) {}

    const Solution& solution() const { return solution_; }

    analysis::Verdict operator()(double x, double y) const {
        const ParameterValue overrides[] = {{settings_.x.name, x}, {settings_.y.name, y}};
        CompiledModel point = model_.with_parameters(overrides);
        const runtime::Model runtime = runtime_model(point);
        const double period = analysis::forcing_period(runtime, method, settings_.period);
        runtime::Vector q = vector(point.start_positions()), v = vector(point.start_velocities());
        solution_.apply(q, v);
        analysis::FlowOptions flow_options;
        flow_options.rtol = settings_.rtol;
        flow_options.atol = settings_.rtol;
        analysis::Flow flow(runtime, flow_options, method);
        const analysis::FloquetMultipliers floquet =
            settings_.orbit ? orbit(flow, period, q, v) : held(flow, period, q, v);
        return {floquet.stable ? analysis::Verdict::Kind::stable
                               : analysis::Verdict::Kind::unstable,
                floquet.max_modulus, ""};
    }

private:
    // The periodic orbit by shooting from (q, v).
    analysis::FloquetMultipliers orbit(analysis::Flow& flow, double period,
                                       const runtime::Vector& q, const runtime::Vector& v) const {
        analysis::ShootingOptions options;
        options.stability_tolerance = settings_.stability_tolerance;
        if (analysis::forced(flow.model())) {
            return analysis::shoot_forced(flow, start_, period, q, v, options).floquet;
        }
        const double guess = period > 0.0 ? period : analysis::return_time(flow, q, v);
        if (!(guess > 0.0)) {
            throw std::invalid_argument(fmt::format(
                "the flow from {} does not return near it: no periodic orbit to start from "
                "(give --period, a guess of it)",
                solution_.description));
        }
        return analysis::shoot_autonomous(flow, guess, q, v, options).floquet;
    }

    // (q, v) itself, which must be a solution of the period.
    analysis::FloquetMultipliers held(analysis::Flow& flow, double period, const runtime::Vector& q,
                                      const runtime::Vector& v) const {
        if (!(period > 0.0)) {
            throw std::invalid_argument(
                "the model has no forcing (no vibration, no explicit time): give --period");
        }
        const analysis::FlowEnd end = flow.monodromy(start_, q, v, period);
        // a solution returns to itself after a period, up to round-off amplified by the flow
        const double size = std::max(q.lpNorm<Eigen::Infinity>(), v.lpNorm<Eigen::Infinity>());
        const double departure =
            std::max((end.q - q).lpNorm<Eigen::Infinity>(), (end.v - v).lpNorm<Eigen::Infinity>());
        const double amplification = std::max(1.0, end.phi.lpNorm<Eigen::Infinity>());
        if (!(departure <= settings_.periodicity_tolerance * (1.0 + size) * amplification)) {
            throw std::invalid_argument(fmt::format(
                "{} is not a periodic solution here: after one period ({}) it is {} away (--orbit "
                "finds the periodic orbit from it)",
                solution_.description, runtime::format_number(period),
                runtime::format_number(departure)));
        }
        return analysis::floquet_multipliers(end.phi, false, settings_.stability_tolerance);
    }

private:
    const CompiledModel& model_;
    const StabilityChartSettings& settings_;
    Solution solution_;
    double start_;
};

StabilityChart public_chart(const analysis::StabilityChart& c) {
    StabilityChart chart;
    chart.x = range(c.x);
    chart.y = range(c.y);
    for (std::size_t i = 0; i < c.x.points; ++i) {
        chart.x_values.push_back(c.x.value(i));
    }
    for (std::size_t j = 0; j < c.y.points; ++j) {
        chart.y_values.push_back(c.y.value(j));
    }
    for (const analysis::Verdict& v : c.verdicts) {
        chart.points.push_back(
            {v.kind == analysis::Verdict::Kind::stable     ? ChartPoint::Verdict::stable
             : v.kind == analysis::Verdict::Kind::unstable ? ChartPoint::Verdict::unstable
                                                           : ChartPoint::Verdict::failed,
             v.max_multiplier, v.message});
    }
    for (const analysis::BoundaryPoint& p : c.boundary) {
        chart.boundary.push_back({p.x, p.y, p.along_x, p.i, p.j, p.width, p.converged,
                                  p.stable_first, p.stable_multiplier, p.unstable_multiplier});
    }
    chart.tolerance = c.tolerance;
    chart.evaluations = c.evaluations;
    chart.stopped = c.stopped;
    return chart;
}

analysis::StabilityChart runtime_chart(const StabilityChart& chart) {
    analysis::StabilityChart c;
    c.x = axis(chart.x);
    c.y = axis(chart.y);
    for (const ChartPoint& p : chart.points) {
        c.verdicts.push_back(
            {p.verdict == ChartPoint::Verdict::stable     ? analysis::Verdict::Kind::stable
             : p.verdict == ChartPoint::Verdict::unstable ? analysis::Verdict::Kind::unstable
                                                          : analysis::Verdict::Kind::failed,
             p.max_multiplier, p.message});
    }
    for (const ChartBoundaryPoint& p : chart.boundary) {
        c.boundary.push_back({p.x, p.y, p.along_x, p.i, p.j, p.width, p.converged, p.stable_first,
                              p.stable_multiplier, p.unstable_multiplier});
    }
    c.tolerance = chart.tolerance;
    c.evaluations = chart.evaluations;
    c.stopped = chart.stopped;
    return c;
}

void check_settings(const CompiledModel& model, const StabilityChartSettings& settings) {
    for (const ChartRange* r : {&settings.x, &settings.y}) {
        const ParameterValue probe[] = {{r->name, r->lo}, {r->name, r->hi}};
        (void)model.parameters_with(probe); // an unknown name, with a suggestion
        analysis::check_axis(axis(*r));
    }
    auto positive = [](double value, const char* option) {
        if (!(value > 0.0 && value < 1.0)) {
            throw std::invalid_argument(fmt::format("{}: must be in (0, 1), not {}", option,
                                                    runtime::format_number(value)));
        }
    };
    positive(settings.tolerance, "--tolerance");
    positive(settings.stability_tolerance, "--stability-tolerance");
    positive(settings.periodicity_tolerance, "--periodicity-tolerance");
    positive(settings.rtol, "--rtol");
    if (!(settings.period >= 0.0) || !std::isfinite(settings.period)) {
        throw std::invalid_argument("--period: must be a positive number (or 0: the forcing's)");
    }
    analysis::require_variational_form(runtime_model(model), method);
}

} // namespace

StabilityChart stability_chart(const CompiledModel& model, const StabilityChartSettings& settings) {
    check_settings(model, settings);
    const PointVerdict verdict(model, settings);
    analysis::ChartOptions options;
    options.threads = settings.threads;
    options.tolerance = settings.tolerance;
    options.progress = settings.progress;
    const analysis::StabilityChart c =
        analysis::stability_chart(axis(settings.x), axis(settings.y), std::cref(verdict), options);
    StabilityChart chart = public_chart(c);
    chart.solution = verdict.solution().description;
    return chart;
}

void write_chart_grid_csv(std::ostream& out, const StabilityChart& chart) {
    analysis::write_grid_csv(out, runtime_chart(chart));
}

void write_chart_boundary_csv(std::ostream& out, const StabilityChart& chart) {
    analysis::write_boundary_csv(out, runtime_chart(chart));
}

std::string stability_chart_svg(const StabilityChart& chart, const std::string& title) {
    analysis::ChartPlotOptions options;
    options.title = title;
    return analysis::stability_chart_svg(runtime_chart(chart), options);
}

} // namespace mdl
