// mdl export FILE.mdl --fmu OUT.fmu [--method NAME] [--step H] [--start T] [--stop T]
//                      [--rtol R] [--atol A] [--rho-inf R] [--constraint-tol E]
//                      [-p name=value]... [--cpu CPU] [--library DIR] [--no-cache]
// Exports a model as an FMI 2.0 FMU: modelDescription.xml and binaries/linux64/<model>.so,
// whose fmi2DoStep (Co-Simulation) integrates the model with the method and step chosen here,
// and which gives unconstrained models' derivatives to Model Exchange importers (docs/fmi.md).
#include "commands.hpp"
#include "declared_descriptions.hpp"
#include "exit_status.hpp"
#include "fmu_archive.hpp"
#include "fmu_contents.hpp"
#include "fmu_model_description.hpp"
#include "fmu_model_source.hpp"
#include "fmu_shared_object.hpp"
#include "mdl/compiled_model.hpp"
#include "runtime/numerical_failure.hpp"
#include "model_options.hpp"

#include <fmt/format.h>
#include <iostream>
#include <memory>

namespace mdl::cli {

namespace {

struct ExportOptions {
    std::string file;
    std::string fmu;
    ExportSettings settings;
    std::vector<std::string> parameters; // name=value
    std::vector<std::string> library_paths;
    bool no_cache = false;
};

int export_fmu(const ExportOptions& o) {
    CompileOptions options;
    options.disk_cache = !o.no_cache;
    options.library_paths = o.library_paths;
    for (const std::string& p : o.parameters) {
        options.structural_parameters.push_back(parse_assignment(p)); // Integer ones
    }
    CompiledModel compiled = compile_file(o.file, options);
    for (const std::string& p : o.parameters) {
        auto [name, value] = parse_assignment(p);
        try {
            compiled.set_parameter(name, value);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(fmt::format("-p {}: {}", p, e.what()));
        }
    }
    const DeclaredDescriptions descriptions =
        declared_descriptions(o.file, options.structural_parameters, o.library_paths);
    FmuContents contents = fmu_contents(compiled, o.settings, descriptions);
    assign_guid(contents, fmu_model_source(contents));
    const std::string binary = link_fmu_binary(contents, fmu_model_source(contents));
    write_zip(o.fmu, {{"modelDescription.xml", model_description_xml(contents)},
                      {"binaries/linux64/" + contents.model_identifier + ".so", binary}});
    std::cerr << fmt::format(
        "mdl export: wrote {} (FMI 2.0 Co-Simulation{}, {}{}, {} variables)\n", o.fmu,
        contents.model_exchange ? " and Model Exchange" : "", contents.method,
        contents.adaptive ? "" : fmt::format(" step {}", contents.step), contents.variables.size());
    return exit_status::success;
}

} // namespace

std::function<int()> add_export_command(CLI::App& app) {
    auto o = std::make_shared<ExportOptions>();
    CLI::App* cmd = app.add_subcommand(
        "export", "Export a model as an FMI 2.0 FMU: Co-Simulation with a classical method, "
                  "and Model Exchange for unconstrained models (docs/fmi.md)");
    cmd->add_option("file", o->file, "Model file (.mdl)")->required();
    cmd->add_option("--fmu", o->fmu,
                    "The FMU to write (a zip: modelDescription.xml, "
                    "binaries/linux64/<model>.so)")
        ->required();
    cmd->add_option("-m,--method", o->settings.method,
                    "Method of fmi2DoStep: " + fmu_methods() +
                        " (default: the model's method, else as mdl run chooses)");
    cmd->add_option("--step", o->settings.step,
                    "Internal step of a fixed-step method, at most the communication step "
                    "(default: the model's step, else 1e-3)");
    cmd->add_option("--start", o->settings.start,
                    "DefaultExperiment start time (default: the model's StartTime, or 0)");
    cmd->add_option("--stop", o->settings.stop,
                    "DefaultExperiment stop time (default: the model's StopTime, or 1)");
    cmd->add_option("--rtol", o->settings.rtol, "Relative tolerance of dopri5 (default 1e-6)");
    cmd->add_option("--atol", o->settings.atol, "Absolute tolerance of dopri5 (default 1e-9)");
    cmd->add_option("--rho-inf", o->settings.rho_inf,
                    "Spectral radius at infinity of galpha, in [0, 1] (default 0.9)");
    cmd->add_option("--constraint-tol", o->settings.constraint_tol,
                    "Largest |g(q)| accepted by SHAKE/RATTLE and the constrained implicit "
                    "methods (default 1e-12)");
    cmd->add_option("-p,--parameter", o->parameters,
                    "A parameter's exported value: -p omega=1e6 (its start value in the FMU)")
        ->allow_extra_args(false);
    cmd->add_option("--cpu", o->settings.cpu,
                    "CPU of the kernels' code: x86-64 (default, any x86-64 machine), x86-64-v3, "
                    "a CPU name, or native");
    cmd->add_option("--library", o->library_paths,
                    "A folder of component models, searched after the model's own folder");
    cmd->add_flag("--no-cache", o->no_cache,
                  "Neither read nor write the code cache on disk (see mdl cache)");
    return [o]() {
        try {
            return export_fmu(*o);
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
