// Events in constrained models (docs/events.md, "Constrained models"): a pendulum on a rod
// (a point mass constrained to x^2 + y^2 = l^2) bouncing on a wall x = -d. The impact law
// reverses the velocity's component along the wall's normal and scales it by e; the rod then
// takes an impulse: the velocity is projected onto the rod's tangent (G v = 0, in the mass
// metric, here the Euclidean one). At the wall's angle theta_w = -asin(d/l) (from the downward
// vertical), v = l theta' (cos theta, sin theta), the reinit gives
// (-e l theta' cos theta, l theta' sin theta), whose tangential part is
//
//     theta'+ = theta'- (sin^2 theta_w - e cos^2 theta_w),
//
// so the kinetic energy after the impact is (sin^2 - e cos^2)^2 times before. Between impacts
// the angle is a pendulum's, theta'' = -(g/l) sin theta, integrated here by a classical
// Runge-Kutta of its own (h = 1e-4 on the scalar equation, crossings by bisection on the
// step's cubic Hermite): the reference impact times.
#include "mdl/compiled_model.hpp"
#include "runtime/integrators/cvode.hpp"
#include "runtime/integrators/ida.hpp"
#include "runtime/methods.hpp"
#include "runtime/run.hpp"
#include "shipped_model.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

using namespace mdl;

namespace {

constexpr double l = 1.0, g = 9.81, e = 0.8, d = 0.3, phi0 = 1.0;

struct Reference {
    std::vector<double> times;        // impacts
    std::vector<double> rates_before; // theta' before each
};

// One classical RK4 step of theta'' = -(g/l) sin(theta) from (th, w): (theta, theta') after h.
std::pair<double, double> pendulum_step(double th, double w, double h) {
    const auto acc = [](double x) {
        return -(g / l) * std::sin(x);
    };
    const double k1t = w, k1w = acc(th);
    const double k2t = w + 0.5 * h * k1w, k2w = acc(th + 0.5 * h * k1t);
    const double k3t = w + 0.5 * h * k2w, k3w = acc(th + 0.5 * h * k2t);
    const double k4t = w + h * k3w, k4w = acc(th + h * k3t);
    return {th + h / 6.0 * (k1t + 2 * k2t + 2 * k3t + k4t),
            w + h / 6.0 * (k1w + 2 * k2w + 2 * k3w + k4w)};
}

// The crossing of theta = target within the step (th, w) -> (th1, w1) of length h, on its cubic
// Hermite by bisection: the fraction of the step and theta' there.
std::pair<double, double> hermite_crossing(double th, double w, double th1, double w1, double h,
                                           double target) {
    const auto cubic = [&](double s) {
        const double s2 = s * s, s3 = s2 * s;
        return (2 * s3 - 3 * s2 + 1) * th + (s3 - 2 * s2 + s) * h * w + (-2 * s3 + 3 * s2) * th1 +
               (s3 - s2) * h * w1 - target;
    };
    const bool rising = th1 > th;
    double a = 0.0, b = 1.0;
    for (int i = 0; i < 60; ++i) {
        const double c = 0.5 * (a + b);
        ((cubic(c) < 0.0) == rising ? a : b) = c;
    }
    const double s = 0.5 * (a + b), s2 = s * s;
    const double rate = ((6 * s2 - 6 * s) * th + (3 * s2 - 4 * s + 1) * h * w +
                         (-6 * s2 + 6 * s) * th1 + (3 * s2 - 2 * s) * h * w1) /
                        h;
    return {s, rate};
}

// theta'' = -(g/l) sin(theta) from (phi0, 0) until `stop`, impacts at theta = theta_w.
Reference reference(double stop) {
    const double theta_w = -std::asin(d / l);
    const double factor = std::pow(std::sin(theta_w), 2) - e * std::pow(std::cos(theta_w), 2);
    double t = 0.0, th = phi0, w = 0.0;
    const double h = 1e-4;
    Reference r;
    while (t < stop) {
        const auto [th1, w1] = pendulum_step(th, w, h);
        if (th1 - theta_w <= 0.0 && th - theta_w > 0.0) {
            const auto [s, w_hit] = hermite_crossing(th, w, th1, w1, h, theta_w);
            r.times.push_back(t + s * h);
            r.rates_before.push_back(w_hit);
            // restart from the impact with the rate after it, on the wall
            t += s * h;
            th = theta_w;
            w = factor * w_hit;
            continue;
        }
        t += h;
        th = th1;
        w = w1;
    }
    return r;
}

const char* source = R"(
model WallPendulum "a pendulum on a rod bouncing on a wall at x = -d"
  parameter Real l = 1, g = 9.81, e = 0.8, d = 0.3, phi0 = 1;
  body b(m = 1, x(start = l*sin(phi0)), y(start = -l*cos(phi0)));
  potential U = g*b.y;
  constraint rod: b.x^2 + b.y^2 = l^2;
equation
  when b.x <= -d then
    reinit(b.vx, -e*pre(b.vx));
  end when;
end WallPendulum;
)";

struct Recorder {
    std::vector<runtime::State> rows;
    std::vector<runtime::State> events;
    void operator()(const runtime::State& s) { rows.push_back(s); }
    void event(const runtime::State& s, std::string_view) { events.push_back(s); }
};

} // namespace

TEST_CASE("A pendulum on a rod bounces on a wall as its closed form, the impulse projected") {
    test::LoadedModel m(compile(source));
    const double stop = 10.0;
    const Reference ref = reference(stop);
    REQUIRE(ref.times.size() >= 5);
    const double theta_w = -std::asin(d / l);
    const double factor = std::pow(std::sin(theta_w), 2) - e * std::pow(std::cos(theta_w), 2);

    // time, rate: per impact (errors accumulate); jump: the factor of the impact law, to the
    // error of the state before it (SHAKE's velocities are off the rod's tangent by O(h^2),
    // RATTLE's interpolated state off the rod by the interpolant's error)
    struct Case {
        runtime::Method method;
        double step, time, rate, jump, residual;
    };
    std::vector<Case> cases = {
        {runtime::Method::dopri5, 0.0, 1e-8, 1e-7, 1e-9, 1e-10},
        {runtime::Method::rk4, 1e-3, 1e-8, 1e-7, 1e-9, 1e-10},
        {runtime::Method::rattle, 1e-4, 1e-5, 1e-4, 1e-7, 1e-10},
        {runtime::Method::shake, 1e-4, 1e-5, 1e-4, 1e-7, 1e-10},
        {runtime::Method::galpha, 1e-4, 1e-5, 1e-4, 1e-9, 1e-10},
        {runtime::Method::newmark, 1e-4, 1e-5, 1e-4, 1e-9, 1e-10},
    };
    if (runtime::cvode_available()) {
        cases.push_back({runtime::Method::cvode_bdf, 0.0, 1e-6, 1e-5, 1e-9, 1e-6});
    }
    if (runtime::ida_available()) {
        cases.push_back({runtime::Method::ida, 0.0, 1e-8, 1e-7, 1e-9, 1e-10});
    }
    for (const Case& c : cases) {
        INFO(runtime::info(c.method).name);
        runtime::RunSettings settings;
        settings.method = c.method;
        settings.stop_time = stop;
        settings.step = c.step > 0.0 ? c.step : 0.0;
        settings.adaptive.rtol = 1e-11;
        settings.adaptive.atol = 1e-13;
        runtime::State s = m.start();
        Recorder rec;
        const runtime::IntegrationStats stats = runtime::run(m.model, s, settings, rec);
        REQUIRE(rec.events.size() == 2 * ref.times.size());
        REQUIRE(stats.event_projections == std::vector<std::size_t>{ref.times.size()});
        for (std::size_t k = 0; k < ref.times.size(); ++k) {
            INFO("impact " << k + 1);
            const runtime::State& before = rec.events[2 * k];
            const runtime::State& after = rec.events[2 * k + 1];
            CHECK(std::abs(before.t - ref.times[k]) <= c.time * static_cast<double>(k + 1));
            CHECK(std::abs(before.q[0] + d) <= 1e-9);
            // theta' = (x vy - y vx) / l^2 before and after: the closed form's factor
            const auto rate = [](const runtime::State& st) {
                return (st.q[0] * st.v[1] - st.q[1] * st.v[0]) / (l * l);
            };
            CHECK(std::abs(rate(before) - ref.rates_before[k]) <=
                  c.rate * static_cast<double>(k + 1));
            CHECK(std::abs(rate(after) - factor * rate(before)) <= c.jump);
            // on the rod's tangent after the impulse: G v = 2 (x vx + y vy) = 0
            CHECK(std::abs(after.q[0] * after.v[0] + after.q[1] * after.v[1]) <= 1e-12);
            // kinetic energy after = factor^2 times before
            const double kin_before = 0.5 * before.v.squaredNorm();
            const double kin_after = 0.5 * after.v.squaredNorm();
            CHECK(std::abs(kin_after - factor * factor * kin_before) <= 10.0 * c.jump);
        }
        // the rod's residual at the integrator's level on every row
        double worst = 0.0;
        for (const runtime::State& r : rec.rows) {
            worst = std::max(worst, std::abs(r.q.squaredNorm() - l * l));
        }
        CHECK(worst <= c.residual);
    }
}

namespace {

// The pendulum released on the far side of a wall at x = -d (when b.x >= -d): gravity pushes
// it into the wall, so its bounces shrink by |sin^2 theta_w - e cos^2 theta_w| = 0.638 each
// and accumulate (Zeno) at a finite time, after which it rests on the wall. The reference:
// each flight from the wall at the rate after an impact, back to the wall, by the classical
// Runge-Kutta above on theta'' = -(g/l) sin theta with a step of at most 1/200 of the flight.
const char* resting_source = R"(
model WallRest "a pendulum on a rod falling against a wall at x = -d and coming to rest"
  parameter Real l = 1, g = 9.81, e = 0.8, d = 0.3, phi0 = -1;
  body b(m = 1, x(start = l*sin(phi0)), y(start = -l*cos(phi0)));
  potential U = g*b.y;
  constraint rod: b.x^2 + b.y^2 = l^2;
equation
  when b.x >= -d then
    reinit(b.vx, -e*pre(b.vx));
  end when;
end WallRest;
)";

// The time theta takes from theta_w at rate w < 0 back to theta_w, and the rate there.
std::pair<double, double> flight(double theta_w, double w) {
    const double estimate = 2.0 * std::abs(w) / ((g / l) * std::abs(std::sin(theta_w)));
    const double h = std::min(1e-4, estimate / 200.0);
    double t = 0.0, th = theta_w, v = w;
    for (;;) {
        const auto [th1, v1] = pendulum_step(th, v, h);
        if (th < theta_w && th1 >= theta_w) {
            const auto [s, rate] = hermite_crossing(th, v, th1, v1, h, theta_w);
            return {t + s * h, rate};
        }
        t += h;
        th = th1;
        v = v1;
    }
}

// slack: impacts more or fewer than the reference before the rest
struct RestCase {
    runtime::Method method;
    double step, time, residual;
    std::size_t slack = 0;
};

// The pendulum with restitution `restitution` released at phi0 = -1 against the wall, run to
// `tail` after the reference's rest by each case: every impact at the reference's time, the
// rest at its last, then held on the wall and the rod with zero velocity.
void rests_on_the_wall(double restitution, std::size_t expected_rest, double tail,
                       const std::vector<RestCase>& cases) {
    std::string text = resting_source;
    const std::string e_default = "e = 0.8";
    text.replace(text.find(e_default), e_default.size(), "e = " + std::to_string(restitution));
    test::LoadedModel m(compile(text));
    const double theta_w = -std::asin(d / l);
    const double factor =
        std::pow(std::sin(theta_w), 2) - restitution * std::pow(std::cos(theta_w), 2);
    // the reference impacts: the first from rest at phi0 = -1 (energy: theta'^2 = 2 g/l
    // (cos theta_w - cos phi0)), then flights; the rest is the first impact whose rate after
    // it is below 1e-6 of the first approach (docs/events.md): factor^k < 1e-6
    std::vector<double> times;
    std::vector<double> rates;
    {
        // from rest at phi0 to the wall: the time by the flight of a swing from phi0
        // (a flight from theta_w back to theta_w takes twice the fall from its turning point)
        const double w1 = std::sqrt(2.0 * g / l * (std::cos(theta_w) - std::cos(-1.0)));
        const auto [swing, rate] = flight(theta_w, -w1); // theta_w -> phi0 -> theta_w
        times.push_back(0.5 * swing);
        rates.push_back(rate);
    }
    while (std::abs(factor * rates.back()) >= 1e-6 * std::abs(rates.front())) {
        const auto [t, rate] = flight(theta_w, factor * rates.back());
        times.push_back(times.back() + t);
        rates.push_back(rate);
    }
    const std::size_t rest = times.size(); // the impact that starts the rest
    REQUIRE(rest == expected_rest);
    const double stop = times.back() + tail;
    for (const RestCase& c : cases) {
        INFO(runtime::info(c.method).name);
        runtime::RunSettings settings;
        settings.method = c.method;
        settings.stop_time = stop;
        settings.step = c.step;
        settings.adaptive.rtol = 1e-11;
        settings.adaptive.atol = 1e-13;
        runtime::State s = m.start();
        Recorder rec;
        const runtime::IntegrationStats stats = runtime::run(m.model, s, settings, rec);
        REQUIRE(stats.event_rests == std::vector<std::size_t>{1});
        const std::size_t found = rec.events.size() / 2;
        REQUIRE(found + c.slack >= rest);
        REQUIRE(found <= rest + c.slack);
        for (std::size_t k = 0; k < std::min(found, rest); ++k) {
            INFO("impact " << k + 1);
            CHECK(std::abs(rec.events[2 * k].t - times[k]) <= c.time);
        }
        CHECK(std::abs(rec.events.back().t - times.back()) <= c.time); // the rest
        // at rest from the last impact on: on the wall and on the rod, still
        const double y_rest = -std::sqrt(l * l - d * d);
        const runtime::State& held = rec.events.back();
        for (const runtime::State& r : rec.rows) {
            if (r.t < held.t) {
                continue;
            }
            INFO("t = " << r.t);
            CHECK(std::abs(r.q[0] + d) <= 1e-9);
            CHECK(std::abs(r.q[1] - y_rest) <= 1e-9);
            CHECK(r.v.cwiseAbs().maxCoeff() <= 1e-9);
            CHECK(std::abs(r.q.squaredNorm() - l * l) <= c.residual);
        }
        CHECK(std::abs(s.q[0] + d) <= 1e-9);
    }
}

} // namespace

TEST_CASE("A pendulum on a rod falling against a wall chatters and comes to rest on it",
          "[heavy]") {
    // e = 0.8: bounces shrink by 0.638, rest at the 31st impact. (ida and cvode-bdf take the
    // last flights of 1e-6 s restarted at order 1 after each impact: ida's return up to 1.6
    // times faster than they left and it rests at the 32nd, cvode-bdf at the 30th.)
    std::vector<RestCase> cases = {{runtime::Method::dopri5, 0.0, 1e-7, 1e-10},
                                   {runtime::Method::rk4, 1e-3, 1e-7, 1e-10},
                                   {runtime::Method::rattle, 1e-4, 1e-4, 1e-10}};
    if (runtime::ida_available()) {
        cases.push_back({runtime::Method::ida, 0.0, 2e-5, 1e-10, 1});
    }
    if (runtime::cvode_available()) {
        cases.push_back({runtime::Method::cvode_bdf, 0.0, 2e-5, 1e-6, 1});
    }
    rests_on_the_wall(0.8, 31, 1.0, cases);
}

TEST_CASE("A pendulum on a rod with a softer impact comes to rest on the wall sooner") {
    // e = 0.2: bounces shrink by |0.09 - 0.2 * 0.91| = 0.092, rest at the 6th impact: the hold
    // logic (rest, projection onto the wall and the rod, no release) in a short run, also
    // under ASan
    rests_on_the_wall(
        0.2, 6, 0.2,
        {{runtime::Method::dopri5, 0.0, 1e-7, 1e-10}, {runtime::Method::rk4, 1e-3, 1e-7, 1e-10}});
}
