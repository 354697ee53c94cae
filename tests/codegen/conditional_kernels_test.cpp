// Conditionals (compare and select nodes) in generated code: JIT == the DAG evaluator ==
// check::evaluate, the IEEE semantics of relations with NaN, the untaken branch's NaN, and
// whole models with if-expressions built as checked models.
#include "check/evaluate.hpp"
#include "codegen/compiled_kernels.hpp"
#include "symbolic/derive_kernels.hpp"
#include "symbolic/equations_of_motion.hpp"
#include "symbolic/print.hpp"
#include "symbolic/system.hpp"

#include "../symbolic/seed_systems.hpp"
#include "kernel_test_support.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace mdl;
using codegen::CodegenOptions;
using codegen::CompiledKernels;
using codegen::OptLevel;
using symbolic::Kernel;
using test::close_relative;

namespace {

constexpr double nan_value = std::numeric_limits<double>::quiet_NaN();

symbolic::Expr zero(symbolic::Expr e) {
    return {e.pool(), e.pool().zero()};
}

bool same(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

// Every kernel with outputs: JIT == evaluator (to `tolerance`, NaN where the evaluator has NaN).
void check_against_evaluator(const symbolic::System& s, const CompiledKernels& compiled,
                             std::uint64_t seed, int points = 25, double tolerance = 1e-13) {
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < points; ++trial) {
        const test::Point at = test::Point::random(s.sizes(), rng);
        for (Kernel k : symbolic::all_kernels) {
            const auto outputs = s.dense_outputs(k);
            if (!s.has_kernel(k)) {
                continue;
            }
            const mdl_kernel kernel = test::kernel_of(compiled.kernels(), k);
            REQUIRE(kernel != nullptr);
            const auto jit = test::run(kernel, outputs.size(), at);
            const auto want = test::reference(s, k, at);
            for (std::size_t i = 0; i < outputs.size(); ++i) {
                INFO(symbolic::kernel_name(k)
                     << "[" << i << "]: jit " << jit[i] << ", evaluator " << want[i]);
                CHECK((same(jit[i], want[i]) || close_relative(jit[i], want[i], tolerance)));
            }
        }
    }
}

// --- checked expressions by hand (the form the checker gives if-expressions and and/or/not)

using check::ExprPtr;
using K = check::Expr::Kind;

ExprPtr leaf(K kind, std::uint32_t index = 0) {
    auto e = std::make_shared<check::Expr>();
    e->kind = kind;
    e->index = index;
    return e;
}
ExprPtr num(double v) {
    return check::number(v);
}
ExprPtr op(K kind, std::vector<ExprPtr> args) {
    auto e = std::make_shared<check::Expr>();
    e->kind = kind;
    e->args = std::move(args);
    return e;
}
ExprPtr call(check::Function f, std::vector<ExprPtr> args) {
    auto e = std::make_shared<check::Expr>();
    e->kind = K::call;
    e->function = f;
    e->args = std::move(args);
    return e;
}
ExprPtr cmp(check::Comparison c, ExprPtr a, ExprPtr b) {
    auto e = std::make_shared<check::Expr>();
    e->kind = K::compare;
    e->comparison = c;
    e->args = {std::move(a), std::move(b)};
    return e;
}
ExprPtr if_(ExprPtr c, ExprPtr a, ExprPtr b) {
    return op(K::select, {std::move(c), std::move(a), std::move(b)});
}
ExprPtr and_(ExprPtr a, ExprPtr b) {
    return if_(std::move(a), std::move(b), num(0));
}
ExprPtr or_(ExprPtr a, ExprPtr b) {
    return if_(std::move(a), num(1), std::move(b));
}
ExprPtr not_(ExprPtr a) {
    return if_(std::move(a), num(0), num(1));
}

// A model of coordinates q_i with unit masses, mass * der(der(q_i)) = rhs_i, and parameters.
check::CheckedModel coordinates_model(const std::vector<ExprPtr>& rhs,
                                      const std::vector<double>& parameters) {
    check::CheckedModel m;
    m.name = "conditionals";
    for (std::size_t i = 0; i < parameters.size(); ++i) {
        check::Parameter p;
        p.name = "p" + std::to_string(i);
        p.value = num(parameters[i]);
        p.default_value = parameters[i];
        m.parameters.push_back(p);
        m.parameter_order.push_back(static_cast<std::uint32_t>(i));
    }
    for (std::size_t i = 0; i < rhs.size(); ++i) {
        check::Position q;
        q.name = "q" + std::to_string(i);
        q.velocity_name = "der(" + q.name + ")";
        q.mass = num(1);
        q.start = num(0);
        q.velocity_start = num(0);
        m.positions.push_back(q);
        m.equations.push_back({static_cast<std::uint32_t>(i), rhs[i], {}});
    }
    return m;
}

// check::evaluate of an equation's right-hand side at a point.
double checked_value(const ExprPtr& e, const test::Point& at) {
    check::Values values(at.p, at.t);
    values.positions = at.q;
    values.velocities = at.v;
    return check::evaluate(*e, values);
}

// Random checked expressions mixing relations, and/or/not, if-expressions and arithmetic over
// positions, velocities, time and parameters; bounded in magnitude (no exp, divisions by
// 1 + u^2) so that values compare to a relative tolerance.
class RandomExpressions {
public:
    RandomExpressions(std::uint64_t seed, std::uint32_t positions, std::uint32_t parameters)
        : rng_(seed), positions_(positions), parameters_(parameters) {}

    ExprPtr value(int depth) {
        if (depth <= 0) {
            return leaf_value();
        }
        switch (pick(10)) {
        case 0:
            return leaf_value();
        case 1:
            return op(K::add, {value(depth - 1), value(depth - 1)});
        case 2:
            return op(K::sub, {value(depth - 1), value(depth - 1)});
        case 3:
            return op(K::mul, {value(depth - 1), value(depth - 1)});
        case 4: {
            ExprPtr d = value(depth - 1);
            return op(K::div, {value(depth - 1), op(K::add, {num(1), op(K::mul, {d, d})})});
        }
        case 5:
            return call(pick(2) == 0 ? check::Function::sin : check::Function::cos,
                        {value(depth - 1)});
        case 6:
            return call(check::Function::sqrt, {call(check::Function::abs, {value(depth - 1)})});
        case 7:
            return op(K::negate, {value(depth - 1)});
        case 8: // a condition's value used as a number
            return op(K::mul, {condition(depth - 1), value(depth - 1)});
        default:
            return if_(pick(5) == 0 ? value(depth - 1) : condition(depth - 1), value(depth - 1),
                       value(depth - 1));
        }
    }

    ExprPtr condition(int depth) {
        if (depth <= 0) {
            return relation(0);
        }
        switch (pick(5)) {
        case 0:
            return and_(condition(depth - 1), condition(depth - 1));
        case 1:
            return or_(condition(depth - 1), condition(depth - 1));
        case 2:
            return not_(condition(depth - 1));
        default:
            return relation(depth - 1);
        }
    }

private:
    ExprPtr relation(int depth) {
        static constexpr check::Comparison all[] = {check::Comparison::lt, check::Comparison::le,
                                                    check::Comparison::gt, check::Comparison::ge,
                                                    check::Comparison::eq, check::Comparison::ne};
        const check::Comparison c = all[pick(6)];
        // = and <> of continuous values hold on a null set: compare with a leaf that can be
        // equal (the same variable), so both outcomes occur.
        if (c == check::Comparison::eq || c == check::Comparison::ne) {
            return cmp(c, leaf_value(), leaf_value());
        }
        return cmp(c, value(depth), value(depth));
    }

    ExprPtr leaf_value() {
        switch (pick(6)) {
        case 0:
            return num(std::round(std::uniform_real_distribution<double>(-4.0, 4.0)(rng_)) / 2.0);
        case 1:
            return leaf(K::parameter, static_cast<std::uint32_t>(pick(parameters_)));
        case 2:
            return leaf(K::velocity, static_cast<std::uint32_t>(pick(positions_)));
        case 3:
            return leaf(K::time);
        default:
            return leaf(K::position, static_cast<std::uint32_t>(pick(positions_)));
        }
    }

    std::size_t pick(std::size_t n) {
        return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_);
    }

    std::mt19937_64 rng_;
    std::uint32_t positions_;
    std::uint32_t parameters_;
};

} // namespace

TEST_CASE("relations and selects compile to what the evaluator computes",
          "[codegen][conditional]") {
    using symbolic::Expr;
    const std::vector<std::function<Expr(Expr, Expr, Expr)>> forms = {
        [](Expr q, Expr p, Expr) { return lt(q, p); },
        [](Expr q, Expr p, Expr) { return le(q, p - 1.0); },
        [](Expr q, Expr p, Expr) { return gt(q, p); },
        [](Expr q, Expr p, Expr) { return ge(q * q, p); },
        [](Expr q, Expr, Expr v) { return eq(q, v); },
        [](Expr q, Expr, Expr v) { return ne(q, v); },
        [](Expr q, Expr p, Expr) { return if_then_else(gt(q, p), sin(q), q * q * p); },
        [](Expr q, Expr p, Expr v) { return if_then_else(q, v, p); }, // numeric condition
        [](Expr q, Expr p, Expr v) {
            return if_then_else(logical_and(gt(q, zero(q)), lt(v, p)), q * v, -q);
        },
        [](Expr q, Expr p, Expr v) {
            return if_then_else(logical_or(gt(q, p), logical_not(lt(v, p))), cos(q) / p, v);
        },
        [](Expr q, Expr p, Expr v) { return p * lt(q, v) + q * ge(v, p); },
        [](Expr q, Expr p, Expr v) {
            return if_then_else(gt(q, v), if_then_else(lt(q, p), q, p * q), v * v * q);
        },
        // The branch not taken is undefined (sqrt of a negative number): its NaN is discarded.
        [](Expr q, Expr, Expr) { return if_then_else(ge(q, zero(q)), sqrt(q), -q * q); },
    };
    const auto n = static_cast<std::uint32_t>(forms.size());
    symbolic::System s({n, 0, 0, 0, 1});
    std::vector<symbolic::ExprId> force;
    for (std::uint32_t i = 0; i < n; ++i) {
        force.push_back(forms[i](s.position(i), s.parameter(0), s.velocity(i)));
    }
    s.outputs(Kernel::mass) = std::vector<symbolic::ExprId>(n, s.pool().one());
    s.outputs(Kernel::force) = force;
    symbolic::derive_kernels(s); // their derivatives (selects of the branches') as well
    CHECK(s.velocity_dependent);
    const auto compiled = CompiledKernels::compile(s);
    check_against_evaluator(s, compiled, 11, 60);
    for (std::size_t budget : {1, 3}) { // sectioned kernels: selects read operands from scratch
        CodegenOptions tiny;
        tiny.section_operations = budget;
        check_against_evaluator(s, CompiledKernels::compile(s, tiny), 12 + budget, 15);
    }
    CodegenOptions unoptimized;
    unoptimized.opt_level = OptLevel::O0;
    check_against_evaluator(s, CompiledKernels::compile(s, unoptimized), 14, 15);
    // Fast-math reassociates arithmetic; its flags have no nnan or ninf, so relations and
    // selects keep their meaning: close to the evaluator, not bit for bit.
    CodegenOptions fast;
    fast.fast_math = true;
    check_against_evaluator(s, CompiledKernels::compile(s, fast), 16, 25, 1e-9);

    // The untaken square root of a negative number.
    std::mt19937_64 rng(15);
    test::Point at = test::Point::random(s.sizes(), rng);
    at.q[12] = -4.0;
    CHECK(test::run(compiled.kernels().force, n, at)[12] == -16.0);
    at.q[12] = 6.25;
    CHECK(test::run(compiled.kernels().force, n, at)[12] == 2.5);
}

TEST_CASE("compiled relations follow IEEE semantics: NaN compares false except <>",
          "[codegen][conditional]") {
    using symbolic::Comparison;
    const Comparison all[] = {Comparison::lt, Comparison::le, Comparison::gt,
                              Comparison::ge, Comparison::eq, Comparison::ne};
    symbolic::System s({7, 0, 0, 0, 0});
    std::vector<symbolic::ExprId> force;
    for (std::uint32_t i = 0; i < 6; ++i) {
        force.push_back(relation(all[i], s.position(i), s.velocity(i)));
    }
    // A NaN condition takes the then-branch, as check::evaluate does.
    force.push_back(if_then_else(s.position(6), s.velocity(6), 2.0 * s.velocity(6)));
    s.outputs(Kernel::mass) = std::vector<symbolic::ExprId>(7, s.pool().one());
    s.outputs(Kernel::force) = force;
    symbolic::derive_kernels(s);
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<double> values{-inf, -1.0, -0.0, 0.0, 2.0, inf, nan_value};
    for (OptLevel level : {OptLevel::O0, OptLevel::O2}) {
        CodegenOptions options;
        options.opt_level = level;
        const auto compiled = CompiledKernels::compile(s, options);
        for (double a : values) {
            for (double b : values) {
                test::Point at;
                at.q.assign(7, a);
                at.v.assign(7, b);
                const auto out = test::run(compiled.kernels().force, 7, at);
                const auto want = test::reference(s, Kernel::force, at);
                for (std::size_t i = 0; i < 6; ++i) {
                    INFO(check::to_string(all[i]) << " " << a << " " << b);
                    CHECK(out[i] == check::compare(all[i], a, b));
                    CHECK(want[i] == out[i]);
                }
                INFO("if " << a << " then " << b << " else 2*" << b);
                CHECK(same(out[6], a != 0.0 ? b : 2.0 * b));
                CHECK(same(want[6], out[6]));
            }
        }
    }
}

TEST_CASE("relations are fcmp and uitofp, selects fcmp une and select", "[codegen][conditional]") {
    symbolic::System s({2, 0, 0, 0, 1});
    const symbolic::Expr q0 = s.position(0), q1 = s.position(1), p = s.parameter(0);
    s.outputs(Kernel::mass) = {s.pool().one(), s.pool().one()};
    s.outputs(Kernel::force) = {le(q0, p) + ne(q0, q1) * q1,
                                if_then_else(lt(q1, q0), sin(q0), cos(q1))};
    symbolic::derive_kernels(s);
    CodegenOptions options;
    options.opt_level = OptLevel::O0;
    options.keep_ir = true;
    const std::string ir = CompiledKernels::compile(s, options).ir();
    const std::size_t start = ir.find("define void @mdl_force(");
    REQUIRE(start != std::string::npos);
    const std::string force = ir.substr(start, ir.find("\n}\n", start) - start);
    CHECK(force.find("fcmp ole double") != std::string::npos);
    CHECK(force.find("fcmp olt double") != std::string::npos);
    CHECK(force.find("fcmp une double") != std::string::npos);
    CHECK(force.find("uitofp i1") != std::string::npos);
    CHECK(force.find("select i1") != std::string::npos);
    CHECK(force.find("br ") == std::string::npos); // branch-free

    // Optimized, a select on a relation tests the relation itself: no conversion to 0/1 and
    // back.
    symbolic::System t({2, 0, 0, 0, 0});
    t.outputs(Kernel::mass) = {t.pool().one(), t.pool().one()};
    t.outputs(Kernel::force) = {if_then_else(logical_and(lt(t.position(1), t.position(0)),
                                                         gt(t.position(0), zero(t.position(0)))),
                                             sin(t.position(0)), cos(t.position(1))),
                                t.pool().zero()};
    symbolic::derive_kernels(t);
    CodegenOptions optimized;
    optimized.keep_ir = true;
    const std::string opt_ir = CompiledKernels::compile(t, optimized).ir();
    const std::size_t opt_start = opt_ir.find("define void @mdl_force(");
    REQUIRE(opt_start != std::string::npos);
    const std::string opt_force =
        opt_ir.substr(opt_start, opt_ir.find("\n}\n", opt_start) - opt_start);
    INFO(opt_force);
    CHECK(opt_force.find("uitofp") == std::string::npos);
    CHECK(opt_force.find("fcmp olt double") != std::string::npos);
}

TEST_CASE("random conditional expressions: JIT == evaluator == check::evaluate",
          "[codegen][conditional]") {
    constexpr std::uint32_t positions = 4;
    const std::vector<double> parameters{0.7, -1.3, 2.0};
    int compares = 0, selects = 0;
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        RandomExpressions random(seed * 7919, positions, 3);
        std::vector<ExprPtr> rhs;
        for (std::uint32_t i = 0; i < positions; ++i) {
            rhs.push_back(random.value(4));
        }
        const check::CheckedModel model = coordinates_model(rhs, parameters);
        const symbolic::System s = symbolic::equations_of_motion(model);
        const auto compiled = CompiledKernels::compile(s);
        check_against_evaluator(s, compiled, seed, 10);
        // The conditionals survive simplification (so the comparison below exercises them).
        for (symbolic::ExprId id :
             symbolic::reachable_in_order(s.pool(), s.outputs(Kernel::force))) {
            compares += s.pool().op(id) == symbolic::Op::compare ? 1 : 0;
            selects += s.pool().op(id) == symbolic::Op::select ? 1 : 0;
        }
        std::mt19937_64 rng(100 + seed);
        for (int trial = 0; trial < 60; ++trial) {
            test::Point at = test::Point::random(s.sizes(), rng);
            at.p = parameters;
            if (trial % 4 == 0) {
                at.v[0] = at.q[0]; // so that = and <> between them both occur
            }
            const auto jit = test::run(compiled.kernels().force, positions, at);
            const auto dag = test::reference(s, Kernel::force, at);
            for (std::uint32_t i = 0; i < positions; ++i) {
                const double want = checked_value(rhs[i], at);
                INFO("seed " << seed << ", rhs " << i << ": jit " << jit[i] << ", evaluator "
                             << dag[i] << ", check::evaluate " << want);
                CHECK((same(jit[i], dag[i]) || close_relative(jit[i], dag[i], 1e-13)));
                // The engine reassociates sums and products: rounding differs, not values.
                CHECK(std::fabs(dag[i] - want) <= 1e-10 * (1.0 + std::fabs(want)));
            }
        }
    }
    CHECK(compares >= 10);
    CHECK(selects >= 10);
}

TEST_CASE("a piecewise oscillator with and/or/not: kernels against the hand formulas",
          "[codegen][conditional]") {
    // der(der(q)) = if q > 0 and not der(q) < 0 then -k1*q - c*der(q)
    //               else if q > 0 or der(q) > p2 then -k2*q else -k1*q^3
    // with k1 = p0, k2 = p1, c = p2 (a spring stiffer on one side, damped while opening).
    const ExprPtr q = leaf(K::position, 0), v = leaf(K::velocity, 0);
    const ExprPtr k1 = leaf(K::parameter, 0), k2 = leaf(K::parameter, 1), c = leaf(K::parameter, 2);
    const ExprPtr opening =
        and_(cmp(check::Comparison::gt, q, num(0)), not_(cmp(check::Comparison::lt, v, num(0))));
    const ExprPtr other =
        or_(cmp(check::Comparison::gt, q, num(0)), cmp(check::Comparison::gt, v, c));
    const ExprPtr rhs =
        if_(opening, op(K::sub, {op(K::negate, {op(K::mul, {k1, q})}), op(K::mul, {c, v})}),
            if_(other, op(K::negate, {op(K::mul, {k2, q})}),
                op(K::negate, {op(K::mul, {k1, op(K::pow, {q, num(3)})})})));
    const std::vector<double> parameters{3.0, 0.5, 0.25};
    const check::CheckedModel model = coordinates_model({rhs}, parameters);
    const symbolic::System s = symbolic::equations_of_motion(model);
    CHECK(s.velocity_dependent);
    const std::string listing = symbolic::print_system(s);
    INFO(listing);
    CHECK(listing.find("q0 > 0 and not der(q0) < 0") != std::string::npos);

    const auto compiled = CompiledKernels::compile(s);
    const mdl_kernels& kernels = compiled.kernels();
    const auto hand = [&](double qv, double vv) {
        const double a = parameters[0], b = parameters[1], cc = parameters[2];
        struct {
            double f, dq, dv;
        } r{};
        if (qv > 0 && !(vv < 0)) {
            r = {-a * qv - cc * vv, -a, -cc};
        } else if (qv > 0 || vv > cc) {
            r = {-b * qv, -b, 0.0};
        } else {
            r = {-a * qv * qv * qv, -3.0 * a * qv * qv, 0.0};
        }
        return r;
    };
    std::mt19937_64 rng(21);
    std::uniform_real_distribution<double> u(-2.0, 2.0);
    int branch_counts[3] = {0, 0, 0};
    for (int trial = 0; trial < 300; ++trial) {
        test::Point at;
        at.q = {u(rng)};
        at.v = {trial % 10 == 0 ? 0.0 : u(rng)}; // v = 0 exactly: `not v < 0` holds
        at.p = parameters;
        const auto want = hand(at.q[0], at.v[0]);
        INFO("q = " << at.q[0] << ", v = " << at.v[0]);
        const double f = test::run(kernels.force, 1, at)[0];
        CHECK(close_relative(f, want.f, 1e-14));
        CHECK(close_relative(f, checked_value(rhs, at), 1e-14));
        CHECK(close_relative(test::run(kernels.force_dq, 1, at)[0], want.dq, 1e-14));
        CHECK(test::run(kernels.force_dv, 1, at)[0] == want.dv);
        branch_counts[want.dv != 0.0 ? 0 : want.dq == -parameters[1] ? 1 : 2]++;
        // Central differences of check::evaluate, away from the switching surfaces.
        const double h = 1e-6;
        if (std::fabs(at.q[0]) > 10 * h && std::fabs(at.v[0]) > 10 * h &&
            std::fabs(at.v[0] - parameters[2]) > 10 * h) {
            test::Point plus = at, minus = at;
            plus.q[0] += h;
            minus.q[0] -= h;
            const double fd_q = (checked_value(rhs, plus) - checked_value(rhs, minus)) / (2 * h);
            plus = at, minus = at;
            plus.v[0] += h;
            minus.v[0] -= h;
            const double fd_v = (checked_value(rhs, plus) - checked_value(rhs, minus)) / (2 * h);
            CHECK(std::fabs(test::run(kernels.force_dq, 1, at)[0] - fd_q) < 1e-7);
            CHECK(std::fabs(test::run(kernels.force_dv, 1, at)[0] - fd_v) < 1e-7);
        }
    }
    CHECK(branch_counts[0] > 30);
    CHECK(branch_counts[1] > 30);
    CHECK(branch_counts[2] > 30);
}

TEST_CASE("systems that differ only in a relation do not share cached machine code",
          "[codegen][conditional][object_cache]") {
    const auto build = [](symbolic::Comparison c) {
        symbolic::System s({1, 0, 0, 0, 1});
        s.outputs(Kernel::mass) = {s.pool().one()};
        s.outputs(Kernel::force) = {if_then_else(relation(c, s.position(0), s.parameter(0)),
                                                 s.position(0), s.parameter(0) * 3.0)};
        symbolic::derive_kernels(s);
        return s;
    };
    test::Point at;
    at.q = {2.0};
    at.v = {0.0};
    at.p = {2.0}; // on the switching point q = p: < and <> are false there, <= true
    const symbolic::System lt = build(symbolic::Comparison::lt);
    const symbolic::System le = build(symbolic::Comparison::le);
    const symbolic::System ne = build(symbolic::Comparison::ne);
    const auto lt_kernels = CompiledKernels::compile(lt);
    const auto le_kernels = CompiledKernels::compile(le);
    const auto ne_kernels = CompiledKernels::compile(ne);
    CHECK(test::run(lt_kernels.kernels().force, 1, at)[0] == 6.0);
    CHECK(test::run(le_kernels.kernels().force, 1, at)[0] == 2.0);
    CHECK(test::run(ne_kernels.kernels().force, 1, at)[0] == 6.0);
    CHECK_FALSE(le_kernels.timings().from_cache);
    CHECK_FALSE(ne_kernels.timings().from_cache);
    // Compiled again: the cache hands back each one's own code.
    const auto le_again = CompiledKernels::compile(le);
    CHECK(le_again.timings().from_cache);
    CHECK(test::run(le_again.kernels().force, 1, at)[0] == 2.0);
    CHECK(test::run(CompiledKernels::compile(lt).kernels().force, 1, at)[0] == 6.0);
}
