// libFuzzer harness: the whole compiler on arbitrary bytes. Inputs that pass the checks are
// turned into the symbolic system, JIT-compiled and every kernel is called once at a fixed
// state: nothing may crash, leak or trip a sanitizer, and expression swell must end in an
// error, not a hang.
#include "mdl/compiled_model.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    mdl::CompileOptions options;
    options.node_limit = 1 << 16; // small: swell must fail fast under the fuzzer's timeout
    options.opt_level = 0;        // the pipeline is what is fuzzed, not LLVM's optimizer
    try {
        mdl::CompiledModel model = mdl::compile(
            std::string(reinterpret_cast<const char*>(data), size), "fuzz.mdl", options);
        auto s = model.sizes();
        std::vector<double> q(s.positions, 0.5), v(s.positions, -0.25), x(s.states, 1.5);
        std::vector<double> theta = model.phases(0.125);
        std::vector<double> out(s.positions * s.positions + s.constraints * s.positions + s.states +
                                s.positions + s.constraints + 1);
        auto args = model.args(0.125, q.data(), v.data(), x.data(), theta.data());
        for (const mdl::Kernel& k :
             {model.mass(), model.force(), model.rates(), model.potential(), model.constraint(),
              model.constraint_jacobian(), model.curvature(), model.force_dq(), model.force_dv(),
              model.mass_matrix()}) {
            if (k) {
                k(args, out.data());
            }
        }
        (void)model.symbolic_text();
    } catch (const mdl::CompileError&) {
        // located diagnostics: the expected outcome for most inputs
    }
    return 0;
}
