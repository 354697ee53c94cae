// The linearized propagation of held rate errors (runtime/multiscale/linearized_error.hpp)
// against the closed-form responses of e'' = J e + C e' + r (to the RK4 sub-steps' 1e-4).
#include "runtime/multiscale/linearized_error.hpp"

#include <catch2/catch.hpp>
#include <cmath>

using mdl::runtime::Matrix;
using mdl::runtime::multiscale::LinearizedErrorPropagation;

namespace {

LinearizedErrorPropagation one_dimensional(double j, double c) {
    LinearizedErrorPropagation p(1);
    p.set_jacobians(Matrix::Constant(1, 1, j), c == 0.0 ? Matrix() : Matrix::Constant(1, 1, c));
    return p;
}

void advance(LinearizedErrorPropagation& p, double t, std::size_t steps) {
    for (std::size_t i = 0; i < steps; ++i) {
        p.advance(t / static_cast<double>(steps));
    }
}

} // namespace

TEST_CASE("a held acceleration error in free motion moves the positions by r t^2/2",
          "[linearized-error]") {
    LinearizedErrorPropagation p = one_dimensional(0.0, 0.0);
    p.set_rate(0.3);
    advance(p, 2.0, 10);
    CHECK(p.position() == Approx(0.3 * 2.0 * 2.0 / 2.0).epsilon(1e-12));
}

TEST_CASE("about a stable equilibrium a held acceleration error stays bounded: r (1 - cos w t)/w^2",
          "[linearized-error]") {
    const double w = 12.0, r = 0.5;
    LinearizedErrorPropagation p = one_dimensional(-w * w, 0.0);
    p.set_rate(r);
    for (double t : {0.1, 0.4, 1.0}) {
        LinearizedErrorPropagation q = p;
        advance(q, t, 40);
        CHECK(q.position() ==
              Approx(r * (1.0 - std::cos(w * t)) / (w * w)).margin(1e-4 * r / (w * w)));
        CHECK(q.position() <= r * t * t / 2.0); // never above free motion there
    }
}

TEST_CASE("where the motion is unstable the error grows: r (cosh k t - 1)/k^2",
          "[linearized-error]") {
    const double k = 3.0, r = 0.2;
    LinearizedErrorPropagation p = one_dimensional(k * k, 0.0);
    p.set_rate(r);
    advance(p, 2.0, 20);
    CHECK(p.position() == Approx(r * (std::cosh(k * 2.0) - 1.0) / (k * k)).epsilon(1e-4));
    CHECK(p.position() > r * 2.0 * 2.0 / 2.0 * 10.0);
}

TEST_CASE("damping: e'' = -c e' + r gives r (t/c - (1 - exp(-c t))/c^2)", "[linearized-error]") {
    const double c = 4.0, r = 1.5, t = 1.5;
    LinearizedErrorPropagation p = one_dimensional(0.0, -c);
    p.set_rate(r);
    advance(p, t, 30);
    CHECK(p.position() == Approx(r * (t / c - (1.0 - std::exp(-c * t)) / (c * c))).epsilon(1e-4));
}

TEST_CASE("groups add in absolute value: a rate that stops leaves the free oscillation",
          "[linearized-error]") {
    // r acts on [0, t1), then r2 from t1: e = r [cos w (t - t1) - cos w t]/w^2 for the first
    // group and r2 (1 - cos w (t - t1))/w^2 for the second, summed in absolute value
    const double w = 5.0, r = 1.0, r2 = 0.25, t1 = 0.3, t = 1.1;
    LinearizedErrorPropagation p = one_dimensional(-w * w, 0.0);
    p.set_rate(r);
    advance(p, t1, 20);
    p.set_rate(r2);
    advance(p, t - t1, 60);
    const double first = r * (std::cos(w * (t - t1)) - std::cos(w * t)) / (w * w);
    const double second = r2 * (1.0 - std::cos(w * (t - t1))) / (w * w);
    CHECK(p.groups() == 2);
    CHECK(p.position() == Approx(std::abs(first) + std::abs(second)).epsilon(1e-4));
}

TEST_CASE("two coupled coordinates: the worst direction of the rate", "[linearized-error]") {
    // J = [[-a, b], [b, -a]]: modes (1, 1) with -a + b, (1, -1) with -a - b; a unit rate along
    // coordinate j gives e_i = sum over modes; the worst direction is the largest row sum
    const double a = 20.0, b = 5.0, r = 0.7, t = 0.8;
    Matrix J(2, 2);
    J << -a, b, b, -a;
    LinearizedErrorPropagation p(2);
    p.set_jacobians(J, Matrix());
    p.set_rate(r);
    advance(p, t, 40);
    const auto response = [&](double w2) {
        return (1.0 - std::cos(std::sqrt(w2) * t)) / w2;
    };
    const double s = response(a - b), d = response(a + b); // the two modes' responses
    const double diagonal = 0.5 * (s + d), off = 0.5 * (s - d);
    CHECK(p.position() == Approx(r * (std::abs(diagonal) + std::abs(off))).epsilon(1e-4));
}
