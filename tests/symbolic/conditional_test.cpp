// Comparisons and selects (if-expressions, relations, and/or/not) in the symbolic engine:
// canonical forms, evaluation, differentiation, printing, substitution and parity.
#include "check/evaluate.hpp"
#include "symbolic/dependence.hpp"
#include "symbolic/derivative.hpp"
#include "symbolic/evaluate.hpp"
#include "symbolic/expr.hpp"
#include "symbolic/parity.hpp"
#include "symbolic/print.hpp"
#include "symbolic/simplify.hpp"
#include "symbolic/substitute.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace mdl::symbolic;
using Catch::Detail::Approx;

namespace {

constexpr double nan_value = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_value = std::numeric_limits<double>::infinity();

struct Vars {
    ExprPool pool;
    Expr x{pool, pool.variable({VarKind::position, 0})};
    Expr y{pool, pool.variable({VarKind::position, 1})};
    Expr p{pool, pool.variable({VarKind::parameter, 0})};
    Expr c(double v) { return {pool, pool.constant(v)}; }
    double eval(Expr e, double xv, double yv, double pv = 1.5) {
        const double q[] = {xv, yv};
        const double params[] = {pv};
        VariableValues at;
        at.q = q;
        at.p = params;
        Evaluator ev(pool);
        return ev.evaluate(e, at);
    }
};

constexpr std::array<Comparison, 6> all_comparisons{Comparison::lt, Comparison::le, Comparison::gt,
                                                    Comparison::ge, Comparison::eq, Comparison::ne};

// The relation computed with the C++ operators, written out here independently of
// check::compare: IEEE semantics (a NaN operand: every relation false except <>).
double relation_holds(Comparison c, double a, double b) {
    switch (c) {
    case Comparison::lt:
        return a < b ? 1 : 0;
    case Comparison::le:
        return a <= b ? 1 : 0;
    case Comparison::gt:
        return a > b ? 1 : 0;
    case Comparison::ge:
        return a >= b ? 1 : 0;
    case Comparison::eq:
        return a == b ? 1 : 0;
    case Comparison::ne:
        return a != b ? 1 : 0;
    }
    return -1;
}

// Same value, NaN included.
bool same(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

} // namespace

TEST_CASE("relations evaluate with IEEE semantics, NaN and infinities included", "[conditional]") {
    const std::vector<double> values{-inf_value, -2.0, -0.0,      0.0,
                                     1e-300,     3.5,  inf_value, nan_value};
    Vars v;
    for (Comparison c : all_comparisons) {
        const Expr relation_xy = relation(c, v.x, v.y);
        REQUIRE(v.pool.op(relation_xy) == Op::compare);
        for (double a : values) {
            for (double b : values) {
                INFO(mdl::check::to_string(c) << " " << a << " " << b);
                const double want = relation_holds(c, a, b);
                CHECK(mdl::check::compare(c, a, b) == want);
                CHECK(v.eval(relation_xy, a, b) == want);
                // Folded constants have the same value.
                const Expr folded = relation(c, v.c(a), v.c(b));
                REQUIRE(v.pool.is_constant(folded));
                CHECK(v.pool.constant_value(folded) == want);
            }
        }
    }
}

TEST_CASE("comparisons are canonical: > is a swapped <, = and <> are symmetric", "[conditional]") {
    Vars v;
    const Expr x = v.x, y = v.y;
    CHECK(gt(x, y) == lt(y, x));
    CHECK(ge(x, y) == le(y, x));
    CHECK(eq(x, y) == eq(y, x));
    CHECK(ne(x, y) == ne(y, x));
    CHECK(lt(x, y) != lt(y, x));
    CHECK(lt(x, y) != le(x, y));
    CHECK(v.pool.comparison_of(gt(x, y)) == Comparison::lt);
    CHECK(v.pool.comparison_of(ge(x, y)) == Comparison::le);
    // Hash-consed: built twice, one node.
    CHECK(lt(sin(x), y + 1.0) == lt(sin(x), 1.0 + y));
    // An operand compared with itself.
    CHECK(lt(x, x) == v.c(0.0));
    CHECK(gt(sin(x), sin(x)) == v.c(0.0));
    CHECK(le(x, x) == v.c(1.0));
    CHECK(eq(x * y, y * x) == v.c(1.0));
    CHECK(ne(x, x) == v.c(0.0));
}

TEST_CASE("selects simplify: known conditions, equal branches, nested and boolean forms",
          "[conditional]") {
    Vars v;
    const Expr x = v.x, y = v.y, p = v.p;
    const Expr c = lt(x, y);
    const Expr d = gt(x, p);
    const Expr a = sin(x), b = cos(y);
    const Expr s = if_then_else(c, a, b);
    REQUIRE(v.pool.op(s) == Op::select);
    CHECK(if_then_else(v.c(1.0), a, b) == a);
    CHECK(if_then_else(v.c(-3.0), a, b) == a);
    CHECK(if_then_else(v.c(nan_value), a, b) == a); // NaN counts as != 0
    CHECK(if_then_else(v.c(0.0), a, b) == b);
    CHECK(if_then_else(lt(v.c(2.0), v.c(1.0)), a, b) == b);
    CHECK(if_then_else(c, a, a) == a);
    CHECK(if_then_else(x, a, a) == a);
    CHECK(if_then_else(logical_not(c), a, b) == if_then_else(c, b, a));
    CHECK(if_then_else(c, if_then_else(c, x, y), b) == if_then_else(c, x, b));
    CHECK(if_then_else(c, a, if_then_else(c, x, y)) == if_then_else(c, a, y));
    CHECK(if_then_else(ne(x, v.c(0.0)), a, b) == if_then_else(x, a, b));
    CHECK(if_then_else(c, v.c(1.0), v.c(0.0)) == c);
    CHECK(logical_and(c, v.c(1.0)) == c);
    CHECK(logical_or(c, v.c(0.0)) == c);
    CHECK(logical_or(c, v.c(1.0)) == v.c(1.0));
    CHECK(logical_and(c, v.c(0.0)) == v.c(0.0));
    CHECK(logical_and(c, c) == c);
    CHECK(logical_or(c, c) == c);
    CHECK(logical_not(logical_not(c)) == c);
    CHECK(logical_and(logical_and(c, d), v.c(1.0)) == logical_and(c, d));
    // Not a 0/1 condition: select(x, 1, 0) is not x.
    CHECK(v.pool.op(if_then_else(x, v.c(1.0), v.c(0.0))) == Op::select);
    // Rebuilding keeps canonical nodes as they are.
    CHECK(simplify(v.pool, s) == s);

    // Every rewrite keeps the value: the simplified forms against the definitions, computed
    // here by hand, on a grid that includes the switching points and NaN.
    const auto pick = [](double cond, double t, double e) {
        return cond != 0.0 ? t : e;
    };
    const std::vector<double> grid{-1.0, 0.0, 0.5, 1.5, 2.0, nan_value};
    for (double xv : grid) {
        for (double yv : grid) {
            INFO("x = " << xv << ", y = " << yv);
            const double cv = xv < yv ? 1.0 : 0.0;
            const double dv = xv > 1.5 ? 1.0 : 0.0;
            CHECK(same(v.eval(s, xv, yv), pick(cv, std::sin(xv), std::cos(yv))));
            CHECK(same(v.eval(if_then_else(logical_not(c), a, b), xv, yv),
                       pick(pick(cv, 0.0, 1.0), std::sin(xv), std::cos(yv))));
            CHECK(same(v.eval(if_then_else(ne(x, v.c(0.0)), a, b), xv, yv),
                       pick(xv != 0.0 ? 1.0 : 0.0, std::sin(xv), std::cos(yv))));
            CHECK(same(v.eval(if_then_else(c, if_then_else(c, x, y), b), xv, yv),
                       pick(cv, pick(cv, xv, yv), std::cos(yv))));
            CHECK(same(v.eval(logical_and(c, d), xv, yv), pick(cv, dv, 0.0)));
            CHECK(same(v.eval(logical_or(c, d), xv, yv), pick(cv, 1.0, dv)));
            CHECK(same(v.eval(logical_not(logical_or(c, d)), xv, yv),
                       pick(pick(cv, 1.0, dv), 0.0, 1.0)));
            CHECK(same(v.eval(if_then_else(x, v.c(1.0), v.c(0.0)), xv, yv), pick(xv, 1.0, 0.0)));
        }
    }
}

TEST_CASE("relations and selects in sums, products and functions", "[conditional]") {
    Vars v;
    const Expr x = v.x, y = v.y;
    const Expr c = lt(x, y);
    const Expr s = if_then_else(c, x, y); // min(x, y)
    CHECK(s + s == 2.0 * s);
    CHECK(s * s == pow(s, 2.0));
    CHECK(s - s == v.c(0.0));
    // The sign oracle: a relation is 0 or 1, a select has its branches' sign.
    CHECK(abs(c) == c);
    CHECK(is_known_nonnegative(v.pool, c));
    CHECK_FALSE(is_known_positive(v.pool, c));
    const Expr positive_select = if_then_else(c, exp(x), 1.0 + y * y);
    CHECK(is_known_positive(v.pool, positive_select));
    CHECK(abs(positive_select) == positive_select);
    CHECK_FALSE(is_known_nonnegative(v.pool, s));
    CHECK(v.pool.op(abs(s)) == Op::call);
    // Constants fold through: 3 > 2 is 1.
    CHECK(gt(v.c(3.0), v.c(2.0)) * x == x);
}

TEST_CASE("the derivative of a select is the derivative of the branch taken", "[conditional]") {
    Vars v;
    const Expr x = v.x, y = v.y, p = v.p;
    // f switches on the curve x*y = p; away from it, f is smooth on each side.
    const Expr f = if_then_else(gt(x * y, p), sin(x) * pow(y, 2.0), exp(x - y) + p * x) +
                   lt(x, v.c(0.0)) * x * y;
    const auto hand = [](double xv, double yv, double pv) {
        const double smooth = xv * yv > pv ? std::sin(xv) * yv * yv : std::exp(xv - yv) + pv * xv;
        return smooth + (xv < 0.0 ? 1.0 : 0.0) * xv * yv;
    };
    const Expr dfx{v.pool, differentiate(v.pool, f, {VarKind::position, 0})};
    const Expr dfy{v.pool, differentiate(v.pool, f, {VarKind::position, 1})};
    std::mt19937_64 rng(17);
    std::uniform_real_distribution<double> u(-2.0, 2.0), side(1e-3, 0.3);
    const double pv = 0.7;
    int above = 0, below = 0;
    for (int trial = 0; trial < 200; ++trial) {
        // A point near the switching curve x*y = p, on a random side of it.
        double xv = u(rng);
        if (std::fabs(xv) < 0.2) {
            continue;
        }
        const double offset = (trial % 2 == 0 ? 1.0 : -1.0) * side(rng);
        const double yv = (pv + offset) / xv;
        if (std::fabs(yv) > 5.0 || std::fabs(xv) < 1e-2) {
            continue;
        }
        (xv * yv > pv ? above : below)++;
        const double h = 1e-7;
        // Steps this small stay on the point's side of both switching curves (x*y = p, x = 0).
        REQUIRE(((xv + h) * yv > pv) == (xv * yv > pv));
        REQUIRE(((xv - h) * yv > pv) == (xv * yv > pv));
        REQUIRE((xv * (yv + h) > pv) == (xv * yv > pv));
        REQUIRE((xv * (yv - h) > pv) == (xv * yv > pv));
        const double fd_x = (hand(xv + h, yv, pv) - hand(xv - h, yv, pv)) / (2.0 * h);
        const double fd_y = (hand(xv, yv + h, pv) - hand(xv, yv - h, pv)) / (2.0 * h);
        INFO("x = " << xv << ", y = " << yv);
        CHECK(v.eval(f, xv, yv, pv) == Approx(hand(xv, yv, pv)).epsilon(1e-12).margin(1e-12));
        CHECK(v.eval(dfx, xv, yv, pv) == Approx(fd_x).epsilon(1e-6).margin(1e-7));
        CHECK(v.eval(dfy, xv, yv, pv) == Approx(fd_y).epsilon(1e-6).margin(1e-7));
    }
    CHECK(above > 20);
    CHECK(below > 20);

    // Symbolic forms: a relation has derivative 0; the condition is not differentiated.
    CHECK(differentiate(v.pool, lt(x * x, y), {VarKind::position, 0}) == v.pool.zero());
    CHECK(differentiate(v.pool, if_then_else(x, y, 2.0 * y), {VarKind::position, 0}) ==
          v.pool.zero());
    CHECK(differentiate(v.pool, if_then_else(x, y, 2.0 * y), {VarKind::position, 1}) ==
          if_then_else(x, v.c(1.0), v.c(2.0)));
    CHECK(differentiate(v.pool, if_then_else(lt(x, y), x * x, 3.0 * x), {VarKind::position, 0}) ==
          if_then_else(lt(x, y), 2.0 * x, v.c(3.0)));
    // A condition is not differentiated at all: the only node built is the result.
    const Expr switched = if_then_else(lt(sin(x) * x, sqrt(y) + x), y, 2.0 * y);
    const std::size_t before = v.pool.size();
    CHECK(differentiate(v.pool, switched, {VarKind::position, 1}) ==
          if_then_else(lt(sin(x) * x, sqrt(y) + x), v.c(1.0), v.c(2.0)));
    CHECK(v.pool.size() == before + 1);
    // Both branches constant in x: the derivative is 0, not a select of zeros.
    CHECK(differentiate(v.pool, if_then_else(lt(x, y), y, p), {VarKind::position, 0}) ==
          v.pool.zero());
}

TEST_CASE("if-expressions print as if-then-else, and/or/not as such", "[conditional][print]") {
    Vars v;
    VariableNames names;
    names.positions = {"x", "y"};
    names.parameters = {"a"};
    const Expr x = v.x, y = v.y, a = v.p;
    const auto str = [&](Expr e) {
        return to_string(v.pool, e, names);
    };
    CHECK(str(lt(x, y)) == "x < y");
    CHECK(str(gt(x, y)) == "y < x");
    CHECK(str(gt(x, v.c(0.0))) == "x > 0");
    CHECK(str(le(v.c(1.0), x)) == "x >= 1");
    CHECK(str(ge(x, v.c(2.0))) == "x >= 2");
    CHECK(str(gt(x, a)) == "x > a");
    CHECK(str(le(a, x + y)) == "x + y >= a");
    CHECK(str(lt(a, v.c(2.0))) == "a < 2");
    CHECK(str(lt(v.c(2.0), a)) == "a > 2");
    CHECK(str(ne(x, y + 1.0)) == "x <> y + 1");
    CHECK(str(eq(x * a, y)) == "y == a*x");
    CHECK(str(if_then_else(lt(x, y), x, y)) == "if x < y then x else y");
    CHECK(str(if_then_else(x, y, v.c(2.0))) == "if x <> 0 then y else 2");
    CHECK(str(1.0 + if_then_else(lt(x, y), x, y)) == "(if x < y then x else y) + 1");
    CHECK(str(a * if_then_else(lt(x, y), x, y)) == "a*(if x < y then x else y)");
    CHECK(str(-if_then_else(lt(x, y), x, y)) == "-(if x < y then x else y)");
    CHECK(str(lt(x, y) * a) == "a*(x < y)");
    CHECK(str(if_then_else(lt(x, y), x, if_then_else(lt(y, a), y, a))) ==
          "if x < y then x else if y < a then y else a");
    CHECK(str(if_then_else(lt(x, y), if_then_else(lt(y, a), y, a), x)) ==
          "if x < y then (if y < a then y else a) else x");
    CHECK(str(logical_and(lt(x, y), lt(y, a))) == "x < y and y < a");
    CHECK(str(logical_or(lt(x, y), lt(y, a))) == "x < y or y < a");
    CHECK(str(logical_not(lt(x, y))) == "not x < y");
    CHECK(str(logical_and(logical_or(lt(x, y), lt(y, a)), gt(x, v.c(0.0)))) ==
          "(x < y or y < a) and x > 0");
    CHECK(str(if_then_else(logical_and(lt(x, y), gt(x, v.c(0.0))), sin(x), v.c(0.0))) ==
          "if x < y and x > 0 then sin(x) else 0");
}

TEST_CASE("substitution re-simplifies conditions; dependence sees them", "[conditional]") {
    Vars v;
    const Expr x = v.x, y = v.y;
    const Expr s = if_then_else(gt(x, v.c(0.0)), sin(y), cos(y));
    const Replacement positive[] = {{Variable{VarKind::position, 0}, v.c(2.0)}};
    CHECK(substitute(v.pool, s, positive) == sin(y));
    const Replacement negative[] = {{Variable{VarKind::position, 0}, v.c(-2.0)}};
    CHECK(substitute(v.pool, s, negative) == cos(y));
    const Replacement swap_y[] = {{Variable{VarKind::position, 1}, x}};
    CHECK(substitute(v.pool, lt(x, y), swap_y) == v.c(0.0)); // x < x

    const Expr vel{v.pool, v.pool.variable({VarKind::velocity, 0})};
    const Expr friction = if_then_else(gt(vel, v.c(0.0)), v.c(-1.0), v.c(1.0));
    CHECK(depends_on(v.pool, friction, VarKind::velocity));
    CHECK_FALSE(depends_on(v.pool, friction, VarKind::position));
    const ExprId roots[] = {friction};
    CHECK(variables_in(v.pool, roots) == std::vector<Variable>{{VarKind::velocity, 0}});
}

TEST_CASE("evenness through conditionals is shown only where it holds", "[conditional][parity]") {
    ExprPool pool;
    const Expr th{pool, pool.variable({VarKind::phase, 0})};
    const Expr q{pool, pool.variable({VarKind::position, 0})};
    const Expr zero{pool, pool.zero()};
    const auto even = [&](Expr e) {
        const ExprId roots[] = {e};
        return is_even_in_phase(pool, roots, 0);
    };
    const auto value = [&](Expr e, double theta) {
        const double phases[] = {theta};
        const double positions[] = {0.4};
        VariableValues at;
        at.theta = phases;
        at.q = positions;
        Evaluator ev(pool);
        return ev.evaluate(e, at);
    };
    // Even: the condition and both branches are even.
    const std::vector<Expr> shown{
        if_then_else(gt(cos(th), zero), cos(th), pow(th, 2.0)),
        if_then_else(lt(pow(th, 2.0), Expr(pool, pool.one())), abs(th), cosh(th)),
        if_then_else(gt(q, zero), cos(th), pow(sin(th), 2.0)),
        logical_and(gt(cos(th), zero), lt(abs(sin(th)), Expr(pool, pool.constant(0.5)))),
        if_then_else(gt(sin(th), zero), cos(th), cos(th)), // is cos(th)
    };
    for (const Expr& e : shown) {
        CHECK(even(e));
        for (double t : {0.3, 1.1, 2.5, 4.0}) { // and numerically so
            CHECK(value(e, t) == value(e, -t));
        }
    }
    // Not even, and not shown even.
    const std::vector<Expr> odd_or_neither{
        if_then_else(gt(th, zero), Expr(pool, pool.one()), Expr(pool, pool.constant(2.0))),
        if_then_else(gt(cos(th), zero), sin(th), cos(th)),
        if_then_else(gt(sin(th), zero), cos(th), pow(th, 2.0)),
        lt(sin(th), Expr(pool, pool.constant(0.5))),
    };
    for (const Expr& e : odd_or_neither) {
        CHECK_FALSE(even(e));
        bool differs = false;
        for (double t : {0.3, 1.1, 2.5, 4.0}) {
            differs = differs || value(e, t) != value(e, -t);
        }
        CHECK(differs);
    }
    // Even but not shown (incomplete, never unsound): |sin| written as a select.
    CHECK_FALSE(even(if_then_else(gt(sin(th), zero), sin(th), -sin(th))));
}
