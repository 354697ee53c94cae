#include "symbolic/derivative.hpp"
#include "symbolic/evaluate.hpp"
#include "symbolic/expr.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

using namespace mdl::symbolic;

namespace {

struct Vars {
    ExprPool pool;
    Expr x{pool, pool.variable({VarKind::position, 0})};
    Expr y{pool, pool.variable({VarKind::position, 1})};
    Variable wx{VarKind::position, 0};
    Variable wy{VarKind::position, 1};
    Expr d(Expr e, Variable v) { return {pool, differentiate(pool, e, v)}; }
};

struct Builtin {
    std::string name;
    std::function<Expr(Expr)> build;
    std::function<double(double)> f;
    std::function<double(double)> derivative; // hand-derived
    std::vector<double> points;               // inside the domain, away from kinks
};

std::vector<Builtin> builtins() {
    using std::cos, std::sin, std::exp, std::sqrt, std::cosh, std::sinh, std::tanh;
    return {
        {"sin",
         [](Expr u) { return sin(u); },
         [](double x) { return sin(x); },
         [](double x) { return cos(x); },
         {-2.0, -0.3, 0.0, 0.8, 2.9}},
        {"cos",
         [](Expr u) { return cos(u); },
         [](double x) { return cos(x); },
         [](double x) { return -sin(x); },
         {-2.0, -0.3, 0.0, 0.8, 2.9}},
        {"tan",
         [](Expr u) { return tan(u); },
         [](double x) { return std::tan(x); },
         [](double x) { return 1.0 / (cos(x) * cos(x)); },
         {-1.2, -0.3, 0.0, 0.8, 1.3}},
        {"exp",
         [](Expr u) { return exp(u); },
         [](double x) { return exp(x); },
         [](double x) { return exp(x); },
         {-3.0, 0.0, 1.5}},
        {"log",
         [](Expr u) { return log(u); },
         [](double x) { return std::log(x); },
         [](double x) { return 1.0 / x; },
         {0.1, 1.0, 7.5}},
        {"sqrt",
         [](Expr u) { return sqrt(u); },
         [](double x) { return sqrt(x); },
         [](double x) { return 0.5 / sqrt(x); },
         {0.1, 1.0, 7.5}},
        {"abs",
         [](Expr u) { return abs(u); },
         [](double x) { return std::fabs(x); },
         [](double x) { return x > 0 ? 1.0 : -1.0; },
         {-2.0, -0.1, 0.3, 4.0}},
        {"sign",
         [](Expr u) { return sign(u); },
         [](double x) { return x > 0 ? 1.0 : -1.0; },
         [](double) { return 0.0; },
         {-2.0, -0.1, 0.3, 4.0}},
        {"sinh",
         [](Expr u) { return sinh(u); },
         [](double x) { return sinh(x); },
         [](double x) { return cosh(x); },
         {-2.0, 0.0, 1.1}},
        {"cosh",
         [](Expr u) { return cosh(u); },
         [](double x) { return cosh(x); },
         [](double x) { return sinh(x); },
         {-2.0, 0.0, 1.1}},
        {"tanh",
         [](Expr u) { return tanh(u); },
         [](double x) { return tanh(x); },
         [](double x) { return 1.0 / (cosh(x) * cosh(x)); },
         {-2.0, 0.0, 1.1}},
        {"asin",
         [](Expr u) { return asin(u); },
         [](double x) { return std::asin(x); },
         [](double x) { return 1.0 / sqrt(1.0 - x * x); },
         {-0.9, 0.0, 0.4}},
        {"acos",
         [](Expr u) { return acos(u); },
         [](double x) { return std::acos(x); },
         [](double x) { return -1.0 / sqrt(1.0 - x * x); },
         {-0.9, 0.0, 0.4}},
        {"atan",
         [](Expr u) { return atan(u); },
         [](double x) { return std::atan(x); },
         [](double x) { return 1.0 / (1.0 + x * x); },
         {-3.0, 0.0, 0.4}},
        {"x^3",
         [](Expr u) { return pow(u, 3.0); },
         [](double x) { return x * x * x; },
         [](double x) { return 3.0 * x * x; },
         {-2.0, 0.0, 1.5}},
        {"x^-2",
         [](Expr u) { return pow(u, -2.0); },
         [](double x) { return 1.0 / (x * x); },
         [](double x) { return -2.0 / (x * x * x); },
         {-2.0, 0.5, 1.5}},
        {"x^2.5",
         [](Expr u) { return pow(u, 2.5); },
         [](double x) { return std::pow(x, 2.5); },
         [](double x) { return 2.5 * std::pow(x, 1.5); },
         {0.2, 1.0, 3.0}},
        {"2^x",
         [](Expr u) { return pow(Expr(u.pool(), u.pool().constant(2.0)), u); },
         [](double x) { return std::pow(2.0, x); },
         [](double x) { return std::pow(2.0, x) * std::log(2.0); },
         {-1.0, 0.0, 2.5}},
    };
}

double central_difference(const std::function<double(double)>& f, double x) {
    const double h = 1e-6 * std::fmax(1.0, std::fabs(x));
    return (f(x + h) - f(x - h)) / (2 * h);
}

} // namespace

TEST_CASE("derivative of every built-in matches the analytic formula", "[derivative]") {
    for (const Builtin& b : builtins()) {
        INFO(b.name);
        Vars s;
        // Through the chain rule as well: d/dx f(3x - 1) = 3 f'(3x - 1).
        const Expr plain = s.d(b.build(s.x), s.wx);
        const Expr chained = s.d(b.build(3.0 * s.x - 1.0), s.wx);
        Evaluator ev(s.pool);
        for (double x : b.points) {
            INFO("x = " << x);
            const double q[] = {x, 0.0};
            CHECK(ev.evaluate(plain, {.q = q}) == Approx(b.derivative(x)).epsilon(1e-13));
            const double u = (x + 1.0) / 3.0; // 3u - 1 == x
            const double qu[] = {u, 0.0};
            CHECK(ev.evaluate(chained, {.q = qu}) ==
                  Approx(3.0 * b.derivative(3.0 * u - 1.0)).epsilon(1e-12));
        }
    }
}

TEST_CASE("derivative of every built-in agrees with central differences", "[derivative]") {
    for (const Builtin& b : builtins()) {
        INFO(b.name);
        Vars s;
        const Expr d = s.d(b.build(s.x), s.wx);
        Evaluator ev(s.pool);
        for (double x : b.points) {
            INFO("x = " << x);
            const double q[] = {x, 0.0};
            CHECK(ev.evaluate(d, {.q = q}) ==
                  Approx(central_difference(b.f, x)).epsilon(1e-6).margin(1e-8));
        }
    }
}

TEST_CASE("tanh, asin and acos derivatives keep their relative accuracy where they are tiny or "
          "large",
          "[derivative]") {
    // The random model test found force_dq of asin(0.9*tanh(... + 14.4)) wrong by 7%: tanh' was
    // 1 - tanh(u)^2, all cancellation for large |u|, and asin' was (1 - u^2)^-1/2.
    Vars s;
    Evaluator ev(s.pool);
    const Expr dtanh = s.d(tanh(s.x), s.wx), dasin = s.d(asin(s.x), s.wx),
               dacos = s.d(acos(s.x), s.wx);
    for (double x : {15.0, -25.0, 300.0}) {
        INFO("x = " << x);
        const double q[] = {x, 0.0};
        const double sech = 1.0 / std::cosh(x);
        CHECK(ev.evaluate(dtanh, {.q = q}) == Approx(sech * sech).epsilon(1e-13));
    }
    for (double x : {1.0 - 1e-7, -1.0 + 1e-9, 1.0 - 1e-12}) {
        INFO("x = " << x);
        const double q[] = {x, 0.0};
        const double exact = 1.0 / std::sqrt((1.0 - x) * (1.0 + x)); // 1 -+ x exact here
        CHECK(ev.evaluate(dasin, {.q = q}) == Approx(exact).epsilon(1e-13));
        CHECK(ev.evaluate(dacos, {.q = q}) == Approx(-exact).epsilon(1e-13));
    }
}

TEST_CASE("derivatives have the textbook symbolic form", "[derivative]") {
    Vars s;
    const Expr x = s.x, y = s.y;
    CHECK(s.d(sin(x), s.wx) == cos(x));
    CHECK(s.d(cos(x), s.wx) == -sin(x));
    CHECK(s.d(exp(x), s.wx) == exp(x));
    CHECK(s.d(log(x), s.wx) == 1.0 / x);
    CHECK(s.d(pow(x, 3.0), s.wx) == 3.0 * pow(x, 2.0));
    CHECK(s.d(abs(x), s.wx) == sign(x));
    CHECK(s.d(sign(x), s.wx) == Expr(s.pool, s.pool.zero()));
    CHECK(s.d(sqrt(x), s.wx) == 0.5 / sqrt(x));
    CHECK(s.d(x * y, s.wx) == y);
    CHECK(s.d(x / y, s.wy) == -x / pow(y, 2.0));
    CHECK(s.d(sin(x) * y, s.wy) == sin(x));
    CHECK(s.d(pow(x, y), s.wy) == pow(x, y) * log(x));
    CHECK(s.d(Expr(s.pool, s.pool.constant(4.0)), s.wx) == Expr(s.pool, s.pool.zero()));
}

TEST_CASE("abs and sign at zero: the zero subgradient", "[derivative]") {
    Vars s;
    const Expr d = s.d(abs(s.x), s.wx);
    Evaluator ev(s.pool);
    const double at_zero[] = {0.0, 0.0};
    CHECK(ev.evaluate(d, {.q = at_zero}) == 0.0);
    const double at_one[] = {-1.0, 0.0};
    CHECK(ev.evaluate(d, {.q = at_one}) == -1.0);
}

TEST_CASE("atan2 derivatives in both arguments", "[derivative]") {
    Vars s;
    const Expr f = atan2(s.y, s.x);
    const Expr dx = s.d(f, s.wx);
    const Expr dy = s.d(f, s.wy);
    Evaluator ev(s.pool);
    // All four quadrants and the negative x axis (the branch cut does not affect derivatives).
    const std::pair<double, double> points[] = {
        {1.0, 2.0}, {-1.5, 0.5}, {-0.3, -2.0}, {2.0, -1.0}, {-2.0, 0.0}};
    for (const auto& point : points) {
        // not structured bindings: clang 14 cannot capture them in the lambdas below
        const double x = point.first, y = point.second;
        INFO("x = " << x << ", y = " << y);
        const double q[] = {x, y};
        const double r2 = x * x + y * y;
        CHECK(ev.evaluate(dx, {.q = q}) == Approx(-y / r2).epsilon(1e-13).margin(1e-300));
        CHECK(ev.evaluate(dy, {.q = q}) == Approx(x / r2).epsilon(1e-13));
        const auto along_x = [&](double h) {
            return std::atan2(y, h);
        };
        CHECK(ev.evaluate(dx, {.q = q}) ==
              Approx(central_difference(along_x, x)).epsilon(1e-6).margin(1e-8));
    }
}

TEST_CASE("one pass differentiates many expressions; jacobian is row-major", "[derivative]") {
    Vars s;
    const Expr x = s.x, y = s.y;
    const ExprId f[] = {x * y, sin(x) + pow(y, 2.0), Expr(s.pool, s.pool.constant(5.0))};
    const auto J = jacobian(s.pool, f, VarKind::position, 2);
    REQUIRE(J.size() == 6);
    CHECK(J[0] == y.id());
    CHECK(J[1] == x.id());
    CHECK(J[2] == cos(x).id());
    CHECK(J[3] == (2.0 * y).id());
    CHECK(J[4] == s.pool.zero());
    CHECK(J[5] == s.pool.zero());
    const auto grad = gradient(s.pool, x * x * y, VarKind::position, 2);
    CHECK(grad[0] == (2.0 * x * y).id());
    CHECK(grad[1] == pow(x, 2.0).id());
}

// jacobian computes each column only on the nodes that depend on its variable (and a sum's
// terms from the nonzero ones); the result must be differentiate's, node for node, on DAGs of
// every operation, shared subexpressions, conditions and long sums.
TEST_CASE("jacobian equals one differentiate pass per column on random DAGs", "[derivative]") {
    constexpr std::uint32_t n = 7;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        ExprPool pool;
        std::uint64_t state = seed * 0x9e3779b97f4a7c15ULL;
        const auto next = [&](std::uint64_t bound) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            return (state >> 33) % bound;
        };
        std::vector<ExprId> made;
        for (std::uint32_t i = 0; i < n; ++i) {
            made.push_back(pool.variable({VarKind::position, i}));
        }
        made.push_back(pool.variable({VarKind::velocity, 0}));
        made.push_back(pool.variable({VarKind::parameter, 0}));
        made.push_back(pool.constant(0.5));
        const auto any = [&] {
            return made[next(made.size())];
        };
        for (int step = 0; step < 60; ++step) {
            ExprId e;
            switch (next(9)) {
            case 0:
                e = pool.add(any(), any());
                break;
            case 1:
                e = pool.mul(any(), any());
                break;
            case 2:
                e = pool.pow(any(), pool.constant(static_cast<double>(next(5)) - 2.0));
                break;
            case 3:
                e = pool.pow(any(), any());
                break;
            case 4:
                e = pool.call(static_cast<Func>(next(8)), any()); // sin .. sign
                break;
            case 5:
                e = next(2) == 0 ? pool.call(Func::atan2, any(), any())
                                 : pool.call(static_cast<Func>(9 + next(6)), any()); // sinh .. atan
                break;
            case 6:
                e = pool.select(pool.comparison(Comparison::lt, any(), any()), any(), any());
                break;
            case 7: {
                std::vector<ExprId> terms;
                for (std::uint64_t k = 0, count = 3 + next(20); k < count; ++k) {
                    terms.push_back(pool.mul(any(), any()));
                }
                e = pool.add(terms);
                break;
            }
            default:
                e = pool.sub(any(), pool.div(any(), any()));
                break;
            }
            made.push_back(e);
        }
        std::vector<ExprId> roots(made.end() - 12, made.end());
        roots.push_back(roots.front()); // a repeated root
        const std::vector<ExprId> J = jacobian(pool, roots, VarKind::position, n);
        REQUIRE(J.size() == roots.size() * n);
        for (std::uint32_t j = 0; j < n; ++j) {
            const std::vector<ExprId> column =
                differentiate(pool, roots, Variable{VarKind::position, j});
            for (std::size_t i = 0; i < roots.size(); ++i) {
                INFO("seed " << seed << ", root " << i << ", column " << j);
                CHECK(J[i * n + j] == column[i]);
            }
        }
        // the sparse form: every entry but the +0.0 ones, row by row, columns ascending
        const SparseJacobian S = sparse_jacobian(pool, roots, VarKind::position, n);
        REQUIRE(S.pattern.rows == roots.size());
        REQUIRE(S.pattern.columns == n);
        REQUIRE(S.pattern.row_start.size() == roots.size() + 1);
        REQUIRE(S.values.size() == S.pattern.nonzeros());
        std::vector<ExprId> spread(J.size(), pool.zero());
        for (std::size_t i = 0; i < roots.size(); ++i) {
            for (std::uint32_t e = S.pattern.row_start[i]; e < S.pattern.row_start[i + 1]; ++e) {
                INFO("seed " << seed << ", root " << i << ", entry " << e);
                CHECK(S.values[e] != pool.zero());
                if (e > S.pattern.row_start[i]) {
                    CHECK(S.pattern.column[e - 1] < S.pattern.column[e]);
                }
                spread[i * n + S.pattern.column[e]] = S.values[e];
            }
        }
        CHECK(spread == J);
    }
}
