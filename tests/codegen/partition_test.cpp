// One model's kernels compiled on several threads at once (codegen/partition.hpp): the split
// never changes the machine code's results, small models stay on one thread, and the
// Jacobians' SLP limit (optimize.hpp) changes compile time only.
#include "codegen/compiled_kernels.hpp"

#include "../symbolic/seed_systems.hpp"
#include "kernel_test_support.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace mdl;
using codegen::CodegenOptions;
using codegen::CompiledKernels;
using symbolic::Kernel;

namespace {

std::size_t kernels_with_outputs(const symbolic::System& s) {
    std::size_t n = 0;
    for (Kernel k : symbolic::all_kernels) {
        n += s.has_kernel(k) ? 1 : 0;
    }
    return n;
}

// Every kernel's outputs at `points` random points, one after the other.
std::vector<double> all_outputs(const symbolic::System& s, const CompiledKernels& compiled,
                                int points = 5) {
    std::mt19937_64 rng(7);
    std::vector<double> result;
    for (int trial = 0; trial < points; ++trial) {
        const test::Point at = test::Point::random(s.sizes(), rng);
        for (Kernel k : symbolic::all_kernels) {
            const auto outputs = s.dense_outputs(k);
            if (s.has_kernel(k)) {
                const auto values =
                    test::run(test::kernel_of(compiled.kernels(), k), outputs.size(), at);
                result.insert(result.end(), values.begin(), values.end());
            }
        }
    }
    return result;
}

bool bitwise_equal(const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// The evaluator's values in the order of all_outputs.
std::vector<double> evaluator_outputs(const symbolic::System& s, int points = 5) {
    std::mt19937_64 rng(7);
    std::vector<double> result;
    for (int trial = 0; trial < points; ++trial) {
        const test::Point at = test::Point::random(s.sizes(), rng);
        for (Kernel k : symbolic::all_kernels) {
            if (s.has_kernel(k)) {
                const auto values = test::reference(s, k, at);
                result.insert(result.end(), values.begin(), values.end());
            }
        }
    }
    return result;
}

} // namespace

TEST_CASE("kernels compiled on several threads compute what one thread's compute",
          "[codegen][partition]") {
    // The double pendulum is large enough to be split; with a budget of 7 operations its
    // kernels are chains of sections, so a kernel and its sections land in different objects
    // and are linked by name.
    const auto s = test::double_pendulum();
    for (std::size_t budget : {300, 7}) {
        INFO("section_operations = " << budget);
        CodegenOptions one;
        one.use_object_cache = false;
        one.section_operations = budget;
        one.threads = 1;
        const auto serial = CompiledKernels::compile(*s, one);
        CHECK(serial.timings().partitions == 1);
        const std::vector<double> want = all_outputs(*s, serial);
        const std::vector<double> evaluator = evaluator_outputs(*s);
        REQUIRE(want.size() == evaluator.size());
        for (std::size_t i = 0; i < want.size(); ++i) {
            CHECK(test::close_relative(want[i], evaluator[i], 1e-13));
        }
        for (std::size_t threads : {2, 3, 8}) {
            INFO("threads = " << threads);
            CodegenOptions options = one;
            options.threads = threads;
            const auto split = CompiledKernels::compile(*s, options);
            CHECK(split.timings().partitions == std::min(threads, kernels_with_outputs(*s)));
            CHECK(bitwise_equal(all_outputs(*s, split), want));
        }
    }
}

TEST_CASE("a small model is compiled on the calling thread alone", "[codegen][partition]") {
    const auto s = test::kapitza();
    CodegenOptions options;
    options.use_object_cache = false;
    options.threads = 8;
    CHECK(CompiledKernels::compile(*s, options).timings().partitions == 1);
    // And so is any model whose IR is kept (it is printed from one module).
    const auto pendulum = test::double_pendulum();
    options.keep_ir = true;
    const auto kept = CompiledKernels::compile(*pendulum, options);
    CHECK(kept.timings().partitions == 1);
    CHECK(kept.ir().find("define void @mdl_force(") != std::string::npos);
    CHECK(kept.ir().find("define void @mdl_curvature(") != std::string::npos);
}

TEST_CASE("the objects of a split compilation are cached together", "[codegen][partition]") {
    const auto s = test::double_pendulum();
    CodegenOptions options;
    options.threads = 2;
    options.section_operations = 11; // not used by any other test: a fresh cache entry
    const auto first = CompiledKernels::compile(*s, options);
    const auto second = CompiledKernels::compile(*s, options);
    CHECK_FALSE(first.timings().from_cache);
    CHECK(first.timings().partitions == 2);
    CHECK(second.timings().from_cache);
    CHECK(bitwise_equal(all_outputs(*s, first), all_outputs(*s, second)));
}

TEST_CASE("the Jacobians' SLP limit changes the code, not the results", "[codegen][optimize]") {
    const auto s = test::double_pendulum();
    CodegenOptions vectorized;
    vectorized.use_object_cache = false;
    vectorized.slp_max_jacobian_instructions = 1000000;
    CodegenOptions scalar = vectorized;
    scalar.slp_max_jacobian_instructions = 0;
    CHECK(bitwise_equal(all_outputs(*s, CompiledKernels::compile(*s, vectorized)),
                        all_outputs(*s, CompiledKernels::compile(*s, scalar))));
    // Without vectorization the Jacobians' IR has no vector type at all.
    scalar.keep_ir = true;
    const std::string ir = CompiledKernels::compile(*s, scalar).ir();
    for (const char* name : {"define void @mdl_force_dq(", "define void @mdl_force_dv("}) {
        INFO(name);
        const std::size_t start = ir.find(name);
        REQUIRE(start != std::string::npos);
        const std::string body = ir.substr(start, ir.find("\n}\n", start) - start);
        CHECK(body.find("x double>") == std::string::npos);
    }
}
