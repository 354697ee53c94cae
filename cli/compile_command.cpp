// mdl compile FILE.mdl [--emit-symbolic] [--emit-llvm] [--timings] [-O N] [--fast-math]
//                      [--no-cache]:
// compile a model to native kernels and show what was derived or generated.
#include "commands.hpp"
#include "mdl/compiled_model.hpp"
#include "model_options.hpp"

#include <fmt/format.h>
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
    ModelOptions model; // -p (Integer parameters), --library, --no-cache
};
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
    return [o]() {
        CompileOptions options = compile_options(o->model);
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
            if (!o->emit_symbolic && !o->emit_llvm && !o->timings) {
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
