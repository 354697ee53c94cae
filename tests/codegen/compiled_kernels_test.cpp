// JIT-compiled kernels against the reference evaluator (to 1e-13 relative) and against the
// hand-derived formulas of the seed systems.
#include "codegen/compiled_kernels.hpp"
#include "symbolic/derivative.hpp"

#include "../symbolic/seed_systems.hpp"
#include "kernel_test_support.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace mdl;
using codegen::CodegenOptions;
using codegen::CompiledKernels;
using codegen::OptLevel;
using symbolic::Kernel;
using test::close_relative;

namespace {

// Every kernel with outputs, at `points` random points: JIT == evaluator to `tolerance`.
void check_against_evaluator(const symbolic::System& s, const CompiledKernels& compiled,
                             std::uint64_t seed, double tolerance = 1e-13, int points = 25) {
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < points; ++trial) {
        const test::Point at = test::Point::random(s.sizes(), rng);
        for (Kernel k : symbolic::all_kernels) {
            const auto outputs = s.dense_outputs(k);
            const mdl_kernel kernel = test::kernel_of(compiled.kernels(), k);
            if (!s.has_kernel(k)) {
                CHECK(kernel == nullptr);
                CHECK(test::values_of(compiled.kernels(), k) == nullptr);
                continue;
            }
            REQUIRE(kernel != nullptr);
            const auto jit = test::run(kernel, outputs.size(), at);
            const auto want = test::reference(s, k, at);
            for (std::size_t i = 0; i < outputs.size(); ++i) {
                INFO(symbolic::kernel_name(k)
                     << "[" << i << "]: jit " << jit[i] << ", evaluator " << want[i]);
                CHECK(close_relative(jit[i], want[i], tolerance));
            }
            if (!symbolic::is_matrix_kernel(k)) {
                continue;
            }
            // the values kernel: the evaluator's values of the pattern's entries, which the
            // table exports, and the dense kernel's entries at those places
            const symbolic::Sparsity pattern = s.sparsity(k);
            const mdl_sparsity* table_pattern = test::pattern_of(compiled.kernels(), k);
            REQUIRE(table_pattern->rows == pattern.rows);
            REQUIRE(table_pattern->columns == pattern.columns);
            REQUIRE(table_pattern->nonzeros == pattern.nonzeros());
            for (std::uint32_t r = 0; r <= pattern.rows; ++r) {
                REQUIRE(table_pattern->row_start[r] == pattern.row_start[r]);
            }
            const mdl_kernel values = test::values_of(compiled.kernels(), k);
            REQUIRE(values != nullptr);
            const auto jit_values = test::run(values, pattern.nonzeros(), at);
            const auto want_values = test::reference_values(s, k, at);
            for (std::uint32_t r = 0; r < pattern.rows; ++r) {
                for (std::uint32_t e = pattern.row_start[r]; e < pattern.row_start[r + 1]; ++e) {
                    REQUIRE(table_pattern->column[e] == pattern.column[e]);
                    const std::size_t dense =
                        std::size_t{r} * pattern.columns + table_pattern->column[e];
                    CHECK(std::memcmp(&jit_values[e], &jit[dense], sizeof(double)) == 0);
                    CHECK(close_relative(jit_values[e], want_values[e], tolerance));
                }
            }
        }
    }
}

} // namespace

TEST_CASE("Kapitza pendulum: JIT equals the evaluator and the formulas", "[codegen][kapitza]") {
    const auto s = test::kapitza();
    const auto compiled = CompiledKernels::compile(*s);
    const mdl_kernels& k = compiled.kernels();
    CHECK(k.n_positions == 1);
    CHECK(k.n_states == 0);
    CHECK(k.n_constraints == 0);
    CHECK(k.n_vibrations == 1);
    CHECK(k.n_parameters == 5);
    CHECK(k.rates == nullptr);
    CHECK(k.potential == nullptr);
    CHECK(k.constraint == nullptr);
    CHECK(k.constraint_jacobian == nullptr);
    CHECK(k.curvature == nullptr);
    CHECK(k.velocity_dependent == 0);
    CHECK(k.time_dependent == 0);
    check_against_evaluator(*s, compiled, 1);

    // Force, df/dq, phase and its rate against the hand formulas.
    std::mt19937_64 rng(2);
    std::uniform_real_distribution<double> u(-3.0, 3.0), pos(0.2, 3.0);
    for (int trial = 0; trial < 20; ++trial) {
        const test::KapitzaPoint pt{u(rng),   u(rng),   u(rng),   u(rng), pos(rng),
                                    pos(rng), pos(rng), pos(rng), u(rng)};
        test::Point at;
        at.t = pt.t;
        at.q = {pt.q};
        at.v = {pt.v};
        at.theta = {pt.theta};
        at.p = {pt.l, pt.g, pt.vmax, pt.omega, pt.theta0};
        CHECK(close_relative(test::run(k.force, 1, at)[0], pt.force(), 1e-13));
        CHECK(close_relative(test::run(k.force_dq, 1, at)[0], pt.force_dq(), 1e-13));
        CHECK(close_relative(test::run(k.phase, 1, at)[0], pt.phase(), 1e-13));
        CHECK(test::run(k.phase_rate, 1, at)[0] == pt.omega);
        CHECK(test::run(k.force_dv, 1, at)[0] == 0.0);
        CHECK(test::run(k.mass, 1, at)[0] == 1.0);
    }
}

TEST_CASE("double pendulum: JIT G and curvature equal the hand formulas",
          "[codegen][double_pendulum]") {
    const auto s = test::double_pendulum();
    const auto compiled = CompiledKernels::compile(*s);
    const mdl_kernels& k = compiled.kernels();
    CHECK(k.n_positions == 4);
    CHECK(k.n_constraints == 2);
    CHECK(k.potential != nullptr);
    check_against_evaluator(*s, compiled, 3);

    std::mt19937_64 rng(4);
    std::uniform_real_distribution<double> u(-2.0, 2.0), pos(0.3, 2.5);
    for (int trial = 0; trial < 20; ++trial) {
        test::DoublePendulumPoint pt{};
        pt.t = u(rng);
        for (int i = 0; i < 4; ++i) {
            pt.q[i] = u(rng);
            pt.v[i] = u(rng);
        }
        pt.theta = u(rng);
        pt.m1 = pos(rng), pt.m2 = pos(rng), pt.l1 = pos(rng), pt.l2 = pos(rng);
        pt.g = pos(rng), pt.A = pos(rng), pt.omega = pos(rng);
        test::Point at;
        at.t = pt.t;
        at.q.assign(pt.q, pt.q + 4);
        at.v.assign(pt.v, pt.v + 4);
        at.theta = {pt.theta};
        at.p = {pt.m1, pt.m2, pt.l1, pt.l2, pt.g, pt.A, pt.omega};

        const auto check_all = [](const std::vector<double>& got, const std::vector<double>& want,
                                  double tol) {
            REQUIRE(got.size() == want.size());
            for (std::size_t i = 0; i < got.size(); ++i) {
                INFO("entry " << i << ": " << got[i] << " vs " << want[i]);
                CHECK(close_relative(got[i], want[i], tol));
            }
        };
        check_all(test::run(k.constraint_jacobian, 8, at), pt.jacobian(), 1e-13);
        check_all(test::run(k.curvature, 2, at), pt.curvature(), 1e-12);
        check_all(test::run(k.force, 4, at), pt.force(), 1e-13);
        check_all(test::run(k.potential, 1, at), {pt.potential()}, 1e-13);
        check_all(test::run(k.mass, 4, at), {pt.m1, pt.m1, pt.m2, pt.m2}, 0.0);
        const auto g = test::run(k.constraint, 2, at);
        const auto want = pt.constraint();
        for (std::size_t i = 0; i < 2; ++i) {
            CHECK(g[i] == Approx(want[i]).margin(1e-14 * 32));
        }
    }
}

TEST_CASE("damped oscillator: JIT df/dv, rates and flags", "[codegen][damped]") {
    const auto s = test::damped_oscillator();
    const auto compiled = CompiledKernels::compile(*s);
    const mdl_kernels& k = compiled.kernels();
    CHECK(k.velocity_dependent == 1);
    CHECK(k.time_dependent == 1);
    CHECK(k.phase == nullptr);
    CHECK(k.phase_rate == nullptr);
    CHECK(k.rates != nullptr);
    check_against_evaluator(*s, compiled, 5);

    const test::DampedOscillatorPoint pt{0.7, 0.3, -1.1, 0.25, 2.0, 5.0, 0.4, 1.5, 3.0, 0.8};
    test::Point at;
    at.t = pt.t;
    at.q = {pt.q};
    at.v = {pt.v};
    at.x = {pt.x};
    at.p = {pt.m, pt.k, pt.c, pt.F0, pt.w, pt.tau};
    CHECK(close_relative(test::run(k.force, 1, at)[0], pt.force(), 1e-13));
    CHECK(close_relative(test::run(k.rates, 1, at)[0], pt.rates(), 1e-13));
    CHECK(close_relative(test::run(k.potential, 1, at)[0], pt.potential(), 1e-13));
    CHECK(test::run(k.force_dv, 1, at)[0] == pt.force_dv());
    CHECK(test::run(k.force_dq, 1, at)[0] == pt.force_dq());
    CHECK(test::run(k.mass, 1, at)[0] == pt.m);
}

TEST_CASE("every built-in and operation compiles to what the evaluator computes",
          "[codegen][builtins]") {
    using symbolic::Expr;
    // One position per expression, so each output exercises one code path.
    const std::vector<std::function<Expr(Expr, Expr)>> forms = {
        [](Expr q, Expr) { return sin(q); },
        [](Expr q, Expr) { return cos(q); },
        [](Expr q, Expr) { return tan(q); },
        [](Expr q, Expr) { return exp(q); },
        [](Expr q, Expr) { return log(abs(q) + 0.1); },
        [](Expr q, Expr) { return sqrt(abs(q)); },
        [](Expr q, Expr) { return abs(q); },
        [](Expr q, Expr) { return sign(q); },
        [](Expr q, Expr p) { return atan2(q, p - 1.0); },
        [](Expr q, Expr) { return sinh(q); },
        [](Expr q, Expr) { return cosh(q); },
        [](Expr q, Expr) { return tanh(q); },
        [](Expr q, Expr) { return asin(q / 3.0); },
        [](Expr q, Expr) { return acos(q / 3.0); },
        [](Expr q, Expr) { return atan(q); },
        [](Expr q, Expr p) { return pow(abs(q) + 0.5, p); }, // symbolic exponent
        [](Expr q, Expr) { return pow(abs(q) + 0.5, 1.7); }, // non-integer exponent
        [](Expr q, Expr) { return pow(q, 2.0); },            // x*x
        [](Expr q, Expr) { return pow(q, 3.0); },
        [](Expr q, Expr) { return pow(q, 7.0); },
        [](Expr q, Expr) { return pow(q, 32.0); }, // last unrolled
        [](Expr q, Expr) { return pow(q, 33.0); }, // pow() call
        [](Expr q, Expr) { return pow(q, -3.0); }, // 1/(x*x*x)
        [](Expr q, Expr p) { return p / q; },      // one division
        [](Expr q, Expr p) { return 2.0 * p / (q * q * (p + 1.0)); },
        [](Expr q, Expr p) { return q * p - pow(p, 2.0) / q + 1.0; },
    };
    const auto n = static_cast<std::uint32_t>(forms.size());
    symbolic::System s({n, 0, 0, 0, 1});
    std::vector<symbolic::ExprId> force;
    for (std::uint32_t i = 0; i < n; ++i) {
        force.push_back(forms[i](s.position(i), s.parameter(0)));
    }
    s.outputs(Kernel::mass) = std::vector<symbolic::ExprId>(n, s.pool().one());
    s.outputs(Kernel::force) = force;
    symbolic::derive_kernels(s); // derivatives of all of them as well
    const auto compiled = CompiledKernels::compile(s);
    check_against_evaluator(s, compiled, 6, 1e-13, 40);

    // sign at exactly zero, and NaN propagation through sign.
    std::mt19937_64 rng(9);
    test::Point at = test::Point::random(s.sizes(), rng);
    at.q[7] = 0.0;
    CHECK(test::run(compiled.kernels().force, n, at)[7] == 0.0);
    at.q[7] = std::nan("");
    CHECK(std::isnan(test::run(compiled.kernels().force, n, at)[7]));
}

TEST_CASE("kernels split into sections compute the same values", "[codegen][sections]") {
    // A budget of a few operations splits every kernel of the double pendulum into many
    // section functions passing values through scratch memory.
    const auto s = test::double_pendulum();
    for (std::size_t budget : {1, 7, 20}) {
        INFO("section_operations = " << budget);
        CodegenOptions options;
        options.section_operations = budget;
        options.keep_ir = true;
        const auto compiled = CompiledKernels::compile(*s, options);
        CHECK(compiled.ir().find("@mdl_curvature.section1(") != std::string::npos);
        check_against_evaluator(*s, compiled, 40 + budget, 1e-13, 10);
    }
    // Outputs in any order, the last one an early (small-id) node, some repeated.
    symbolic::System mixed({3, 0, 0, 0, 1});
    const symbolic::Expr q0 = mixed.position(0), q1 = mixed.position(1), q2 = mixed.position(2);
    const symbolic::Expr shared = sin(q0 * q1) + mixed.parameter(0);
    mixed.outputs(Kernel::mass) = std::vector<symbolic::ExprId>(3, mixed.pool().one());
    mixed.outputs(Kernel::force) = {shared * exp(q2) - pow(shared, 3.0), shared / (1.0 + q2 * q2),
                                    q0};
    symbolic::derive_kernels(mixed);
    CodegenOptions tiny;
    tiny.section_operations = 2;
    check_against_evaluator(mixed, CompiledKernels::compile(mixed, tiny), 50, 1e-13, 10);

    // Unsplit by default: the seed systems are far below the budget.
    CodegenOptions options;
    options.keep_ir = true;
    CHECK(CompiledKernels::compile(*s, options).ir().find(".section") == std::string::npos);
}

TEST_CASE("a sum longer than the section budget is folded over several functions, bit for bit",
          "[codegen][sections]") {
    // 40 terms of very different magnitudes, so that any other order of the additions rounds
    // differently; every force reads the sum, so it also travels through scratch memory.
    constexpr std::uint32_t n = 40;
    symbolic::System s({n, 0, 0, 0, 1});
    std::vector<symbolic::ExprId> terms;
    for (std::uint32_t i = 0; i < n; ++i) {
        const symbolic::Expr q = s.position(i);
        terms.push_back(pow(q, 3.0) * std::pow(10.0, static_cast<double>(i % 9) - 4.0) +
                        s.parameter(0) * q);
    }
    const symbolic::ExprId u = s.pool().add(terms);
    REQUIRE(s.pool().children(u).size() >= n);
    s.outputs(Kernel::mass) = std::vector<symbolic::ExprId>(n, s.pool().one());
    s.outputs(Kernel::potential) = {u};
    for (std::uint32_t i = 0; i < n; ++i) {
        s.outputs(Kernel::force).push_back(s.pool().mul(s.position(i), u));
    }
    symbolic::derive_kernels(s);
    CodegenOptions whole, split;
    split.section_operations = 7;
    split.keep_ir = true;
    const auto reference = CompiledKernels::compile(s, whole);
    const auto sectioned = CompiledKernels::compile(s, split);
    CHECK(sectioned.ir().find(".part1(") != std::string::npos);
    std::mt19937_64 rng(23);
    for (int trial = 0; trial < 20; ++trial) {
        test::Point at = test::Point::random(s.sizes(), rng);
        CHECK(test::run(sectioned.kernels().potential, 1, at) ==
              test::run(reference.kernels().potential, 1, at));
        CHECK(test::run(sectioned.kernels().force, n, at) ==
              test::run(reference.kernels().force, n, at));
    }
}

TEST_CASE("Jacobian and potential sections compiled without optimization compute the "
          "optimized bits",
          "[codegen][sections]") {
    // two masses on a spring of rest length L with a damper: df/dq and df/dv have real
    // entries (the double pendulum's gravity has none)
    auto s = std::make_unique<symbolic::System>(symbolic::SystemSizes{2, 0, 0, 0, 3});
    {
        const symbolic::Expr k = s->parameter(0), len = s->parameter(1), c = s->parameter(2);
        const symbolic::Expr x = s->position(0), y = s->position(1);
        const symbolic::Expr r = sqrt(x * x + y * y);
        const symbolic::Expr potential = 0.5 * k * pow(r - len, 2.0) + c * sin(x) * cos(y);
        std::vector<symbolic::ExprId> force =
            symbolic::gradient(s->pool(), potential, symbolic::VarKind::position, 2);
        force[0] = (symbolic::Expr(s->pool(), s->pool().neg(force[0])) - c * s->velocity(0)).id();
        force[1] = (symbolic::Expr(s->pool(), s->pool().neg(force[1])) -
                    c * s->velocity(1) * s->velocity(0))
                       .id();
        s->outputs(Kernel::mass) = {s->constant(1), s->constant(2)};
        s->outputs(Kernel::force) = force;
        s->outputs(Kernel::potential) = {potential};
        symbolic::derive_kernels(*s);
    }
    CodegenOptions fast, optimized;
    fast.section_operations = optimized.section_operations = 7;
    fast.keep_ir = optimized.keep_ir = true;
    optimized.optimize_jacobian_sections = true;
    optimized.optimize_potential_sections = true;
    const auto plain = CompiledKernels::compile(*s, fast);
    const auto reference = CompiledKernels::compile(*s, optimized);
    const auto attributes_of = [](const std::string& ir, const std::string& function) {
        const auto at = ir.find("define hidden void @" + function + "(");
        REQUIRE(at != std::string::npos);
        const auto hash = ir.find(") #", at) + 2;
        const auto group = ir.substr(hash, ir.find(' ', hash) - hash); // "#12"
        const auto line = ir.find("attributes " + group + " = {");
        REQUIRE(line != std::string::npos);
        return ir.substr(line, ir.find('\n', line) - line);
    };
    CHECK(attributes_of(plain.ir(), "mdl_force_dq_values.section0").find("optnone") !=
          std::string::npos);
    CHECK(attributes_of(reference.ir(), "mdl_force_dq_values.section0").find("optnone") ==
          std::string::npos);
    CHECK(attributes_of(plain.ir(), "mdl_potential.section0").find("optnone") != std::string::npos);
    CHECK(attributes_of(reference.ir(), "mdl_potential.section0").find("optnone") ==
          std::string::npos);
    CHECK(attributes_of(plain.ir(), "mdl_force.section0").find("optnone") == std::string::npos);
    const std::uint32_t n = s->sizes().positions;
    std::mt19937_64 rng(31);
    for (int trial = 0; trial < 20; ++trial) {
        const test::Point at = test::Point::random(s->sizes(), rng);
        CHECK(test::run(plain.kernels().force_dq, n * n, at) ==
              test::run(reference.kernels().force_dq, n * n, at));
        CHECK(test::run(plain.kernels().force_dv, n * n, at) ==
              test::run(reference.kernels().force_dv, n * n, at));
        CHECK(test::run(plain.kernels().potential, 1, at) ==
              test::run(reference.kernels().potential, 1, at));
    }
}

TEST_CASE("parameters are read at every call: no recompilation", "[codegen]") {
    const auto s = test::kapitza();
    const auto compiled = CompiledKernels::compile(*s);
    test::Point at;
    at.t = 0.0;
    at.q = {0.5};
    at.v = {0.0};
    at.theta = {0.0};
    at.p = {1.0, 9.81, 0.0, 1.0, 0.0};
    CHECK(test::run(compiled.kernels().force, 1, at)[0] == Approx(9.81 * std::sin(0.5)));
    at.p[0] = 2.0; // l
    at.p[2] = 3.0; // vmax: a = 3 * 1 * cos(0)
    CHECK(test::run(compiled.kernels().force, 1, at)[0] ==
          Approx((9.81 + 3.0) / 2.0 * std::sin(0.5)));
}

TEST_CASE("every optimization level agrees with the evaluator", "[codegen][optimize]") {
    const auto s = test::double_pendulum();
    for (OptLevel level : {OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3}) {
        CodegenOptions options;
        options.opt_level = level;
        const auto compiled = CompiledKernels::compile(*s, options);
        check_against_evaluator(*s, compiled, 10 + static_cast<std::uint64_t>(level), 1e-13, 5);
    }
}

TEST_CASE("fast-math is opt-in and stays close", "[codegen][optimize]") {
    const auto s = test::double_pendulum();
    CodegenOptions options;
    options.keep_ir = true;
    const auto strict = CompiledKernels::compile(*s, options);
    CHECK(strict.ir().find("reassoc") == std::string::npos);
    CHECK(strict.ir().find("fast") == std::string::npos);

    options.fast_math = true;
    const auto fast = CompiledKernels::compile(*s, options);
    CHECK(fast.ir().find("reassoc") != std::string::npos);
    CHECK(fast.ir().find("nnan") == std::string::npos); // NaN still means divergence
    // Reassociation can move the last bits; the curvature has cancellation, so compare with
    // an absolute floor at the scale of the inputs.
    std::mt19937_64 rng(11);
    for (int trial = 0; trial < 10; ++trial) {
        const test::Point at = test::Point::random(s->sizes(), rng);
        for (Kernel k : symbolic::all_kernels) {
            const auto outputs = s->dense_outputs(k);
            if (!s->has_kernel(k)) {
                continue;
            }
            const auto a = test::run(test::kernel_of(fast.kernels(), k), outputs.size(), at);
            const auto b = test::reference(*s, k, at);
            for (std::size_t i = 0; i < a.size(); ++i) {
                CHECK(a[i] == Approx(b[i]).epsilon(1e-12).margin(1e-12));
            }
        }
    }
}

TEST_CASE("compilations on several threads at once", "[codegen][threads]") {
    const auto kapitza = test::kapitza();
    const auto pendulum = test::double_pendulum();
    std::vector<std::thread> threads;
    std::vector<int> ok(4, 0);
    for (int i = 0; i < 4; ++i) {
        threads.emplace_back([&, i] {
            const symbolic::System& s = i % 2 == 0 ? *kapitza : *pendulum;
            CodegenOptions options;
            options.use_object_cache = i < 2; // both paths concurrently
            const auto compiled = CompiledKernels::compile(s, options);
            std::mt19937_64 rng(static_cast<std::uint64_t>(20 + i));
            const test::Point at = test::Point::random(s.sizes(), rng);
            const auto jit = test::run(compiled.kernels().force, s.sizes().positions, at);
            const auto want = test::reference(s, Kernel::force, at);
            bool same = true;
            for (std::size_t j = 0; j < jit.size(); ++j) {
                same = same && close_relative(jit[j], want[j], 1e-13);
            }
            ok[static_cast<std::size_t>(i)] = same ? 1 : 0;
        });
    }
    for (auto& t : threads) {
        t.join();
    }
    CHECK(ok == std::vector<int>{1, 1, 1, 1});
}

TEST_CASE("kernels stay valid when the compiled object moves", "[codegen]") {
    const auto s = test::kapitza();
    auto first = CompiledKernels::compile(*s);
    const mdl_kernel force = first.kernels().force;
    CompiledKernels moved = std::move(first);
    CHECK(moved.kernels().force == force);
    std::mt19937_64 rng(30);
    const test::Point at = test::Point::random(s->sizes(), rng);
    CHECK(close_relative(test::run(moved.kernels().force, 1, at)[0],
                         test::reference(*s, Kernel::force, at)[0], 1e-13));
}

TEST_CASE("an invalid system is refused before code generation", "[codegen]") {
    symbolic::System s({1, 0, 0, 0, 0});
    s.outputs(Kernel::force) = {s.position(0)}; // no mass, no derived kernels
    CHECK_THROWS_AS(CompiledKernels::compile(s), symbolic::InvalidSystem);
}
