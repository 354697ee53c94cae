#include "symbolic/substitute.hpp"

#include "symbolic/expr.hpp"

#include <catch2/catch.hpp>

using namespace mdl::symbolic;

TEST_CASE("substitution re-simplifies", "[substitute]") {
    ExprPool pool;
    const Variable vx{VarKind::position, 0}, vy{VarKind::position, 1};
    const Expr x{pool, pool.variable(vx)};
    const Expr y{pool, pool.variable(vy)};
    const Expr e = x * y + sin(x);

    const Replacement y_is_x[] = {{vy, x}};
    CHECK(substitute(pool, e, y_is_x) == (pow(x, 2.0) + sin(x)).id());

    const Replacement x_is_zero[] = {{vx, pool.zero()}};
    CHECK(substitute(pool, e, x_is_zero) == pool.zero());

    // Simultaneous: a swap, not x -> y then y -> x.
    const Replacement swap[] = {{vx, y}, {vy, x}};
    CHECK(substitute(pool, x - 2.0 * y, swap) == (y - 2.0 * x).id());

    // Untouched expressions are the same node.
    const Replacement unrelated[] = {{Variable{VarKind::state, 0}, x}};
    CHECK(substitute(pool, e, unrelated) == e.id());
}
