// The bodies of the fuzz harnesses (parse, check, compile), shared with the regression test
// that replays every input the fuzzers ever crashed on (tests/fuzz/regressions/).
#pragma once

#include "check/checker.hpp"
#include "check/front_end.hpp"
#include "parse/parser.hpp"

#include "mdl/compiled_model.hpp" // compile_and_call

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mdl::fuzz {

// Parses arbitrary bytes; renders the diagnostics so that every location is exercised.
inline std::optional<ast::Model> parse_bytes(const source::SourceFile& file,
                                             source::Diagnostics& diagnostics) {
    auto model = parse::parse_model(file, diagnostics);
    (void)diagnostics.render();
    return model;
}

inline void parse_only(const std::uint8_t* data, std::size_t size) {
    source::SourceFile file("fuzz.mdl", std::string(reinterpret_cast<const char*>(data), size));
    source::Diagnostics diagnostics(file);
    (void)parse_bytes(file, diagnostics);
}

inline void parse_and_check(const std::uint8_t* data, std::size_t size) {
    source::SourceFile file("fuzz.mdl", std::string(reinterpret_cast<const char*>(data), size));
    source::Diagnostics diagnostics(file);
    // The whole front end: parse, flatten (arrays, loops, components), check.
    (void)check::check_file(file, diagnostics);
    (void)diagnostics.render();
}

// The whole compiler: inputs that pass the checks are turned into the symbolic system,
// JIT-compiled, and every kernel is called once at a fixed state. A CompileError (located
// diagnostics) is the expected outcome for most inputs; anything else propagates.
inline void compile_and_call(const std::uint8_t* data, std::size_t size) {
    CompileOptions options;
    options.node_limit = 1 << 16; // small: swell must fail fast under the fuzzer's timeout
    options.opt_level = 0;        // the pipeline is what is fuzzed, not LLVM's optimizer
    try {
        CompiledModel model =
            compile(std::string(reinterpret_cast<const char*>(data), size), "fuzz.mdl", options);
        auto s = model.sizes();
        std::vector<double> q(s.positions, 0.5), v(s.positions, -0.25), x(s.states, 1.5);
        std::vector<double> theta = model.phases(0.125);
        std::vector<double> out(s.positions * s.positions + s.constraints * s.positions + s.states +
                                s.positions + s.constraints + 1);
        auto args = model.args(0.125, q.data(), v.data(), x.data(), theta.data());
        for (const Kernel& k :
             {model.mass(), model.force(), model.rates(), model.potential(), model.constraint(),
              model.constraint_jacobian(), model.curvature(), model.force_dq(), model.force_dv(),
              model.mass_matrix()}) {
            if (k) {
                k(args, out.data());
            }
        }
        (void)model.symbolic_text();
    } catch (const CompileError&) {
    }
}

} // namespace mdl::fuzz
