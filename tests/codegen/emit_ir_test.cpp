// The shape of the emitted IR (O0: as emitted, before LLVM's own clean-up).
#include "codegen/compiled_kernels.hpp"

#include "../symbolic/seed_systems.hpp"
#include "kernel_test_support.hpp"
#include "symbolic/system.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

using namespace mdl;
using codegen::CodegenOptions;
using codegen::OptLevel;
using symbolic::Kernel;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
        ++n;
    }
    return n;
}

// The body of one function in the module text.
std::string function_body(const std::string& ir, const std::string& name) {
    const std::size_t start = ir.find("define void @" + name + "(");
    REQUIRE(start != std::string::npos);
    const std::size_t end = ir.find("\n}\n", start);
    return ir.substr(start, end - start);
}

CodegenOptions as_emitted() {
    CodegenOptions options;
    options.opt_level = OptLevel::O0;
    return options;
}

} // namespace

TEST_CASE("one function per kernel with outputs, with the mdl_kernel signature", "[emit_ir]") {
    const auto s = test::kapitza();
    const std::string ir = codegen::optimized_ir(*s, as_emitted());
    for (const char* name :
         {"mdl_mass", "mdl_force", "mdl_force_dq", "mdl_force_dv", "mdl_phase", "mdl_phase_rate"}) {
        INFO(name);
        CHECK(ir.find(std::string("define void @") + name +
                      "(ptr noalias nocapture nonnull "
                      "readonly align 8") != std::string::npos);
    }
    CHECK(ir.find("@mdl_rates") == std::string::npos);
    CHECK(ir.find("@mdl_constraint") == std::string::npos);
    CHECK(ir.find("@mdl_potential") == std::string::npos);
}

TEST_CASE("a node shared by several outputs is computed once", "[emit_ir]") {
    symbolic::System s({2, 0, 0, 0, 2});
    const symbolic::Expr q = s.position(0), a = s.parameter(0), b = s.parameter(1);
    s.outputs(Kernel::mass) = {s.constant(1), s.constant(1)};
    s.outputs(Kernel::force) = {sin(q) * a, sin(q) * b + pow(sin(q), 2.0)};
    symbolic::derive_kernels(s);
    const std::string force = function_body(codegen::optimized_ir(s, as_emitted()), "mdl_force");
    INFO(force);
    CHECK(count(force, "call double @llvm.sin.f64(") == 1);
    CHECK(count(force, "load double") == 3); // q[0], p[0], p[1], each once
}

TEST_CASE("integer powers are multiplications, other powers call pow", "[emit_ir]") {
    symbolic::System s({5, 0, 0, 0, 1});
    const symbolic::Expr p = s.parameter(0);
    s.outputs(Kernel::mass) = std::vector<symbolic::ExprId>(5, s.pool().one());
    s.outputs(Kernel::force) = {pow(s.position(0), 2.0), pow(s.position(1), 5.0),
                                pow(s.position(2), 1.7), p / s.position(3),
                                pow(s.position(4), 1.5)};
    symbolic::derive_kernels(s);
    const std::string force = function_body(codegen::optimized_ir(s, as_emitted()), "mdl_force");
    INFO(force);
    // x^2: 1 multiply; x^5 = x * (x^2)^2: 3; x^1.5 = sqrt(x)^3 = r * (r*r): 2.
    CHECK(count(force, "fmul double") == 6);
    CHECK(count(force, "@llvm.sqrt.f64(") == 1);
    CHECK(count(force, "@llvm.pow.f64(") == 1); // only x^1.7
    CHECK(count(force, "fdiv double") == 1);    // p / x, not p * (1 / x)
}

TEST_CASE("functions without an intrinsic call the C library", "[emit_ir]") {
    symbolic::System s({2, 0, 0, 0, 0});
    s.outputs(Kernel::mass) = {s.constant(1), s.constant(1)};
    s.outputs(Kernel::force) = {tan(s.position(0)), atan2(s.position(1), s.position(0))};
    symbolic::derive_kernels(s);
    const std::string ir = codegen::optimized_ir(s, as_emitted());
    CHECK(ir.find("declare double @tan(double)") != std::string::npos);
    CHECK(ir.find("declare double @atan2(double, double)") != std::string::npos);
}

TEST_CASE("kept IR is optimized and names the variables", "[emit_ir]") {
    const auto s = test::kapitza();
    CodegenOptions options;
    options.keep_ir = true;
    const auto compiled = codegen::CompiledKernels::compile(*s, options);
    const std::string& ir = compiled.ir();
    CHECK(ir.find("define void @mdl_force(") != std::string::npos);
    CHECK(ir.find("%phi = load double") != std::string::npos);
    CHECK(ir.find("%omega = load double") != std::string::npos);
    CHECK(ir == codegen::optimized_ir(*s, options));
}

TEST_CASE("a spring's Jacobian takes one square root and shares its reciprocals", "[emit_ir]") {
    // U = k/2 (r - L)^2, r = |(x, y)|; force = -grad U, force_dq its Jacobian (derive_kernels).
    // The force k (L - r) d/r is k d (L/r - 1) (a sum divided by its own term, simplify.cpp), so
    // its derivative is the closed form with powers of 1/r only: numeric.hpp computes 1/r once,
    // and 1/r^3 from it.
    symbolic::System s({2, 0, 0, 0, 2});
    const symbolic::Expr k = s.parameter(0), len = s.parameter(1);
    const symbolic::Expr x = s.position(0), y = s.position(1);
    const symbolic::Expr r = sqrt(x * x + y * y);
    const symbolic::Expr potential = 0.5 * k * pow(r - len, 2.0);
    std::vector<symbolic::ExprId> force =
        symbolic::gradient(s.pool(), potential, symbolic::VarKind::position, 2);
    for (auto& f : force) {
        f = s.pool().neg(f);
    }
    s.outputs(Kernel::mass) = {s.constant(1), s.constant(1)};
    s.outputs(Kernel::force) = force;
    symbolic::derive_kernels(s);
    // (the values of the structural nonzeros: all four entries here)
    const std::string dq =
        function_body(codegen::optimized_ir(s, as_emitted()), "mdl_force_dq_values");
    INFO(dq);
    CHECK(count(dq, "@llvm.sqrt.f64(") == 1);
    CHECK(count(dq, "fdiv double") == 1); // 1/r
    // and the values are the closed form k [(L/r - 1) I - L d d^T / r^3] (d = (x, y))
    const auto compiled = codegen::CompiledKernels::compile(s, {});
    const mdl_kernels& table = compiled.kernels();
    const double q[] = {0.6, -1.3}, v[] = {0, 0}, p[] = {7.0, 1.1};
    mdl_kernel_args args{};
    args.q = q;
    args.v = v;
    args.p = p;
    double out[4];
    table.force_dq(&args, out);
    const double rr = std::hypot(0.6, -1.3), kk = 7.0, L = 1.1;
    const double d[] = {0.6, -1.3};
    for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 2; ++j) {
            const double want =
                kk * ((i == j ? L / rr - 1 : 0.0) - L * d[i] * d[j] / (rr * rr * rr));
            CHECK(out[2 * i + j] == Approx(want).epsilon(1e-14));
        }
    }
}

TEST_CASE("a sparse matrix's dense kernel: its values, one memset and a move loop", "[emit_ir]") {
    // Three bodies on a line, two pulled by parameter-scaled sines, the third free: df/dq is
    // [d0 0 0; 0 d1 0; 0 0 0], whose values kernel writes d0, d1 and whose dense kernel sets
    // the other 7 entries after them to zero and moves d1 from entry 1 to entry 4 (d0 stays:
    // no move); df/dv has no nonzero: a memset of all 9 entries.
    symbolic::System s({3, 0, 0, 0, 1});
    const symbolic::Expr c = s.parameter(0);
    s.outputs(Kernel::mass) = {s.constant(1), s.constant(1), s.constant(1)};
    s.outputs(Kernel::force) = {c * sin(s.position(0)), c * sin(s.position(1)), s.constant(0)};
    symbolic::derive_kernels(s);
    const std::string ir = codegen::optimized_ir(s, as_emitted());
    const std::string dv = function_body(ir, "mdl_force_dv");
    CHECK(count(dv, "call void @llvm.memset") == 1);
    CHECK(count(dv, "i64 72, i1 false)") == 1);
    CHECK(count(dv, "store double") == 0);
    CHECK(count(function_body(ir, "mdl_force_dv_values"), "store double") == 0);
    const std::string dq = function_body(ir, "mdl_force_dq");
    CHECK(count(dq, "call void @mdl_force_dq_values(") == 1);
    CHECK(count(dq, "call void @llvm.memset") == 1);
    CHECK(count(dq, "i64 56, i1 false)") == 1);
    CHECK(count(dq, "store double 0.0") == 1); // in the loop: the entry moved away
    CHECK(count(function_body(ir, "mdl_force_dq_values"), "store double") == 2);
    CHECK(ir.find("@mdl_force_dq.positions = private unnamed_addr constant [2 x i64] [i64 0, "
                  "i64 4]") != std::string::npos);

    // And the JIT's memsets write what the evaluator computes, over whatever was there.
    const auto compiled = codegen::CompiledKernels::compile(s);
    test::Point at;
    at.q = {0.3, -0.7, 1.1};
    at.v = {0.0, 0.0, 0.0};
    at.p = {2.0};
    for (Kernel k : {Kernel::force_dq, Kernel::force_dv}) {
        const std::vector<double> jit = test::run(test::kernel_of(compiled.kernels(), k), 9, at);
        const std::vector<double> want = test::reference(s, k, at);
        for (std::size_t i = 0; i < 9; ++i) {
            INFO(symbolic::kernel_name(k) << "[" << i << "]");
            CHECK(jit[i] == want[i]);
            CHECK(std::signbit(jit[i]) == std::signbit(want[i]));
        }
    }
}
