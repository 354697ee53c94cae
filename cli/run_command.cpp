// mdl run FILE.mdl [--method NAME] [--stop T] [--step H] [--rtol R] [--atol A]
//                  [-p name=value]... [--output out.csv] [--every N]
// Simulates a model with a classical integrator, HMM or stroboscopic averaging and streams the
// trajectory as CSV (mdl/simulate.hpp does the work; `mdl sweep` shares it).
// Settings default to the model's annotation(experiment(...)); flags override it.
#include "commands.hpp"
#include "exit_status.hpp"
#include "interruption.hpp"
#include "mdl/compiled_model.hpp"
#include "mdl/simulate.hpp"
#include "model_options.hpp"
#include "output_file.hpp"
#include "progress_bar.hpp"
#include "runtime/numerical_failure.hpp"
#include "runtime/output/csv_writer.hpp"
#include "simulation_options.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <unistd.h>

namespace mdl::cli {

namespace {

struct RunOptions {
    std::string file;
    SimulationSettings simulation;
    std::vector<std::string> parameters; // name=value
    std::string output;                  // empty: stdout
    std::string units_file;              // --units-file: column,unit for each CSV column
    bool quiet = false;
    bool error_estimate = false; // --error-estimate: the running estimate as a last column
};

// After a failed write: cut the part of a line the system took, so the CSV ends with its last
// complete row (a regular file only; nothing to do for a pipe or a device).
void keep_complete_rows(const std::string& path, std::size_t bytes) {
    std::error_code error;
    if (!path.empty() && std::filesystem::is_regular_file(path, error) &&
        std::filesystem::file_size(path, error) > bytes) {
        std::filesystem::resize_file(path, bytes, error);
    }
}

// Where the CSV goes, as messages name it.
std::string output_name(const RunOptions& o) {
    return o.output.empty() ? "standard output" : o.output;
}

// The sidecar of --units-file: a CSV "column,unit" with one row per column of the output, in
// its order ("" where the unit is not known), so the trajectory's CSV keeps one header line.
void write_units(const std::string& path, const CompiledModel& compiled,
                 const std::vector<std::string>& columns) {
    const auto quoted = [](const std::string& s) {
        return s.find_first_of(",\"") == std::string::npos ? s : "\"" + s + "\"";
    };
    std::string units = "column,unit\n";
    for (const std::string& c : columns) {
        units += quoted(c) + "," + compiled.unit(c) + "\n";
    }
    write_output_file("--units-file", path, units);
}

int run(const RunOptions& o) {
    SimulationSettings settings = o.simulation;
    const auto assignments = parse_assignments(o.parameters);
    settings.structural_parameters = assignments; // Integer ones recompile
    CompiledModel compiled = compile_file(o.file, compile_options(settings));
    for (std::size_t i = 0; i < assignments.size(); ++i) {
        try {
            compiled.set_parameter(assignments[i].first, assignments[i].second);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(fmt::format("-p {}: {}", o.parameters[i], e.what()));
        }
    }
    std::ofstream file;
    std::ostream* out = &std::cout;
    if (!o.output.empty()) {
        file = open_output_file("--output", o.output);
        out = &file;
    }
    // the progress bar knows the interval only once the settings are resolved: it starts at
    // the first output state and ends at the stop time
    std::unique_ptr<ProgressBar> progress;
    const bool show = !o.quiet && isatty(fileno(stderr)) != 0;
    double stop = o.simulation.stop.value_or(compiled.number_setting("StopTime", 1.0));
    // after SIGINT/SIGTERM the run ends at the state it has reached (a step boundary)
    const StepObserver update = [&](double t) {
        if (!progress) {
            progress = std::make_unique<ProgressBar>(t, stop, show);
        }
        progress->update(t);
        return interruption_signal() == 0;
    };
    const OutputLayout layout = output_layout(compiled);
    std::vector<std::string> columns = layout.columns;
    if (o.error_estimate) {
        columns.push_back("error_estimate");
    }
    if (!o.units_file.empty()) {
        std::vector<std::string> unit_columns = columns;
        if (layout.events) {
            unit_columns.emplace_back("event");
        }
        write_units(o.units_file, compiled, unit_columns);
    }
    runtime::CsvWriter csv(*out, columns, layout.events);
    std::vector<double> with_estimate;
    double last_row = 0.0; // the time of the last row written
    bool warned = false;
    const ForecastObserver forecast = [&](const OutputForecast& f) {
        if (!warned && f.max_csv_bytes() > large_output_bytes) {
            warned = true; // not --quiet's to hide: the disk may fill
            std::cerr << "mdl run: warning: "
                      << describe_large_output(f, o.output.empty() ? "standard output"
                                                                   : "'" + o.output + "'")
                      << "\n";
        }
    };
    const SimulationStatistics result = simulate(
        compiled, o.simulation,
        [&](const OutputRow& row) {
            if (o.error_estimate) {
                // the running estimate of a multiscale method; NaN for a classical one
                with_estimate.assign(row.values.begin(), row.values.end());
                with_estimate.push_back(
                    row.error_estimate.value_or(std::numeric_limits<double>::quiet_NaN()));
                csv.write_row(with_estimate, row.event);
            } else {
                csv.write_row(row.values, row.event);
            }
            last_row = row.t;
            return true;
        },
        update, forecast);
    for (const std::string& note : result.notes) {
        std::cerr << note << "\n"; // not --quiet's to hide: the start is not the model's
    }
    if (result.stopped) {
        progress.reset();
        // not --quiet's to hide: it says why the CSV ends before the stop time
        std::cerr << fmt::format(
            "mdl run: interrupted at t = {} by {} (stop time {}); {} rows in {}, complete to "
            "that time\n",
            runtime::format_number(last_row), signal_name(interruption_signal()),
            runtime::format_number(stop), csv.rows(),
            o.output.empty() ? "standard output" : "'" + o.output + "'");
        return exit_status::interrupted(interruption_signal());
    }
    progress.reset();
    if (file.is_open()) {
        close_output_file(file, output_name(o));
    }
    if (!o.quiet) {
        std::cerr << "mdl run: " << result.summary << "\n";
    }
    if (result.error_estimate && !result.error_estimate->met()) {
        // not --quiet's to hide: the run kept settings that do not meet the tolerance
        const ErrorEstimate& e = *result.error_estimate;
        std::cerr << fmt::format("mdl run: warning: the error estimate {:.2g} exceeds the "
                                 "tolerance {:.2g} (rtol {:g}, atol {:g}); the {} part dominates "
                                 "(micro {:.2g}, macro {:.2g}, averaging {:.2g}): {}\n",
                                 e.total, e.tolerance, e.rtol, e.atol, e.dominant, e.micro, e.macro,
                                 e.averaging, e.remedy);
    }
    return exit_status::success;
}

} // namespace

std::function<int()> add_run_command(CLI::App& app) {
    auto o = std::make_shared<RunOptions>();
    CLI::App* cmd = app.add_subcommand(
        "run", "Simulate a model and write its trajectory as CSV (time, positions, velocities, "
               "states, constraint residuals and multipliers, energy)");
    cmd->add_option("file", o->file, "Model file (.mdl)")->required();
    add_simulation_options(cmd, o->simulation);
    cmd->add_option("-p,--parameter", o->parameters, "Override a parameter: -p omega=1e6")
        ->allow_extra_args(false);
    cmd->add_option("-o,--output", o->output, "CSV file to write (default: standard output)");
    cmd->add_option("--units-file", o->units_file,
                    "Also write the unit of each CSV column to this file, as CSV lines "
                    "'column,unit' (empty where the model does not determine it)");
    cmd->add_flag("-q,--quiet", o->quiet, "No summary line and no progress bar");
    cmd->add_flag("--error-estimate", o->error_estimate,
                  "Add a last CSV column error_estimate: a multiscale method's running estimate "
                  "of its position error at each row (NaN for the classical methods)");
    return [o]() {
        catch_interruptions();
        try {
            return run(*o);
        } catch (const CompileError& e) {
            std::cerr << e.what();
            return exit_status::model_error;
        } catch (const NumericalFailure& e) {
            std::cerr << fmt::format("mdl: error: {}\n", e.what());
            return exit_status::numerical_failure;
        } catch (const runtime::OutputError& e) {
            std::cerr << fmt::format("mdl run: error: writing '{}': {}\n", output_name(*o),
                                     e.what());
            keep_complete_rows(o->output, e.complete_bytes());
            return exit_status::output_failed;
        } catch (const WriteFailure& e) {
            std::cerr << fmt::format("mdl run: error: {}\n", e.what());
            return exit_status::output_failed;
        } catch (const std::invalid_argument& e) {
            std::cerr << fmt::format("mdl run: error: {}\n", e.what());
            return exit_status::bad_input;
        }
    };
}

} // namespace mdl::cli
