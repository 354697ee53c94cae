#include "symbolic/evaluate.hpp"
#include "symbolic/expr.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

using namespace mdl::symbolic;

TEST_CASE("evaluator matches hand-written formulas", "[evaluate]") {
    ExprPool pool;
    const Expr t{pool, pool.variable({VarKind::time, 0})};
    const Expr q{pool, pool.variable({VarKind::position, 0})};
    const Expr v{pool, pool.variable({VarKind::velocity, 0})};
    const Expr x{pool, pool.variable({VarKind::state, 1})};
    const Expr th{pool, pool.variable({VarKind::phase, 0})};
    const Expr p0{pool, pool.variable({VarKind::parameter, 0})};
    const Expr p1{pool, pool.variable({VarKind::parameter, 1})};

    const Expr e1 = p0 * sin(q) * cos(th) + v / (1.0 + x * x) - exp(-t * p1);
    const Expr e2 = atan2(q, v) + sqrt(abs(x)) + tanh(t) * pow(q, 2.5);
    const Expr e3 = pow(q - v, 3.0) / pow(p0, 2.0) + log(p1) * acos(0.25 * th);

    const double T = 0.37, Q = 1.3, V = -0.8, X[] = {9.0, -2.2}, TH[] = {0.6}, P[] = {2.5, 0.4};
    const double qs[] = {Q}, vs[] = {V};
    const VariableValues at{.t = T, .q = qs, .v = vs, .x = X, .theta = TH, .p = P};
    const ExprId roots[] = {e1, e2, e3};
    Evaluator ev(pool);
    const std::vector<double> got = ev.evaluate(roots, at);

    const double xs = X[1];
    const double want1 =
        P[0] * std::sin(Q) * std::cos(TH[0]) + V / (1.0 + xs * xs) - std::exp(-T * P[1]);
    const double want2 =
        std::atan2(Q, V) + std::sqrt(std::fabs(xs)) + std::tanh(T) * std::pow(Q, 2.5);
    const double want3 =
        std::pow(Q - V, 3) / (P[0] * P[0]) + std::log(P[1]) * std::acos(0.25 * TH[0]);
    CHECK(got[0] == Approx(want1).epsilon(1e-14));
    CHECK(got[1] == Approx(want2).epsilon(1e-14));
    CHECK(got[2] == Approx(want3).epsilon(1e-14));

    // A second evaluation at another point reuses the memo table without stale values.
    const double qs2[] = {-0.4};
    VariableValues at2 = at;
    at2.q = qs2;
    const double want1b =
        P[0] * std::sin(-0.4) * std::cos(TH[0]) + V / (1.0 + xs * xs) - std::exp(-T * P[1]);
    CHECK(ev.evaluate(e1, at2) == Approx(want1b).epsilon(1e-14));
}

TEST_CASE("products are quotients and integer powers are products", "[evaluate]") {
    // numeric.hpp: x*y^-1 is x/y (one rounding), x^3 is x*(x*x), x^-2 is 1/(x*x).
    ExprPool pool;
    const Expr x{pool, pool.variable({VarKind::position, 0})};
    const Expr y{pool, pool.variable({VarKind::position, 1})};
    Evaluator ev(pool);
    const double q[] = {0.1, 0.3};
    const VariableValues at{.q = q};
    CHECK(ev.evaluate(x / y, at) == 0.1 / 0.3);
    CHECK(ev.evaluate(pow(x, 3.0), at) == 0.1 * (0.1 * 0.1));
    CHECK(ev.evaluate(pow(y, -2.0), at) == 1.0 / (0.3 * 0.3));
    CHECK(ev.evaluate(2.0 * x / (y * y), at) == 2.0 * 0.1 / (0.3 * 0.3));
    CHECK(ev.evaluate(pow(x, 40.0), at) == std::pow(0.1, 40.0));
}

TEST_CASE("sign is 0 at 0 and propagates NaN", "[evaluate]") {
    ExprPool pool;
    const Expr x{pool, pool.variable({VarKind::position, 0})};
    Evaluator ev(pool);
    const auto at = [&](double value) {
        static double q[1];
        q[0] = value;
        return ev.evaluate(sign(x), {.q = q});
    };
    CHECK(at(3.0) == 1.0);
    CHECK(at(-0.1) == -1.0);
    CHECK(at(0.0) == 0.0);
    CHECK(std::isnan(at(std::nan(""))));
}

TEST_CASE("missing variable values are reported", "[evaluate]") {
    ExprPool pool;
    const Expr q3{pool, pool.variable({VarKind::position, 3})};
    Evaluator ev(pool);
    const double q[] = {1.0, 2.0};
    CHECK_THROWS_AS(ev.evaluate(q3 + 1.0, {.q = q}), std::out_of_range);
}

TEST_CASE("a reciprocal shared by several denominators is computed once", "[evaluate]") {
    // numeric.hpp: within one computation, divisions by powers of one base share 1/b; a base
    // divided by once keeps the quotient x/y.
    ExprPool pool;
    const Expr x{pool, pool.variable({VarKind::position, 0})};
    const Expr y{pool, pool.variable({VarKind::position, 1})};
    const Expr z{pool, pool.variable({VarKind::position, 2})};
    Evaluator ev(pool);
    const double q[] = {0.1, 0.3, 0.7};
    const VariableValues at{.q = q};
    const ExprId roots[] = {x / y, z / (y * y), pow(y, -3.0)};
    double out[3];
    ev.evaluate(roots, at, out);
    const double inverse = 1.0 / 0.3;
    CHECK(out[0] == 0.1 * inverse);
    CHECK(out[1] == 0.7 * (inverse * inverse));
    CHECK(out[2] == inverse * (inverse * inverse));
    CHECK(ev.evaluate(x / y, at) == 0.1 / 0.3);
}
