// mdl check FILE.mdl: parse and check a model, print its summary or its diagnostics.
#include "check/checker.hpp"
#include "check/front_end.hpp"
#include "check/summary.hpp"
#include "commands.hpp"
#include "compiler/api/method_applicability.hpp"
#include "model_options.hpp"
#include "parse/parser.hpp"

#include <fmt/format.h>
#include <iostream>

namespace mdl::cli {

namespace {

// Which multiscale methods apply (runtime/multiscale/applicability.hpp). Their verdicts
// depend on the derived force (velocity and time dependence, evenness in the phases), so the
// model is compiled, only when it has a fast scale (a vibration or a `fast` spring).
std::string multiscale_section(const check::CheckedModel& model, const source::SourceFile& file,
                               const std::string& path, const CompileOptions& options) {
    if (model.vibrations.empty() && model.fast_scales.empty()) {
        return "  multiscale methods: none apply (no vibration and no spring marked `fast`)\n";
    }
    std::string out = "  multiscale methods:\n";
    try {
        const CompiledModel compiled = compile(file.text(), path, options);
        for (const MethodVerdict& v : multiscale_verdicts(compiled)) {
            out += fmt::format("    {:<11} {}: {}\n", v.method, v.applies ? "applies" : "refused",
                               v.detail);
        }
    } catch (const std::exception& e) {
        out += fmt::format("    not decided: the model does not compile ({})\n", e.what());
    }
    return out;
}

struct CheckOptions {
    std::vector<std::string> files;
    bool quiet = false;
    bool units = false;
    ModelOptions model; // -p (Integer parameters), --library, --no-cache
};
} // namespace

std::function<int()> add_check_command(CLI::App& app, const GlobalOptions& global) {
    auto options = std::make_shared<CheckOptions>();
    CLI::App* cmd = app.add_subcommand("check", "Check models and print their summary "
                                                "(coordinates, bodies, constraints, parameters, "
                                                "fast scale) or their errors");
    cmd->add_option("files", options->files, "Model files (.mdl)")->required();
    cmd->add_flag("-q,--quiet", options->quiet, "Print only diagnostics");
    cmd->add_flag("--units", options->units,
                  "Check units even in a model that declares none, and warn about every "
                  "parameter, coordinate, state and vibration whose unit is not determined");
    add_model_options(cmd, options->model);
    return [options, &global]() {
        int status = 0;
        for (const std::string& path : options->files) {
            std::optional<source::SourceFile> file;
            try {
                file = source::SourceFile::read(path);
            } catch (const std::exception& e) {
                std::cerr << fmt::format("mdl: error: {}\n", e.what());
                status = 1;
                continue;
            }
            source::Diagnostics diagnostics(*file);
            check::FrontEndOptions front_end;
            front_end.library_paths = options->model.library_paths;
            front_end.require_units = options->units;
            CompileOptions compilation;
            try {
                compilation = compile_options(options->model);
                front_end.overrides = compilation.structural_parameters;
            } catch (const std::exception& e) {
                std::cerr << fmt::format("mdl check: error: {}\n", e.what());
                return 2;
            }
            std::optional<check::CheckedModel> model =
                check::check_file(*file, diagnostics, front_end);
            std::cerr << diagnostics.render(global.color_enabled());
            if (!model) {
                status = 1;
                continue;
            }
            if (!options->quiet) {
                std::cout << fmt::format("{}: ok\n", path) << check::summary(*model)
                          << multiscale_section(*model, *file, path, compilation);
            }
        }
        return status;
    };
}

} // namespace mdl::cli
