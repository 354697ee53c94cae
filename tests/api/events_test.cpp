// Events (when-clauses, docs/events.md) from the compiled model to the runtime's detection:
// the bouncing ball (models/bouncing_ball.mdl) against the closed form of its impact times and
// its accumulation time, with dopri5's continuous extension and rk4's Hermite interpolant; an
// impact oscillator (a mass on a spring hitting a stop) against its analytic motion between
// impacts; simultaneous events, elsewhen, terminate; the methods that refuse events.
#include "mdl/compiled_model.hpp"
#include "runtime/methods.hpp"
#include "runtime/multiscale/applicability.hpp"
#include "runtime/numerical_failure.hpp"
#include "runtime/run.hpp"
#include "shipped_model.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

using namespace mdl;

namespace {

struct EventRow {
    runtime::State state;
    std::string label;
};

// Every observed state, and the event rows apart.
struct Recorder {
    std::vector<runtime::State> states;
    std::vector<EventRow> events;
    void operator()(const runtime::State& s) { states.push_back(s); }
    void event(const runtime::State& s, std::string_view label) {
        events.push_back({s, std::string(label)});
    }
};

runtime::RunSettings settings_for(runtime::Method method, double stop, double step) {
    runtime::RunSettings s;
    s.method = method;
    s.stop_time = stop;
    s.step = step;
    s.adaptive.rtol = 1e-12;
    s.adaptive.atol = 1e-14;
    return s;
}

struct Run {
    Recorder recorder;
    runtime::IntegrationStats stats;
    runtime::State final_state;
};

Run run(const test::LoadedModel& m, const runtime::RunSettings& settings) {
    Run r;
    r.final_state = m.start();
    r.stats = runtime::run(m.model, r.final_state, settings, r.recorder);
    return r;
}

// The rows before each event (every other event row).
std::vector<EventRow> impacts(const Recorder& r) {
    std::vector<EventRow> out;
    for (std::size_t i = 0; i < r.events.size(); i += 2) {
        out.push_back(r.events[i]);
    }
    return out;
}

// Closed form of the bouncing ball: impact k (1-based) at t1 + sum_{j<k} 2 e^j v1/g.
std::vector<double> bounce_times(double h, double g, double e, int count) {
    std::vector<double> t;
    const double t1 = std::sqrt(2.0 * h / g), v1 = g * t1;
    t.push_back(t1);
    for (int k = 1; k < count; ++k) {
        t.push_back(t.back() + 2.0 * std::pow(e, k) * v1 / g);
    }
    return t;
}

} // namespace

TEST_CASE("The bouncing ball's impact times equal the closed form, and it comes to rest") {
    test::ShippedModel ball("bouncing_ball.mdl");
    const double h = 1.0, g = 9.81, e = 0.8;
    const double t1 = std::sqrt(2.0 * h / g), v1 = g * t1;
    const double t_inf = t1 + 2.0 * e * v1 / (g * (1.0 - e));
    REQUIRE(ball.model.events().size() == 1);
    CHECK(ball.model.events()[0].name == "b.y <= 0");
    // the resting rule: the ball rests after the first impact k with e^k < rest tolerance
    const int rest_impact = static_cast<int>(std::ceil(std::log(1e-6) / std::log(e)));
    const auto closed = bounce_times(h, g, e, rest_impact);

    for (runtime::Method method : {runtime::Method::dopri5, runtime::Method::rk4}) {
        INFO(runtime::info(method).name);
        Run r = run(ball, settings_for(method, 5.0, method == runtime::Method::rk4 ? 1e-3 : 0.01));
        const auto hits = impacts(r.recorder);
        REQUIRE(hits.size() == closed.size());
        for (std::size_t k = 0; k < 20; ++k) {
            INFO("impact " << k + 1);
            CHECK(std::abs(hits[k].state.t - closed[k]) <= 1e-10);
            CHECK(hits[k].label == "b.y <= 0");
            // the state before the reinit: on the floor, falling at e^k v1
            CHECK(std::abs(hits[k].state.q[0]) <= 1e-9);
            CHECK(std::abs(hits[k].state.v[0] + std::pow(e, static_cast<double>(k)) * v1) <= 1e-8);
        }
        // the last impact starts the rest, at the closed-form time, short of t_inf by
        // 2 e^k v1 / (g (1 - e))
        const EventRow& last = hits.back();
        CHECK(last.label == "b.y <= 0 (rest)");
        CHECK(std::abs(last.state.t - closed.back()) <= 1e-9);
        CHECK(std::abs((t_inf - last.state.t) -
                       2.0 * std::pow(e, rest_impact) * v1 / (g * (1 - e))) <= 1e-9);
        CHECK(r.stats.event_counts == std::vector<std::size_t>{closed.size()});
        CHECK(r.stats.event_rests == std::vector<std::size_t>{1});
        // at rest on the floor until the end, after a bounded number of steps
        CHECK(r.final_state.t == 5.0);
        CHECK(std::abs(r.final_state.q[0]) <= 1e-12);
        CHECK(std::abs(r.final_state.v[0]) <= 1e-12);
        if (method == runtime::Method::dopri5) {
            CHECK(r.stats.steps + r.stats.rejected < 40 * closed.size());
        } else {
            CHECK(r.stats.steps == 5000 + closed.size());
        }
    }
}

TEST_CASE("An impact oscillator follows its analytic motion between impacts") {
    // m x'' = -k x with a stop at x = d: between impacts x = d cos(w s) + (u/w) sin(w s) from
    // the stop with velocity u < 0; it returns after s = (2 pi - 2 atan(|u|/(w d)))/w with
    // speed |u|, and the impact scales that speed by e.
    test::LoadedModel osc(compile(R"(
model ImpactOscillator
  parameter Real k = 4, d = 0.3, e = 0.7, v0 = 1;
  body b(m = 1, x(start = 0), vx(start = v0));
  anchor O(x = 0);
  spring s(O, b, k = k);
equation
  when b.x >= d then
    reinit(b.vx, -e*pre(b.vx));
  end when;
end ImpactOscillator;
)"));
    const double w = 2.0, d = 0.3, e = 0.7, v0 = 1.0;
    Run r = run(osc, settings_for(runtime::Method::dopri5, 20.0, 0.01));
    const auto hits = impacts(r.recorder);
    REQUIRE(hits.size() >= 8);
    double t = std::asin(d * w / v0) / w; // first impact
    double speed = v0 * std::cos(w * t);  // impact speed
    for (std::size_t k = 0; k < 8; ++k) {
        INFO("impact " << k + 1);
        CHECK(std::abs(hits[k].state.t - t) <= 1e-9);
        CHECK(std::abs(hits[k].state.v[0] - speed) <= 1e-9);
        const double u = -e * speed;
        const double next = t + (2.0 * std::numbers::pi - 2.0 * std::atan(-u / (w * d))) / w;
        // the dense output rows between the two impacts against the analytic motion
        for (const runtime::State& s : r.recorder.states) {
            if (s.t > t + 1e-6 && s.t < next - 1e-6) {
                const double tau = s.t - t;
                CHECK(std::abs(s.q[0] - (d * std::cos(w * tau) + u / w * std::sin(w * tau))) <=
                      1e-9);
            }
        }
        t = next;
        speed *= e;
    }
}

TEST_CASE("Simultaneous events fire in source order, elsewhen keeps the first, terminate ends") {
    test::LoadedModel m(compile(R"(
model Clauses
  Real x(start = 0);
  Real y(start = 0);
equation
  der(x) = 1;
  der(y) = 0;
  when time >= 0.5 then
    reinit(y, pre(y) + 1);
  elsewhen x >= 0.5 then
    reinit(y, pre(y) + 100);
  end when;
  when x >= 0.5 then
    reinit(y, 10*pre(y));
  end when;
  when x >= 0.75 then
    terminate("x reached 0.75");
  end when;
end Clauses;
)"));
    for (runtime::Method method : {runtime::Method::dopri5, runtime::Method::rk4}) {
        INFO(runtime::info(method).name);
        Run r = run(m, settings_for(method, 2.0, 0.1));
        const auto hits = impacts(r.recorder);
        REQUIRE(hits.size() == 2);
        // both clauses at t = 0.5: the first branch of clause 1 (not its elsewhen), then
        // clause 2, each value from the state before the event: y = 10 * 0 wins over 0 + 1
        CHECK(std::abs(hits[0].state.t - 0.5) <= 1e-12);
        CHECK(hits[0].label == "time >= 0.5; x >= 0.5 #2"); // the second clause's x >= 0.5
        CHECK(r.recorder.events[1].state.x[1] == 0.0);
        CHECK(std::abs(hits[1].state.t - 0.75) <= 1e-12);
        CHECK(r.stats.terminated);
        CHECK(r.stats.terminate_message == "x reached 0.75");
        CHECK(std::abs(r.final_state.t - 0.75) <= 1e-12);
        CHECK(r.stats.event_counts == std::vector<std::size_t>{1, 0, 1, 1});
    }
}

TEST_CASE("Methods that do not detect events refuse a model with events") {
    test::ShippedModel ball("bouncing_ball.mdl");
    for (const runtime::MethodInfo& m : runtime::methods()) {
        if (m.method == runtime::Method::rk4 || m.method == runtime::Method::dopri5) {
            continue;
        }
        INFO(m.name);
        runtime::State s = ball.start();
        try {
            runtime::run(ball.model, s, settings_for(m.method, 1.0, 1e-3),
                         [](const runtime::State&) {});
            FAIL("no refusal");
        } catch (const runtime::MethodNotApplicable& e) {
            CHECK(std::string(e.what()).find("dopri5, rk4") != std::string::npos);
        }
    }
    const auto verdict = runtime::multiscale::strobo_applicability(ball.model, {});
    CHECK_FALSE(verdict.applies);
    CHECK(verdict.reason.find("events") != std::string::npos);
    CHECK(runtime::default_method(ball.model) == runtime::Method::dopri5);
}
