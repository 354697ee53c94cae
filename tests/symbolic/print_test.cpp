#include "symbolic/print.hpp"

#include "symbolic/expr.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace mdl::symbolic;

namespace {
struct Named {
    ExprPool pool;
    VariableNames names;
    Named() {
        names.positions = {"x", "y"};
        names.parameters = {"a", "b"};
    }
    // Created first, so they sort first in products: a*x.
    Expr a{pool, pool.variable({VarKind::parameter, 0})};
    Expr b{pool, pool.variable({VarKind::parameter, 1})};
    Expr x{pool, pool.variable({VarKind::position, 0})};
    Expr y{pool, pool.variable({VarKind::position, 1})};
    std::string str(Expr e) { return to_string(pool, e, names); }
};
} // namespace

TEST_CASE("infix with minimal parentheses", "[print]") {
    Named n;
    const Expr x = n.x, y = n.y, a = n.a, b = n.b;
    CHECK(n.str(x + y) == "x + y");
    CHECK(n.str(x - y) == "x - y");
    CHECK(n.str(-x) == "-x");
    CHECK(n.str(2.0 * x) == "2*x");
    CHECK(n.str(x / y) == "x/y");
    CHECK(n.str(1.0 / x) == "1/x");
    CHECK(n.str(x / (y * a)) == "x/(a*y)");
    CHECK(n.str(pow(x, 2.0)) == "x^2");
    CHECK(n.str(pow(x, -2.0)) == "1/x^2");
    CHECK(n.str(x + 1.0) == "x + 1");
    CHECK(n.str(x - 0.5) == "x - 0.5");
    CHECK(n.str((x + y) * a) == "a*(x + y)");
    CHECK(n.str(a / (x + y)) == "a/(x + y)");
    CHECK(n.str(pow(x + y, 3.0)) == "(x + y)^3");
    CHECK(n.str(pow(x, a + b)) == "x^(a + b)");
    CHECK(n.str(sin(x) * cos(y)) == "sin(x)*cos(y)");
    CHECK(n.str(atan2(y, x)) == "atan2(y, x)");
    CHECK(n.str(x - 2.0 * y) == "x - 2*y");
    CHECK(n.str(-x - y) == "-x - y");
    CHECK(n.str(pow(-1.0 * x * a, 3.0)) == "-a^3*x^3");
}

TEST_CASE("unnamed variables print with their kind and index", "[print]") {
    ExprPool pool;
    const Expr p{pool, pool.variable({VarKind::parameter, 2})};
    const Expr v{pool, pool.variable({VarKind::velocity, 1})};
    const Expr th{pool, pool.variable({VarKind::phase, 0})};
    const Expr t{pool, pool.variable({VarKind::time, 0})};
    CHECK(to_string(pool, p * v) == "p[2]*der(q[1])");
    CHECK(to_string(pool, cos(th) + t) == "t + cos(theta[0])");
}

TEST_CASE("numbers print as the shortest text that reads back", "[print]") {
    CHECK(format_number(9.81) == "9.81");
    CHECK(format_number(0.1) == "0.1");
    CHECK(format_number(2.0) == "2");
    CHECK(format_number(1e-8) == "1e-08");
    CHECK(std::stod(format_number(1.0 / 3.0)) == 1.0 / 3.0);
}

TEST_CASE("shared sub-expressions print once, so output stays linear", "[print]") {
    Named n;
    // e_k = sin(e_{k-1}) * e_{k-1} + e_{k-1}^2: as a tree, 3^40 copies of x.
    Expr e = n.x + n.y;
    for (int k = 0; k < 40; ++k) {
        e = sin(e) * e + pow(e, 2.0) + n.a;
    }
    const std::string text = n.str(e);
    CHECK(text.size() < 20000);
    CHECK(text.find("#1 = ") == 0);

    // Small shared pieces stay inline.
    CHECK(n.str(sin(n.x) * sin(n.x) + sin(n.x)) == "sin(x) + sin(x)^2");
}

TEST_CASE("listings label their entries", "[print]") {
    Named n;
    const Labelled entries[] = {{"force[x]", -n.a * n.x}, {"force[y]", n.b * n.y}};
    CHECK(print_listing(n.pool, entries, n.names) == "force[x] = -a*x\nforce[y] = b*y\n");
}

TEST_CASE("printing does not depend on the order things were built in", "[print]") {
    // The same expression built in two pools whose variables were created in opposite order.
    const auto build = [](bool reversed) {
        ExprPool pool;
        VariableNames names;
        names.positions = {"x", "y"};
        names.parameters = {"k"};
        ExprId kid, xid, yid;
        if (reversed) {
            xid = pool.variable({VarKind::position, 0});
            yid = pool.variable({VarKind::position, 1});
            kid = pool.variable({VarKind::parameter, 0});
        } else {
            kid = pool.variable({VarKind::parameter, 0});
            yid = pool.variable({VarKind::position, 1});
            xid = pool.variable({VarKind::position, 0});
        }
        const Expr k{pool, kid}, x{pool, xid}, y{pool, yid};
        const Expr e = reversed ? cos(y) * sin(x) - k * (y - x) + pow(x - y, 2.0)
                                : pow(y - x, 2.0) + sin(x) * cos(y) + k * (x - y);
        return to_string(pool, e, names);
    };
    CHECK(build(false) == build(true));
    CHECK(build(false) == "(x - y)^2 + k*(x - y) + sin(x)*cos(y)");
}
