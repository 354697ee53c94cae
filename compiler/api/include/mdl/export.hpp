// Exporting a model for hosts without mdl: an FMI 2.0 FMU, or a plain C library.
//
//     mdl::ExportSettings settings;
//     settings.simulation.method = "rattle";
//     settings.simulation.step = 1e-3;
//     mdl::export_fmu("models/slider_crank.mdl", "slider_crank.fmu", settings);
//     mdl::export_c_library("models/slider_crank.mdl", "out/", settings);
//
// The FMU (modelDescription.xml and binaries/linux64/<model>.so) integrates the model in
// fmi2DoStep with the method and settings chosen here (every method of `mdl run` but SUNDIALS'
// cvode-* and ida, the multiscale ones included) and gives unconstrained models' derivatives to
// Model Exchange importers; the C library is libNAME.a, libNAME.so and NAME.h with one entry
// point NAME_simulate (docs/fmi.md). Both are self-contained (libc and libm) and start
// consistently as `mdl run` does. The binaries are linked by the system's C++ compiler ($CXX,
// else c++) with mdl's FMI library libmdl_fmi.a. `mdl export` is this call.
#pragma once

#include "mdl/compiled_model.hpp"
#include "mdl/simulation_settings.hpp"
#include "mdl/write_failure.hpp"

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mdl {

namespace exporting {
struct FmuContents;
}

// No compiler, no FMI library, or the link failed: what() says which, with the compiler's
// output.
class LinkFailure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct ExportSettings {
    // The method and its settings exactly as `mdl run` takes them (`step`: the internal step of
    // a fixed-step method, a multiscale method's macro step H); empty ones fall back to the
    // model's annotation(experiment(...)), then to the method's default. From a model file,
    // `structural_parameters` and `library_paths` are used to compile it.
    SimulationSettings simulation;
    // Exported values of parameters (their start values in the FMU), set after compiling; from
    // a model file, Integer ones fix the structure as `mdl export -p` does.
    std::vector<std::pair<std::string, double>> parameters;
    // CPU of the kernels' code: x86-64 (any x86-64 machine), x86-64-v3, a CPU name, or native.
    std::string cpu = "x86-64";
};

// What was written.
struct ExportSummary {
    std::string identifier;      // the FMU's modelIdentifier, the C library's NAME
    std::string method;          // "rattle step 0.001", "hmm macro step 0.0125", "dopri5"
    bool model_exchange = false; // the FMU also offers Model Exchange
    std::size_t variables = 0;   // the FMU's variables
};

// A model prepared once for export: compiled with the settings, its kernels' object code
// emitted and its FMU variables decided. It is written as an FMU, a C library or both without
// compiling again (`mdl export --fmu X --c-library Y`):
//
//     const mdl::PreparedExport prepared("models/slider_crank.mdl", settings);
//     prepared.write_fmu("slider_crank.fmu");
//     prepared.write_c_library("out/");
//
// The constructors throw as the export functions below do (CompileError, std::invalid_argument);
// the writers throw LinkFailure and WriteFailure, leaving the target as it was.
class PreparedExport {
public:
    // From a model file, as export_fmu(model_file, ...) below.
    explicit PreparedExport(const std::string& model_file, const ExportSettings& settings = {});
    // From a compiled model, as export_fmu(compiled, ...) below.
    explicit PreparedExport(const CompiledModel& compiled, const ExportSettings& settings = {});

    ExportSummary write_fmu(const std::string& fmu_path) const;
    ExportSummary write_c_library(const std::string& folder) const;

private:
    std::shared_ptr<const exporting::FmuContents> contents_;
};

// From a model file: compiled with the settings, the declared descriptions shown in
// modelDescription.xml. Throws CompileError, std::invalid_argument naming the setting (a method
// an FMU cannot run, an unknown parameter: "-p k: ..."), LinkFailure and WriteFailure; the
// target is left as it was when the export fails.
ExportSummary export_fmu(const std::string& model_file, const std::string& fmu_path,
                         const ExportSettings& settings = {});
ExportSummary export_c_library(const std::string& model_file, const std::string& folder,
                               const ExportSettings& settings = {});

// From a compiled model, with its current parameters (and `settings.parameters` on top); its
// variables carry no descriptions.
ExportSummary export_fmu(const CompiledModel& compiled, const std::string& fmu_path,
                         const ExportSettings& settings = {});
ExportSummary export_c_library(const CompiledModel& compiled, const std::string& folder,
                               const ExportSettings& settings = {});

} // namespace mdl
