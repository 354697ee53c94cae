// libFuzzer harness, structure-aware by construction: the input's first 8 bytes are a seed of
// the random model generator (support/random_model.hpp), so every input is a well-formed model
// (or one with a single deliberate error) that reaches the symbolic engine and the JIT, which
// byte mutations of model text rarely do. A valid model must compile, an invalid one must be
// refused with a CompileError; anything else (a crash, a hang, another exception) is a finding.
// Each compiled model's kernels are called once at a fixed state.
#include "mdl/compiled_model.hpp"
#include "random_model.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::uint64_t seed = 0;
    std::memcpy(&seed, data, std::min(size, sizeof seed));
    const mdl::test::RandomModel generated = mdl::test::random_model(seed);
    mdl::CompileOptions options;
    options.opt_level = 0; // the pipeline is what is fuzzed, not LLVM's optimizer
    try {
        mdl::CompiledModel model = mdl::compile(generated.text, "generated.mdl", options);
        if (generated.invalid) {
            std::abort(); // a model that breaks a rule of the language compiled
        }
        auto s = model.sizes();
        std::vector<double> q(s.positions, 0.5), v(s.positions, -0.25), x(s.states, 1.5);
        std::vector<double> theta = model.phases(0.125);
        std::vector<double> out(s.positions * s.positions + s.constraints * s.positions + s.states +
                                s.positions + s.constraints + 1);
        auto args = model.args(0.125, q.data(), v.data(), x.data(), theta.data());
        for (const mdl::Kernel& k :
             {model.mass(), model.force(), model.rates(), model.potential(), model.constraint(),
              model.constraint_jacobian(), model.curvature(), model.force_dq(), model.force_dv()}) {
            if (k) {
                k(args, out.data());
            }
        }
    } catch (const mdl::CompileError&) {
        if (!generated.invalid) {
            std::abort(); // a well-formed model was refused
        }
    }
    return 0;
}
