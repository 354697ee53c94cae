// mdl: compile and simulate mechanical models written in the .mdl language.
#include "commands.hpp"
#include "exit_status.hpp"
#include "mdl/compiled_model.hpp"

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <iostream>
#include <new>
#include <string_view>
#include <unistd.h>
#include <utility>

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

namespace {

// One line for an exception that no command expected, instead of "terminate called after
// throwing ..." and SIGABRT; also for one escaping a thread (std::terminate).
void report_unexpected(std::exception_ptr error) {
    try {
        std::rethrow_exception(error);
    } catch (const std::bad_alloc&) {
        std::fputs("mdl: error: out of memory\n", stderr);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mdl: internal error: %s (please report this)\n", e.what());
    } catch (...) {
        std::fputs("mdl: internal error: an unknown exception (please report this)\n", stderr);
    }
}

[[noreturn]] void on_terminate() {
    if (std::exception_ptr error = std::current_exception()) {
        report_unexpected(error);
    } else {
        std::fputs("mdl: internal error: std::terminate called (please report this)\n", stderr);
    }
    std::_Exit(mdl::cli::exit_status::internal_error);
}

// Test hook of the handler above (tests/cli/run_test.cpp): MDL_INJECT_FAULT=exception,
// bad_alloc or unknown throws that where a command would, after the options are parsed.
void inject_fault() {
    const char* fault = std::getenv("MDL_INJECT_FAULT");
    if (fault == nullptr) {
        return;
    }
    const std::string_view kind = fault;
    if (kind == "exception") {
        throw std::logic_error("fault injected by MDL_INJECT_FAULT");
    }
    if (kind == "bad_alloc") {
        throw std::bad_alloc();
    }
    if (kind == "unknown") {
        throw 22;
    }
}

} // namespace

int main(int argc, char** argv) {
    std::set_terminate(on_terminate);
    // the library's warnings (a code cache that cannot be used) on stderr, one line each
    mdl::set_warning_handler([](const std::string& warning) {
        std::fprintf(stderr, "mdl: warning: %s\n", warning.c_str());
    });
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
    auto run_export = mdl::cli::add_export_command(app);
    auto run_modes = mdl::cli::add_modes_command(app);
    auto run_periodic = mdl::cli::add_periodic_command(app);
    auto run_continue = mdl::cli::add_continue_command(app);
    auto run_stability_chart = mdl::cli::add_stability_chart_command(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help and --version exit 0; every usage error exits 2, as documented in docs/cli.md.
        return app.exit(e) == 0 ? 0 : 2;
    }
    int status = mdl::cli::exit_status::bad_input;
    try {
        inject_fault();
        using Command = std::pair<const char*, const std::function<int()>*>;
        const std::array<Command, 12> commands = {{{"check", &run_check},
                                                   {"compile", &run_compile},
                                                   {"run", &run_run},
                                                   {"reproduce", &run_reproduce},
                                                   {"sweep", &run_sweep},
                                                   {"plot", &run_plot},
                                                   {"cache", &run_cache},
                                                   {"export", &run_export},
                                                   {"modes", &run_modes},
                                                   {"periodic", &run_periodic},
                                                   {"continue", &run_continue},
                                                   {"stability-chart", &run_stability_chart}}};
        for (const auto& [name, command] : commands) {
            if (app.got_subcommand(name)) {
                status = (*command)();
            }
        }
    } catch (...) {
        report_unexpected(std::current_exception());
        return mdl::cli::exit_status::internal_error;
    }
    // what the commands print on stdout (reports, --emit-llvm, --script, a CSV) must have
    // arrived: `mdl check m.mdl > /dev/full` is an error, not a success
    errno = 0;
    std::cout.flush();
    if (!std::cout && status == mdl::cli::exit_status::success) {
        std::fprintf(stderr, "mdl: error: writing 'standard output': %s\n",
                     errno != 0 ? std::strerror(errno) : "the stream reported a write error");
        return mdl::cli::exit_status::output_failed;
    }
    return status;
}
