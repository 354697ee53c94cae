// The derived kernels of the seed systems against hand-derived formulas (seed_systems.hpp).
#include "symbolic/derive_kernels.hpp"

#include "seed_systems.hpp"
#include "symbolic/evaluate.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace mdl;
using namespace mdl::symbolic;
using mdl::test::close_relative;

namespace {
std::vector<double> eval(System& s, Kernel k, const VariableValues& at) {
    Evaluator ev(s.pool());
    return ev.evaluate(s.dense_outputs(k), at);
}
} // namespace

TEST_CASE("Kapitza pendulum: force, df/dq, phase and phase rate", "[derive_kernels][kapitza]") {
    auto s = test::kapitza();
    s->validate();
    CHECK_FALSE(s->velocity_dependent);
    CHECK_FALSE(s->time_dependent); // time enters only through the phase

    // Symbolically: df/dq = (g + a)/l cos q, omega = d theta/dt.
    ExprPool& pool = s->pool();
    const Expr l = s->parameter(0), g = s->parameter(1), vmax = s->parameter(2),
               omega = s->parameter(3);
    CHECK(s->dense_outputs(Kernel::force_dq)[0] ==
          ((g + vmax * omega * cos(s->phase(0))) / l * cos(s->position(0))).id());
    CHECK(s->dense_outputs(Kernel::force_dv)[0] == pool.zero());
    CHECK(s->outputs(Kernel::phase_rate)[0] == omega.id());
    CHECK(s->outputs(Kernel::constraint_jacobian).empty());

    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> u(-3.0, 3.0), pos(0.2, 3.0);
    for (int trial = 0; trial < 20; ++trial) {
        const test::KapitzaPoint pt{u(rng),   u(rng),   u(rng),   u(rng), pos(rng),
                                    pos(rng), pos(rng), pos(rng), u(rng)};
        const double q[] = {pt.q}, v[] = {pt.v}, th[] = {pt.theta};
        const double p[] = {pt.l, pt.g, pt.vmax, pt.omega, pt.theta0};
        const VariableValues at{.t = pt.t, .q = q, .v = v, .theta = th, .p = p};
        CHECK(close_relative(eval(*s, Kernel::force, at)[0], pt.force(), 1e-13));
        CHECK(close_relative(eval(*s, Kernel::force_dq, at)[0], pt.force_dq(), 1e-13));
        CHECK(close_relative(eval(*s, Kernel::phase, at)[0], pt.phase(), 1e-13));
        CHECK(eval(*s, Kernel::phase_rate, at)[0] == pt.omega);
        CHECK(eval(*s, Kernel::mass, at)[0] == 1.0);
    }
}

TEST_CASE("double pendulum: G and curvature", "[derive_kernels][double_pendulum]") {
    auto s = test::double_pendulum();
    s->validate();
    CHECK_FALSE(s->velocity_dependent);
    CHECK_FALSE(s->time_dependent);

    // G and the first curvature symbolically. The second curvature comes out as
    // vx1*(2 vx1 - 2 vx2) - vx2*(2 vx1 - 2 vx2) + (same in y): equal to the hand formula, but
    // the engine does not expand products of sums (that is where expression swell comes from),
    // so it is checked numerically below.
    const Expr x1 = s->position(0), y1 = s->position(1), x2 = s->position(2), y2 = s->position(3);
    const Expr vx1 = s->velocity(0), vy1 = s->velocity(1);
    const auto G = s->dense_outputs(Kernel::constraint_jacobian);
    REQUIRE(G.size() == 8);
    CHECK(G[0] == (2.0 * x1).id());
    CHECK(G[1] == (2.0 * y1).id());
    CHECK(G[2] == s->pool().zero());
    CHECK(G[4] == (-2.0 * (x2 - x1)).id());
    CHECK(G[7] == (2.0 * (y2 - y1)).id());
    CHECK(s->outputs(Kernel::curvature)[0] == (2.0 * pow(vx1, 2.0) + 2.0 * pow(vy1, 2.0)).id());

    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-2.0, 2.0), pos(0.3, 2.5);
    for (int trial = 0; trial < 20; ++trial) {
        test::DoublePendulumPoint pt{};
        pt.t = u(rng);
        for (int i = 0; i < 4; ++i) {
            pt.q[i] = u(rng);
            pt.v[i] = u(rng);
        }
        pt.theta = u(rng);
        pt.m1 = pos(rng), pt.m2 = pos(rng), pt.l1 = pos(rng), pt.l2 = pos(rng);
        pt.g = pos(rng), pt.A = pos(rng), pt.omega = pos(rng);
        const double th[] = {pt.theta};
        const double p[] = {pt.m1, pt.m2, pt.l1, pt.l2, pt.g, pt.A, pt.omega};
        const VariableValues at{.t = pt.t, .q = pt.q, .v = pt.v, .theta = th, .p = p};

        const auto check_all = [](const std::vector<double>& got, const std::vector<double>& want,
                                  double tol) {
            REQUIRE(got.size() == want.size());
            for (std::size_t i = 0; i < got.size(); ++i) {
                INFO("entry " << i << ": " << got[i] << " vs " << want[i]);
                CHECK(close_relative(got[i], want[i], tol));
            }
        };
        check_all(eval(*s, Kernel::constraint_jacobian, at), pt.jacobian(), 1e-13);
        check_all(eval(*s, Kernel::curvature, at), pt.curvature(), 1e-12);
        check_all(eval(*s, Kernel::force, at), pt.force(), 1e-13);
        check_all(eval(*s, Kernel::potential, at), {pt.potential()}, 1e-13);
        // The constraint residual is a difference of squares: compare with an absolute
        // tolerance at the scale of its terms.
        const auto g = eval(*s, Kernel::constraint, at);
        const auto want = pt.constraint();
        for (std::size_t i = 0; i < 2; ++i) {
            CHECK(g[i] == Approx(want[i]).margin(1e-14 * 32));
        }
        for (double e : eval(*s, Kernel::force_dq, at)) {
            CHECK(e == 0.0); // the force is constant in q
        }
    }
}

TEST_CASE("damped oscillator: df/dv and flags", "[derive_kernels][damped]") {
    auto s = test::damped_oscillator();
    s->validate();
    CHECK(s->velocity_dependent);
    CHECK(s->time_dependent);
    CHECK(s->dense_outputs(Kernel::force_dv)[0] == (-s->parameter(2)).id());
    CHECK(s->dense_outputs(Kernel::force_dq)[0] == (-s->parameter(1)).id());
    CHECK(s->outputs(Kernel::phase).empty());
    CHECK(s->outputs(Kernel::phase_rate).empty());

    const test::DampedOscillatorPoint pt{0.7, 0.3, -1.1, 0.25, 2.0, 5.0, 0.4, 1.5, 3.0, 0.8};
    const double q[] = {pt.q}, v[] = {pt.v}, x[] = {pt.x};
    const double p[] = {pt.m, pt.k, pt.c, pt.F0, pt.w, pt.tau};
    const VariableValues at{.t = pt.t, .q = q, .v = v, .x = x, .p = p};
    CHECK(close_relative(eval(*s, Kernel::force, at)[0], pt.force(), 1e-13));
    CHECK(close_relative(eval(*s, Kernel::rates, at)[0], pt.rates(), 1e-13));
    CHECK(close_relative(eval(*s, Kernel::potential, at)[0], pt.potential(), 1e-13));
    CHECK(eval(*s, Kernel::force_dv, at)[0] == pt.force_dv());
    CHECK(eval(*s, Kernel::force_dq, at)[0] == pt.force_dq());
}
