// mdl compile FILE.mdl [--emit-symbolic] [--emit-llvm] [--timings] [-O N] [--fast-math]
//                      [--no-cache] [--emit-object FILE.o] [--emit-header FILE.h]
//                      [--prefix NAME] [--cpu CPU] [--target TRIPLE]:
// compile a model to native kernels and show what was derived or generated; ahead of time,
// write the kernels as an object file and its C header.
#include "commands.hpp"
#include "mdl/compiled_model.hpp"
#include "model_options.hpp"

#include "exit_status.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>

namespace mdl::cli {

namespace {
struct CompileCommandOptions {
    std::string file;
    bool emit_symbolic = false;
    bool emit_llvm = false;
    bool timings = false;
    int opt_level = 2;
    bool fast_math = false;
    ModelOptions model;                   // -p (Integer parameters), --library, --no-cache
    std::string object_file, header_file; // ahead of time: where to write them
    ObjectOptions object;
};

// Writes `bytes` to `path` whole or not at all (a temporary file renamed over it), so a
// failed write never leaves a truncated object that a build would link. Devices and pipes
// (/dev/stdout, /dev/null) are written directly, never replaced.
void write_output(const std::string& path, const std::string& bytes) {
    std::error_code ignored;
    const auto status = std::filesystem::status(path, ignored);
    const bool special =
        std::filesystem::exists(status) && !std::filesystem::is_regular_file(status);
    const std::string temporary = special ? path : path + ".tmp";
    errno = 0;
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (out) {
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        out.close();
    }
    if (!out) {
        const std::string reason = errno ? std::strerror(errno) : "write failed";
        if (!special) {
            std::remove(temporary.c_str());
        }
        throw WriteFailure(path, reason);
    }
    if (!special && std::rename(temporary.c_str(), path.c_str()) != 0) {
        const std::string reason = std::strerror(errno);
        std::remove(temporary.c_str());
        throw WriteFailure(path, reason);
    }
}
} // namespace

std::function<int()> add_compile_command(CLI::App& app) {
    auto o = std::make_shared<CompileCommandOptions>();
    CLI::App* cmd = app.add_subcommand("compile", "Compile a model to native kernels; print the "
                                                  "derived equations or the optimized LLVM IR");
    cmd->add_option("file", o->file, "Model file (.mdl)")->required();
    cmd->add_flag("--emit-symbolic", o->emit_symbolic,
                  "Print the derived equations: masses, forces, Jacobians, curvature");
    cmd->add_flag("--emit-llvm", o->emit_llvm, "Print the optimized LLVM IR of the kernels");
    cmd->add_flag("--timings", o->timings, "Print the time spent in each compilation stage");
    cmd->add_option("-O,--opt-level", o->opt_level, "LLVM optimization level")
        ->check(CLI::Range(0, 3));
    cmd->add_flag("--fast-math", o->fast_math,
                  "Allow reassociation and FMA contraction (results may differ in the last bits)");
    add_model_options(cmd, o->model);
    cmd->add_option("--emit-object", o->object_file,
                    "Write the kernels as a position-independent object file (ahead of time: "
                    "<prefix>_force ..., const mdl_kernels <prefix>_kernels; needs only libm)");
    cmd->add_option("--emit-header", o->header_file,
                    "Write the C header for --emit-object: the kernel ABI, the symbols, sizes, "
                    "names, parameter values and start state");
    cmd->add_option("--prefix", o->object.prefix,
                    "Prefix of the object's symbols (default: the model's name in lower case)");
    cmd->add_option("--cpu", o->object.cpu,
                    "CPU of the object code: x86-64 (default, any x86-64 machine), x86-64-v3, a "
                    "CPU name, or native (this machine's)");
    cmd->add_option("--target", o->object.triple,
                    "Target triple of the object code (default: this machine's; this mdl "
                    "generates code for its own architecture only)");
    return [o]() {
        CompileOptions options;
        try {
            options = compile_options(o->model);
        } catch (const std::invalid_argument& e) {
            std::cerr << fmt::format("mdl compile: error: {}\n", e.what());
            return exit_status::bad_input;
        }
        options.opt_level = o->opt_level;
        options.fast_math = o->fast_math;
        options.keep_ir = o->emit_llvm;
        try {
            CompiledModel model = compile_file(o->file, options);
            if (o->emit_symbolic) {
                std::cout << model.symbolic_text();
            }
            if (o->emit_llvm) {
                std::cout << model.llvm_ir();
            }
            if (o->timings) {
                const auto& t = model.timings();
                std::cerr << fmt::format("{}: front end {:.3f} ms, symbolic {:.3f} ms, codegen + "
                                         "JIT {:.3f} ms, total {:.3f} ms, code cache {}\n",
                                         o->file, t.frontend_ms, t.symbolic_ms, t.codegen_ms,
                                         t.total_ms, t.cache);
            }
            bool ahead_of_time = false;
            try {
                if (!o->object_file.empty()) {
                    write_output(o->object_file, model.object_code(o->object));
                    ahead_of_time = true;
                }
                if (!o->header_file.empty()) {
                    write_output(o->header_file, model.c_header(o->object));
                    ahead_of_time = true;
                }
            } catch (const std::invalid_argument& e) {
                std::cerr << fmt::format("mdl compile: error: {}\n", e.what());
                return exit_status::bad_input;
            } catch (const WriteFailure& e) {
                std::cerr << fmt::format("mdl compile: error: {}\n", e.what());
                return exit_status::output_failed;
            }
            if (ahead_of_time) {
                std::cerr << fmt::format(
                    "mdl compile: wrote {}{}{}\n", o->object_file,
                    !o->object_file.empty() && !o->header_file.empty() ? " and " : "",
                    o->header_file);
            }
            if (!o->emit_symbolic && !o->emit_llvm && !o->timings && !ahead_of_time) {
                auto s = model.sizes();
                std::cout << fmt::format("{}: compiled {} ({} positions, {} states, {} "
                                         "constraints, {} vibrations, {} parameters)\n",
                                         o->file, model.name(), s.positions, s.states,
                                         s.constraints, s.vibrations, s.parameters);
            }
            return 0;
        } catch (const CompileError& e) {
            std::cerr << e.what();
            return 1;
        }
    };
}

} // namespace mdl::cli
