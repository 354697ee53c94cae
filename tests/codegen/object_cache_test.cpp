#include "codegen/compiled_kernels.hpp"

#include "../symbolic/seed_systems.hpp"
#include "kernel_test_support.hpp"

#include <catch2/catch.hpp>

using namespace mdl;
using codegen::CodegenOptions;
using codegen::CompiledKernels;

TEST_CASE("an identical system reuses the machine code", "[object_cache]") {
    // Built twice, in two pools: the key is structural, not per pool.
    const auto first = test::damped_oscillator();
    const auto second = test::damped_oscillator();
    CodegenOptions options;
    options.opt_level = codegen::OptLevel::O1; // a key no other test uses first
    const auto a = CompiledKernels::compile(*first, options);
    const auto b = CompiledKernels::compile(*second, options);
    CHECK_FALSE(a.timings().from_cache);
    CHECK(b.timings().from_cache);

    std::mt19937_64 rng(1);
    const test::Point at = test::Point::random(first->sizes(), rng);
    CHECK(test::close_relative(test::run(b.kernels().force, 1, at)[0],
                               test::reference(*first, symbolic::Kernel::force, at)[0], 1e-13));
    CHECK(test::run(b.kernels().rates, 1, at) == test::run(a.kernels().rates, 1, at));

    // Different options or a different system miss.
    CodegenOptions fast = options;
    fast.fast_math = true;
    CHECK_FALSE(CompiledKernels::compile(*first, fast).timings().from_cache);
    auto changed = test::damped_oscillator();
    symbolic::ExprPool& pool = changed->pool();
    auto& force = changed->outputs(symbolic::Kernel::force);
    force[0] = pool.add(force[0], pool.one());
    CHECK_FALSE(CompiledKernels::compile(*changed, options).timings().from_cache);

    // The cache can be bypassed.
    CodegenOptions uncached = options;
    uncached.use_object_cache = false;
    CHECK_FALSE(CompiledKernels::compile(*first, uncached).timings().from_cache);
}
