// mdl check FILE.mdl: parse and check a model, print its summary or its diagnostics.
#include "check/checker.hpp"
#include "check/front_end.hpp"
#include "check/summary.hpp"
#include "commands.hpp"
#include "method_applicability.hpp"
#include "parse/parser.hpp"
#include "simulation.hpp"

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
    std::vector<std::string> parameters; // name=value, Integer parameters
    std::vector<std::string> library_paths;
    bool no_cache = false;
};
} // namespace

std::function<int()> add_check_command(CLI::App& app, const GlobalOptions& global) {
    auto options = std::make_shared<CheckOptions>();
    CLI::App* cmd = app.add_subcommand("check", "Check models and print their summary "
                                                "(coordinates, bodies, constraints, parameters, "
                                                "fast scale) or their errors");
    cmd->add_option("files", options->files, "Model files (.mdl)")->required();
    cmd->add_flag("-q,--quiet", options->quiet, "Print only diagnostics");
    cmd->add_option("-p,--parameter", options->parameters,
                    "Set an Integer parameter (array size, loop bound): -p n=200");
    cmd->add_option("--library", options->library_paths,
                    "A folder of component models, searched after the model's own folder");
    cmd->add_flag("--no-cache", options->no_cache,
                  "Neither read nor write the code cache on disk (see mdl cache)");
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
            front_end.library_paths = options->library_paths;
            try {
                for (const auto& p : options->parameters) {
                    front_end.overrides.push_back(parse_assignment(p));
                }
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
                CompileOptions compile_options;
                compile_options.library_paths = options->library_paths;
                compile_options.structural_parameters = front_end.overrides;
                compile_options.disk_cache = !options->no_cache;
                std::cout << fmt::format("{}: ok\n", path) << check::summary(*model)
                          << multiscale_section(*model, *file, path, compile_options);
            }
        }
        return status;
    };
}

} // namespace mdl::cli
