// mdl export FILE.mdl [--fmu OUT.fmu] [--c-library DIR] [-p name=value]... [--cpu CPU]
//                      [the method and its options as mdl run takes them]
// Exports a model as an FMI 2.0 FMU: modelDescription.xml and binaries/linux64/<model>.so,
// whose fmi2DoStep (Co-Simulation) integrates the model with the method and settings chosen
// here (every method of mdl run but SUNDIALS' cvode-* and ida, the multiscale ones included),
// and which gives unconstrained models' derivatives to Model Exchange importers (docs/fmi.md);
// and/or as a C library (libNAME.a, libNAME.so, NAME.h: c_library.hpp).
// The export is the library's (mdl/export.hpp); this file parses the options and prints what
// was written.
#include "commands.hpp"
#include "exit_status.hpp"
#include "mdl/compiled_model.hpp"
#include "mdl/export.hpp"
#include "model_options.hpp"
#include "runtime/numerical_failure.hpp"
#include "simulation_options.hpp"

#include <fmt/format.h>
#include <iostream>
#include <memory>

namespace mdl::cli {

namespace {

struct ExportOptions {
    std::string file;
    std::string fmu;
    std::string c_library; // a folder
    ExportSettings settings;
    std::vector<std::string> parameters; // name=value
};

int export_model(ExportOptions& o) {
    if (o.fmu.empty() && o.c_library.empty()) {
        throw std::invalid_argument("give --fmu FILE, --c-library DIR or both: what to write");
    }
    o.settings.parameters = parse_assignments(o.parameters);
    // compiled once for both
    const PreparedExport prepared(o.file, o.settings);
    if (!o.fmu.empty()) {
        const ExportSummary s = prepared.write_fmu(o.fmu);
        std::cerr << fmt::format("mdl export: wrote {} (FMI 2.0 Co-Simulation{}, {}, {} "
                                 "variables)\n",
                                 o.fmu, s.model_exchange ? " and Model Exchange" : "", s.method,
                                 s.variables);
    }
    if (!o.c_library.empty()) {
        const ExportSummary s = prepared.write_c_library(o.c_library);
        std::cerr << fmt::format("mdl export: wrote lib{1}.a, lib{1}.so and {1}.h in {0} ({2}; "
                                 "{1}_simulate)\n",
                                 o.c_library, s.identifier, s.method);
    }
    return exit_status::success;
}

} // namespace

std::function<int()> add_export_command(CLI::App& app) {
    auto o = std::make_shared<ExportOptions>();
    CLI::App* cmd = app.add_subcommand(
        "export", "Export a model as an FMI 2.0 FMU (Co-Simulation with the method and settings "
                  "of mdl run, classical or multiscale; Model Exchange for unconstrained models) "
                  "and/or as a C library without LLVM (docs/fmi.md)");
    cmd->add_option("file", o->file, "Model file (.mdl)")->required();
    cmd->add_option("--fmu", o->fmu,
                    "The FMU to write (a zip: modelDescription.xml, "
                    "binaries/linux64/<model>.so)");
    // not --library: that flag names a folder of component models in every command
    cmd->add_option("--c-library", o->c_library,
                    "A folder to write the model as a C library into: lib<model>.a, "
                    "lib<model>.so and <model>.h with <model>_simulate, no LLVM needed");
    // the method and its settings exactly as mdl run takes them (--step: the internal step of a
    // fixed-step method, a multiscale method's macro step H; the communication step must be a
    // multiple of it)
    add_simulation_options(cmd, o->settings.simulation);
    // an export has no output rows: the importer (or the C library's caller) chooses the times
    cmd->remove_option(cmd->get_option("--every"));
    cmd->add_option("-p,--parameter", o->parameters,
                    "A parameter's exported value: -p omega=1e6 (its start value in the FMU)")
        ->allow_extra_args(false);
    cmd->add_option("--cpu", o->settings.cpu,
                    "CPU of the kernels' code: x86-64 (default, any x86-64 machine), x86-64-v3, "
                    "a CPU name, or native");
    return [o]() {
        try {
            return export_model(*o);
        } catch (const CompileError& e) {
            std::cerr << e.what();
            return exit_status::model_error;
        } catch (const WriteFailure& e) {
            std::cerr << fmt::format("mdl export: error: {}\n", e.what());
            return exit_status::output_failed;
        } catch (const LinkFailure& e) {
            std::cerr << fmt::format("mdl export: error: {}\n", e.what());
            return exit_status::bad_input;
        } catch (const std::invalid_argument& e) {
            std::cerr << fmt::format("mdl export: error: {}\n", e.what());
            return exit_status::bad_input;
        }
    };
}

} // namespace mdl::cli
