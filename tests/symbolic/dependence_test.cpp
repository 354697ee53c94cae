#include "symbolic/dependence.hpp"

#include "symbolic/expr.hpp"

#include <catch2/catch.hpp>

using namespace mdl::symbolic;

TEST_CASE("which variables an expression mentions", "[dependence]") {
    ExprPool pool;
    const Expr q1{pool, pool.variable({VarKind::position, 1})};
    const Expr v0{pool, pool.variable({VarKind::velocity, 0})};
    const Expr p0{pool, pool.variable({VarKind::parameter, 0})};
    const Expr t{pool, pool.variable({VarKind::time, 0})};
    const Expr e = p0 * sin(q1) + v0 * t;

    CHECK(depends_on(pool, e, VarKind::velocity));
    CHECK(depends_on(pool, e, Variable{VarKind::position, 1}));
    CHECK_FALSE(depends_on(pool, e, Variable{VarKind::position, 0}));
    CHECK_FALSE(depends_on(pool, e, VarKind::phase));
    // v0 * t - v0 * t folds away: no dependence left.
    CHECK_FALSE(depends_on(pool, e - v0 * t, VarKind::time));

    const ExprId roots[] = {e};
    const auto vars = variables_in(pool, roots);
    REQUIRE(vars.size() == 4);
    CHECK(vars[0] == Variable{VarKind::parameter, 0});
    CHECK(vars[1] == Variable{VarKind::position, 1});
    CHECK(vars[2] == Variable{VarKind::velocity, 0});
    CHECK(vars[3] == Variable{VarKind::time, 0});
}
