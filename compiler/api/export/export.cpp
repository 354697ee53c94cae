#include "mdl/export.hpp"

#include "c_library.hpp"
#include "declared_descriptions.hpp"
#include "fmu_archive.hpp"
#include "fmu_contents.hpp"
#include "fmu_model_description.hpp"
#include "fmu_model_source.hpp"
#include "fmu_shared_object.hpp"

#include <fmt/format.h>

namespace mdl {

namespace {

using namespace exporting;

// The method as a summary names it: "rattle step 0.001", "hmm macro step 0.0125", "dopri5".
std::string method_text(const FmuContents& contents) {
    return contents.method +
           (contents.adaptive ? ""
                              : fmt::format(" {} {}", contents.multiscale ? "macro step" : "step",
                                            contents.step));
}

// `compiled` with `settings.parameters` set ("-p name=value: ..." when one is not a parameter).
CompiledModel with_exported_values(const CompiledModel& compiled, const ExportSettings& settings) {
    CompiledModel exported = compiled.with_parameters({});
    for (const auto& [name, value] : settings.parameters) {
        try {
            exported.set_parameter(name, value);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(fmt::format("-p {}: {}", name, e.what()));
        }
    }
    return exported;
}

FmuContents contents_of(const CompiledModel& compiled, const ExportSettings& settings,
                        const DeclaredDescriptions& descriptions) {
    FmuContents contents = fmu_contents(compiled, settings, descriptions);
    assign_guid(contents, fmu_model_source(contents));
    return contents;
}

// From a file: compiled with the settings, Integer exported values fixing the structure.
FmuContents contents_of_file(const std::string& model_file, ExportSettings settings) {
    SimulationSettings& run = settings.simulation;
    for (const auto& assignment : settings.parameters) {
        run.structural_parameters.push_back(assignment);
    }
    const CompiledModel compiled =
        with_exported_values(compile_file(model_file, compile_options(run)), settings);
    return contents_of(
        compiled, settings,
        declared_descriptions(model_file, run.structural_parameters, run.library_paths));
}

ExportSummary summary_of(const FmuContents& contents) {
    return {contents.model_identifier, method_text(contents), contents.model_exchange,
            contents.variables.size()};
}

} // namespace

PreparedExport::PreparedExport(const std::string& model_file, const ExportSettings& settings)
    : contents_(std::make_shared<const FmuContents>(contents_of_file(model_file, settings))) {}

PreparedExport::PreparedExport(const CompiledModel& compiled, const ExportSettings& settings)
    : contents_(std::make_shared<const FmuContents>(
          contents_of(with_exported_values(compiled, settings), settings, {}))) {}

ExportSummary PreparedExport::write_fmu(const std::string& fmu_path) const {
    const FmuContents& contents = *contents_;
    const std::string binary = link_fmu_binary(contents, fmu_model_source(contents));
    write_zip(fmu_path, {{"modelDescription.xml", model_description_xml(contents)},
                         {"binaries/linux64/" + contents.model_identifier + ".so", binary}});
    return summary_of(contents);
}

ExportSummary PreparedExport::write_c_library(const std::string& folder) const {
    exporting::write_c_library(*contents_, folder);
    return summary_of(*contents_);
}

ExportSummary export_fmu(const std::string& model_file, const std::string& fmu_path,
                         const ExportSettings& settings) {
    return PreparedExport(model_file, settings).write_fmu(fmu_path);
}

ExportSummary export_c_library(const std::string& model_file, const std::string& folder,
                               const ExportSettings& settings) {
    return PreparedExport(model_file, settings).write_c_library(folder);
}

ExportSummary export_fmu(const CompiledModel& compiled, const std::string& fmu_path,
                         const ExportSettings& settings) {
    return PreparedExport(compiled, settings).write_fmu(fmu_path);
}

ExportSummary export_c_library(const CompiledModel& compiled, const std::string& folder,
                               const ExportSettings& settings) {
    return PreparedExport(compiled, settings).write_c_library(folder);
}

} // namespace mdl
