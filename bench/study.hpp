// What the two studies of mdl_bench share, multiscale_bench.cpp (omega) and stiff_bench.cpp
// (w2): each calibrates every method on a ladder of settings at each value of a sweep
// variable, registers one benchmark per case it ran, then reads the benchmark results back
// into tables, CSV files and plots. The studies keep their own Case, method and outcome types
// (their physics and their tables differ); the templates below ask of a Case only
//  - method: a pointer to its method, which has a name (benchmark names, CSV columns);
//  - run: whether it was run; if so, outcome.seconds (the calibration run's wall time) and
//    outcome.force_evaluations, and benchmark, the name it is registered under;
//  - estimate_seconds and estimate_from: when not run, the estimate of its time and the sweep
//    value of the run that estimate comes from;
//  - its sweep value, the member Sweep::value points at.
#pragma once

#include "bench.hpp"
#include "runtime/output/plot.hpp"

#include <benchmark/benchmark.h>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace mdl::bench {

// The variable a study sweeps, as its benchmark names, tables, CSV files and plots show it.
template <class Case>
struct Sweep {
    // "omega": in benchmark names, table headers and the CSV files' first column.
    std::string name;
    // Increasing: a method's cases are calibrated in this order.
    std::vector<double> values;
    // The case's value of the variable.
    double Case::*value;
    // A value as the benchmark names and table headers write it.
    std::string (*text)(double value);
    // The plots' x axis, with its unit.
    std::string plot_label;
};

// A study run's timing: wall time in ms; runs calibrated above 0.5 s one iteration each
// (long_repetitions), shorter ones 0.2 s minimum (repetitions).
inline void time_study_run(benchmark::internal::Benchmark* b, double calibrated_seconds,
                           const MultiscaleSettings& settings) {
    b->Unit(benchmark::kMillisecond)->UseRealTime();
    if (calibrated_seconds > 0.5) {
        b->Iterations(1)->Repetitions(settings.long_repetitions);
    } else {
        b->MinTime(0.2)->Repetitions(settings.repetitions);
    }
}

// Registers <study>/<method>/<sweep name>:<value> for every case that was run, timed by
// `time_case`, and records the name in the case for the tables. The benchmarks keep pointers
// to the cases: `cases` must not grow or move afterwards.
template <class Case>
void register_study_runs(std::vector<Case>& cases, const std::string& study,
                         const Sweep<Case>& sweep, const MultiscaleSettings& settings,
                         void (*time_case)(benchmark::State&, const Case&)) {
    for (Case& c : cases) {
        if (!c.run) {
            continue;
        }
        c.benchmark =
            study + "/" + c.method->name + "/" + sweep.name + ":" + sweep.text(c.*sweep.value);
        time_study_run(
            benchmark::RegisterBenchmark(c.benchmark.c_str(),
                                         [&c, time_case](benchmark::State& s) { time_case(s, c); }),
            c.outcome.seconds, settings);
    }
}

// Whether the case `c` (method and sweep value set) is not to be run because its estimated
// time exceeds the cap; if so, sets its estimate. The estimate is the time of the method's
// previous case (measured, or estimated in turn) times the ratio of the sweep values, as the
// work grows at least in proportion to the sweep variable in both studies. A method's cases
// are appended to `cases` in the sweep's order, one method after the other, so its previous
// case is the last one there when that has the same method.
template <class Case>
bool beyond_cap(Case& c, const std::vector<Case>& cases, const Sweep<Case>& sweep,
                double cap_seconds) {
    if (cases.empty() || cases.back().method != c.method) {
        return false;
    }
    const Case& previous = cases.back();
    const double estimate = (previous.run ? previous.outcome.seconds : previous.estimate_seconds) *
                            c.*sweep.value / previous.*sweep.value;
    if (estimate <= cap_seconds) {
        return false;
    }
    c.estimate_seconds = estimate;
    c.estimate_from = previous.run ? previous.*sweep.value : previous.estimate_from;
    return true;
}

// The first line and the rule of a table with a column per sweep value after the given
// leading columns, e.g. "| method |" and "|---|".
struct TableHead {
    std::string header;
    std::string rule;
};

template <class Case>
TableHead sweep_table_head(const Sweep<Case>& sweep, std::string header, std::string rule) {
    for (double value : sweep.values) {
        header += fmt::format(" {} = {} |", sweep.name, sweep.text(value));
        rule += "--:|";
    }
    return {std::move(header), std::move(rule)};
}

// The titles of the two plots, wall time and force evaluations per run against the sweep
// variable.
struct PlotTitles {
    std::string time;
    std::string evaluations;
};

// A study's calibrated cases with the benchmark results of their runs, as the tables, CSV
// files and plots read them.
template <class Case>
class StudyResults {
public:
    StudyResults(const std::vector<Case>& cases, const Sweep<Case>& sweep, const Results& results)
        : cases_(&cases), sweep_(&sweep), results_(&results) {}

    // The case of method `m` at the sweep value `value`, or null when there is none.
    template <class Method>
    const Case* find(const Method& m, double value) const {
        for (const Case& c : *cases_) {
            if (c.method == &m && c.*sweep_->value == value) {
                return &c;
            }
        }
        return nullptr;
    }

    // The median wall time of the case's benchmark in nanoseconds; NaN when it was not run or
    // its benchmark was filtered out.
    double time_ns(const Case& c) const {
        const Measurement* r = c.run ? find_result(*results_, c.benchmark) : nullptr;
        return r ? r->real_ns : std::numeric_limits<double>::quiet_NaN();
    }

    // The plot data, <csv_prefix>-time.csv (seconds) and <csv_prefix>-evaluations.csv (force
    // evaluations): one CSV per quantity, a row per sweep value, a column per method, empty
    // where not run; and the log-log plot of each, <csv_prefix>-time.svg and
    // <csv_prefix>-evaluations.svg, as `mdl plot` draws it. A plot that cannot be drawn is
    // reported on stderr, not fatal: the tables are the study's result.
    template <class Method>
    void write_plots(const std::string& csv_prefix, const std::vector<Method>& methods,
                     const PlotTitles& titles) const {
        for (const std::string quantity : {"time", "evaluations"}) {
            const std::string csv_path = csv_prefix + "-" + quantity + ".csv";
            std::ofstream csv(csv_path);
            csv << sweep_->name;
            for (const Method& m : methods) {
                csv << "," << m.name;
            }
            csv << "\n";
            for (double value : sweep_->values) {
                csv << fmt::format("{:g}", value);
                for (const Method& m : methods) {
                    const Case* c = find(m, value);
                    csv << ",";
                    if (c != nullptr && c->run) {
                        const double v = quantity == "time"
                                             ? time_ns(*c) / 1e9
                                             : static_cast<double>(c->outcome.force_evaluations);
                        if (!std::isnan(v)) {
                            csv << fmt::format("{:.6g}", v);
                        }
                    }
                }
                csv << "\n";
            }
            csv.close();
            runtime::PlotSpec spec;
            spec.output = csv_prefix + "-" + quantity + ".svg";
            spec.title = quantity == "time" ? titles.time : titles.evaluations;
            spec.xlabel = sweep_->plot_label;
            spec.ylabel = quantity == "time" ? "wall time [s]" : "force evaluations";
            spec.logx = spec.logy = true;
            for (const Method& m : methods) {
                spec.series.push_back(
                    {csv_path, sweep_->name, m.name, m.name, runtime::PlotStyle::linespoints});
            }
            try {
                runtime::render_plot(spec);
            } catch (const runtime::PlotError& e) {
                std::cerr << "mdl_bench: no plot " << spec.output << ": " << e.what() << "\n";
            }
        }
    }

private:
    const std::vector<Case>* cases_;
    const Sweep<Case>* sweep_;
    const Results* results_;
};

} // namespace mdl::bench
