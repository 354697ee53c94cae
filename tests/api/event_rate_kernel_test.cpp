// The compiled rate of the event indicators, dg/dt = grad_q g . v + g_t (kernel event_rate of
// kernel_abi.h; docs/events.md, "Detection"), against dg/dt derived by hand, on a pendulum on
// a rod (a constrained model) whose wall moves, x_w(t) = -d + A sin(w t), and a second
// condition nonlinear in the positions:
//     g1 = b.x - x_w(t)      dg1/dt = vx - A w cos(w t)
//     g2 = b.x b.y - c       dg2/dt = vx y + x vy
// and a vibration's phase theta = W t (condition b.y >= h cos(theta)):
//     g3 = b.y - h cos(theta)   dg3/dt = vy + h W sin(theta).
// An indicator of a velocity has no compiled rate (the runtime differentiates numerically).
#include "mdl/compiled_model.hpp"
#include "shipped_model.hpp"

#include <catch2/catch.hpp>
#include <cmath>

using namespace mdl;

namespace {

const char* moving_wall = R"(
model MovingWall "a pendulum on a rod against a moving wall"
  parameter Real l = 1, d = 0.3, A = 0.05, w = 7, c = -0.2, h = 0.1, W = 40;
  body b(m = 2, x(start = -0.2), y(start = -sqrt(l^2 - 0.04)));
  potential U = 9.81*b.y;
  constraint rod: b.x^2 + b.y^2 = l^2;
  vibration s(theta = W*time) = cos(theta);
equation
  when b.x <= -d + A*sin(w*time) then
    reinit(b.vx, -pre(b.vx));
  end when;
  when b.x*b.y >= c then
    reinit(b.vy, -pre(b.vy));
  end when;
  when b.y >= h*s then
    reinit(b.vy, -pre(b.vy));
  end when;
end MovingWall;
)";

} // namespace

TEST_CASE("The compiled rate of time- and position-dependent indicators is dg/dt by hand") {
    test::LoadedModel m(compile(moving_wall));
    const runtime::Model& model = m.model;
    REQUIRE(model.has_event_rates());
    const double A = 0.05, w = 7.0, h = 0.1, W = 40.0;
    runtime::Vector q(2), v(2), x(0), theta(model.vibrations()), g(3), r(3), r_hand(3);
    for (const double t : {0.0, 0.37, 1.9}) {
        q << -0.31 + 0.1 * t, -0.95;
        v << 0.8 - t, 0.25 * t - 0.3;
        model.phases(t, theta);
        model.event_indicators(t, q, v, x, theta, g);
        model.event_rates(t, q, v, x, theta, r);
        // the condition b.x <= x_w is x_w - b.x >= 0
        r_hand << A * w * std::cos(w * t) - v[0], v[0] * q[1] + q[0] * v[1],
            v[1] + h * W * std::sin(W * t);
        INFO("t = " << t);
        for (Eigen::Index k = 0; k < 3; ++k) {
            INFO("indicator " << k);
            CHECK(r[k] == Approx(r_hand[k]).epsilon(1e-13).margin(1e-14));
        }
    }
}

TEST_CASE("An indicator of a velocity has no compiled rate") {
    test::LoadedModel m(compile(R"(
model Turn "a mass on a spring; an event where its velocity turns"
  body b(m = 1, x(start = 1));
  anchor O(x = 0);
  spring s(O, b, k = 1);
equation
  when b.vx >= 0 then
    reinit(b.vx, 0);
  end when;
end Turn;
)"));
    CHECK_FALSE(m.model.has_event_rates());
}
