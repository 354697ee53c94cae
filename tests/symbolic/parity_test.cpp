#include "symbolic/parity.hpp"

#include "symbolic/expr.hpp"

#include <catch2/catch.hpp>

using namespace mdl::symbolic;

TEST_CASE("evenness in a vibration phase", "[parity]") {
    ExprPool pool;
    const Expr th{pool, pool.variable({VarKind::phase, 0})};
    const Expr other{pool, pool.variable({VarKind::phase, 1})};
    const Expr q{pool, pool.variable({VarKind::position, 0})};
    const Expr p{pool, pool.variable({VarKind::parameter, 0})};
    const auto even = [&](Expr e) {
        const ExprId roots[] = {e};
        return is_even_in_phase(pool, roots, 0);
    };

    CHECK(even(cos(th)));
    CHECK_FALSE(even(sin(th)));
    CHECK(even(pow(sin(th), 2.0)));
    CHECK(even(sin(th) * tan(th)));
    CHECK(even(p * cos(th) * sin(q) + q));
    CHECK(even(exp(th) + exp(-th)));
    CHECK(even(abs(sin(th))));
    CHECK(even(sin(other))); // does not mention theta_0 at all
    CHECK_FALSE(even(cos(th) + sin(th)));
    CHECK_FALSE(even(cos(th + p))); // cos(-theta + p) is not cos(theta + p)
    CHECK_FALSE(even(th));
    // Incomplete, by design: atan2 has no sign rule, so this even function is not shown even.
    CHECK_FALSE(even(atan2(sin(th), Expr(pool, pool.one())) * sin(th)));

    // All roots together: even only if each is.
    const ExprId both[] = {cos(th), pow(th, 2.0)};
    CHECK(is_even_in_phase(pool, both, 0));
    const ExprId mixed[] = {cos(th), sin(th)};
    CHECK_FALSE(is_even_in_phase(pool, mixed, 0));
}
