#include "symbolic/derivative.hpp"
#include "symbolic/expr.hpp"

#include <catch2/catch.hpp>

#include <vector>

using namespace mdl::symbolic;

namespace {
Expr var(ExprPool& pool, VarKind kind, std::uint32_t i = 0) {
    return {pool, pool.variable({kind, i})};
}
} // namespace

TEST_CASE("structurally equal expressions are one node", "[expr]") {
    ExprPool pool;
    const Expr x = var(pool, VarKind::position, 0);
    const Expr y = var(pool, VarKind::position, 1);
    const Expr p = var(pool, VarKind::parameter, 0);

    CHECK(pool.variable({VarKind::position, 0}) == x.id());
    CHECK(pool.variable({VarKind::position, 0}) != pool.variable({VarKind::velocity, 0}));
    CHECK(pool.constant(2.5) == pool.constant(2.5));
    CHECK(pool.constant(0.0) == pool.constant(-0.0));

    const Expr e1 = sin(x * p) + y;
    const std::size_t size = pool.size();
    const Expr e2 = sin(x * p) + y;
    CHECK(e1 == e2);
    CHECK(pool.size() == size); // nothing new was created

    // Canonical order: the same sum or product however it is written.
    CHECK(x + y == y + x);
    CHECK(x * y * p == p * (y * x));
    CHECK((x + y) + p == x + (y + p));
}

TEST_CASE("time is one variable whatever the index", "[expr]") {
    ExprPool pool;
    CHECK(pool.variable({VarKind::time, 0}) == pool.variable({VarKind::time, 7}));
}

TEST_CASE("children are created before their parents", "[expr]") {
    ExprPool pool;
    const Expr x = var(pool, VarKind::position);
    const Expr e = exp(sin(x) * cos(x)) + x;
    for (std::uint32_t i = 0; i < pool.size(); ++i) {
        for (ExprId c : pool.children(ExprId{i})) {
            CHECK(c.index < i);
        }
    }
    const ExprId roots[] = {e};
    const auto order = reachable_in_order(pool, roots);
    REQUIRE(!order.empty());
    CHECK(order.back() == e.id());
    for (std::size_t i = 1; i < order.size(); ++i) {
        CHECK(order[i - 1] < order[i]);
    }
}

TEST_CASE("built-in functions are known by name and arity", "[expr]") {
    CHECK(function_named("atan2") == Func::atan2);
    CHECK(function_named("sqrt") == Func::sqrt);
    CHECK(function_named("pow") == Func::pow);
    CHECK_FALSE(function_named("sinc").has_value());
    CHECK(function_arity(Func::atan2) == 2);
    CHECK(function_arity(Func::tanh) == 1);
    CHECK(function_name(Func::acos) == "acos");

    ExprPool pool;
    const Expr x = var(pool, VarKind::position);
    CHECK_THROWS_AS(pool.call(Func::sin, x, x), std::invalid_argument);
    CHECK_THROWS_AS(pool.call(Func::atan2, x), std::invalid_argument);
    CHECK(pool.call(Func::pow, x, pool.constant(3.0)) == pow(x, 3.0).id());
}

TEST_CASE("expression swell is refused with an error, not a hang", "[expr]") {
    // Repeated differentiation of a nested product grows without bound.
    ExprPool pool(2000);
    const Expr x = var(pool, VarKind::position);
    Expr e = x;
    for (int i = 0; i < 6; ++i) {
        e = sin(e) * e + exp(e * x);
    }
    CHECK_THROWS_AS(
        [&] {
            ExprId d = e;
            for (int i = 0; i < 50; ++i) {
                d = differentiate(pool, d, {VarKind::position, 0});
            }
        }(),
        ExpressionTooLarge);
    CHECK(pool.size() <= 2000);
}
