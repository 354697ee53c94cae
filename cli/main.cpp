// mdl: compile and simulate mechanical models written in the .mdl language.
#include "commands.hpp"

#include <cstdio>
#include <iostream>
#include <unistd.h>

namespace mdl::cli {
bool GlobalOptions::color_enabled() const {
    if (color == "always") {
        return true;
    }
    if (color == "never") {
        return false;
    }
    return isatty(fileno(stderr)) != 0 && std::getenv("NO_COLOR") == nullptr;
}
} // namespace mdl::cli

int main(int argc, char** argv) {
    CLI::App app{"mdl: compile and simulate mechanical models with fast vibrations", "mdl"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "mdl 0.1.0");
    mdl::cli::GlobalOptions global;
    app.add_option("--color", global.color, "Colour diagnostics: auto, always or never")
        ->check(CLI::IsMember({"auto", "always", "never"}));
    auto run_check = mdl::cli::add_check_command(app, global);
    auto run_compile = mdl::cli::add_compile_command(app);
    auto run_run = mdl::cli::add_run_command(app);
    auto run_reproduce = mdl::cli::add_reproduce_command(app);
    auto run_sweep = mdl::cli::add_sweep_command(app);
    auto run_plot = mdl::cli::add_plot_command(app);
    auto run_cache = mdl::cli::add_cache_command(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help and --version exit 0; every usage error exits 2, as documented in docs/cli.md.
        return app.exit(e) == 0 ? 0 : 2;
    }
    if (app.got_subcommand("check")) {
        return run_check();
    }
    if (app.got_subcommand("compile")) {
        return run_compile();
    }
    if (app.got_subcommand("run")) {
        return run_run();
    }
    if (app.got_subcommand("reproduce")) {
        return run_reproduce();
    }
    if (app.got_subcommand("sweep")) {
        return run_sweep();
    }
    if (app.got_subcommand("plot")) {
        return run_plot();
    }
    if (app.got_subcommand("cache")) {
        return run_cache();
    }
    return 2;
}
