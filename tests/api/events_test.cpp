// Events (when-clauses, docs/events.md) from the compiled model to the runtime's detection:
// the bouncing ball (models/bouncing_ball.mdl) against the closed form of its impact times and
// its accumulation time, with dopri5's continuous extension and rk4's Hermite interpolant; an
// impact oscillator (a mass on a spring hitting a stop) against its analytic motion between
// impacts; simultaneous events, elsewhen, terminate; the methods that refuse events.
#include "event_runs.hpp"
#include "mdl/compiled_model.hpp"
#include "runtime/integrators/cvode.hpp"
#include "runtime/methods.hpp"
#include "runtime/multiscale/applicability.hpp"
#include "runtime/numerical_failure.hpp"
#include "runtime/run.hpp"
#include "shipped_model.hpp"
#include "vibrating_table_map.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <iterator>
#include <numbers>
#include <string>
#include <vector>

using namespace mdl;

namespace {

using EventRow = test::EventRow;
using Recorder = test::EventRecorder;

runtime::RunSettings settings_for(runtime::Method method, double stop, double step) {
    return test::event_settings(method, stop, step);
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

TEST_CASE("cvode-bdf and cvode-adams find the bouncing ball's impacts on CVODE's interpolant") {
    if (!runtime::cvode_available()) {
        SUCCEED("this build has no SUNDIALS");
        return;
    }
    test::ShippedModel ball("bouncing_ball.mdl");
    const double h = 1.0, g = 9.81, e = 0.8;
    const double t1 = std::sqrt(2.0 * h / g), v1 = g * t1;
    const int rest_impact = static_cast<int>(std::ceil(std::log(1e-6) / std::log(e)));
    const auto closed = bounce_times(h, g, e, rest_impact);
    for (runtime::Method method : {runtime::Method::cvode_bdf, runtime::Method::cvode_adams}) {
        INFO(runtime::info(method).name);
        Run r = run(ball, settings_for(method, 5.0, 0.01));
        const auto hits = impacts(r.recorder);
        REQUIRE(hits.size() == closed.size());
        for (std::size_t k = 0; k < 20; ++k) {
            INFO("impact " << k + 1);
            CHECK(std::abs(hits[k].state.t - closed[k]) <= 1e-8);
            CHECK(std::abs(hits[k].state.v[0] + std::pow(e, static_cast<double>(k)) * v1) <= 1e-7);
            // after the reinit: the velocity reversed and scaled by e
            CHECK(std::abs(r.recorder.events[2 * k + 1].state.v[0] -
                           std::pow(e, static_cast<double>(k + 1)) * v1) <= 1e-7);
        }
        // the 62nd impact, after the errors of 61 flights (~1e-9 each)
        CHECK(hits.back().label == "b.y <= 0 (rest)");
        CHECK(std::abs(hits.back().state.t - closed.back()) <= 1e-7);
        CHECK(r.stats.event_counts == std::vector<std::size_t>{closed.size()});
        CHECK(r.stats.event_rests == std::vector<std::size_t>{1});
        CHECK(r.final_state.t == 5.0);
        CHECK(std::abs(r.final_state.q[0]) <= 1e-12);
        CHECK(std::abs(r.final_state.v[0]) <= 1e-12);
        // the dense output rows between impacts lie on the free fall
        for (const runtime::State& s : r.recorder.states) {
            if (s.t > 0.01 && s.t < t1 - 1e-6) {
                CHECK(std::abs(s.q[0] - (h - 0.5 * g * s.t * s.t)) <= 1e-9);
            }
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
        using runtime::Method;
        if (m.method == Method::rk4 || m.method == Method::dopri5 ||
            m.method == Method::cvode_adams || m.method == Method::cvode_bdf ||
            m.method == Method::ida || m.method == Method::newmark || m.method == Method::galpha ||
            m.method == Method::shake || m.method == Method::rattle) {
            continue; // detect events (shake and rattle in constrained models only)
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

namespace {

// Runs the shipped vibrating table from the table's phase 0 (phi0 = 0), the ball on the table
// with the period-1 orbit's take-off velocity g T/2, for `stop` seconds.
Run run_table(const impact_map::Table& table, double stop) {
    test::ShippedModel shipped("vibrating_table.mdl");
    const std::vector<ParameterValue> values = {
        {"phi0", table.phi0}, {"dv", 0.0}, {"e", table.e}, {"Gamma", table.Gamma}};
    test::LoadedModel m(shipped.compiled.with_parameters(values));
    return run(m, settings_for(runtime::Method::dopri5, stop, 1.0));
}

} // namespace

TEST_CASE("The vibrating table's period-1 orbit exists and is stable between its two bounds") {
    // docs/events.md: the period-1 orbit has cos(phi) = Gamma_1/Gamma, so it exists for
    // Gamma >= Gamma_1 = pi (1 - e)/(1 + e); its impact map's Jacobian has determinant e^2 and
    // trace 1 + e^2 - (1 + e)^2 Gamma sin(phi), so it is stable up to the period doubling at
    // Gamma_2^2 = Gamma_1^2 + (2 (1 + e^2)/(1 + e)^2)^2 (Holmes 1982; Luck & Mehta 1993).
    impact_map::Table table;
    const double e = table.e, pi = std::numbers::pi;
    const double gamma1 = pi * (1 - e) / (1 + e);
    const double gamma2 = std::hypot(gamma1, 2 * (1 + e * e) / ((1 + e) * (1 + e)));
    const double T = table.T(), v_orbit = table.g * T / 2;
    const double stop = 30.0; // 300 table periods
    const auto impact_phases = [&](const std::vector<EventRow>& hits) {
        std::vector<double> p;
        for (const EventRow& h : hits) {
            p.push_back(table.phase(h.state.t));
        }
        return p;
    };

    SECTION("inside (Gamma_1, Gamma_2): the ball converges to the period-1 orbit") {
        for (double gamma : {1.2, 1.5}) {
            INFO("Gamma = " << gamma);
            table.Gamma = gamma;
            REQUIRE(gamma > gamma1);
            REQUIRE(gamma < gamma2);
            Run r = run_table(table, stop);
            const auto hits = impacts(r.recorder);
            REQUIRE(hits.size() >= 290);
            // the transient against the exact impact map
            const auto exact = table.impact_times(v_orbit, 30);
            for (std::size_t k = 0; k < exact.size(); ++k) {
                INFO("impact " << k + 1);
                CHECK(std::abs(hits[k].state.t - exact[k]) <= 1e-9);
            }
            // after it: one impact per period at the closed-form phase, falling at g T/2
            const double phi = std::acos(gamma1 / gamma);
            const auto phases = impact_phases(hits);
            for (std::size_t k = hits.size() - 50; k < hits.size(); ++k) {
                INFO("impact " << k + 1);
                CHECK(std::abs(phases[k] - phi) <= 1e-8);
                CHECK(std::abs(hits[k].state.t - hits[k - 1].state.t - T) <= 1e-9);
                CHECK(std::abs(hits[k].state.v[0] + v_orbit) <= 1e-8);
            }
            CHECK(r.stats.event_rests == std::vector<std::size_t>{0});
        }
    }

    SECTION("just above Gamma_2: period 2, two impact phases alternating") {
        table.Gamma = 1.55;
        REQUIRE(table.Gamma > gamma2);
        REQUIRE(table.Gamma < 1.02 * gamma2);
        Run r = run_table(table, stop);
        const auto hits = impacts(r.recorder);
        REQUIRE(hits.size() >= 290);
        const auto exact = table.impact_times(v_orbit, hits.size());
        for (std::size_t k = 0; k < hits.size(); ++k) {
            INFO("impact " << k + 1);
            CHECK(std::abs(hits[k].state.t - exact[k]) <= 1e-9);
        }
        const double phi = std::acos(gamma1 / table.Gamma);
        const auto phases = impact_phases(hits);
        for (std::size_t k = hits.size() - 50; k < hits.size(); ++k) {
            INFO("impact " << k + 1);
            CHECK(std::abs(phases[k] - phases[k - 2]) <= 1e-8);
            CHECK(std::abs(hits[k].state.t - hits[k - 2].state.t - 2 * T) <= 1e-9);
            CHECK(std::abs(phases[k] - phases[k - 1]) >= 0.4);
            CHECK(std::abs(phases[k] - phi) >= 0.2); // away from the unstable period-1 orbit
        }
    }

    SECTION("below Gamma_1: no period-1 orbit; the ball chatters and locks to the table") {
        // Gamma_1 > Gamma > 1: in every period it chatters, comes to rest on the table and is
        // released where the table accelerates downwards at g, sin(phi) = 1/Gamma
        table.Gamma = 1.03;
        REQUIRE(table.Gamma < gamma1);
        Run r = run_table(table, stop);
        const std::size_t periods = static_cast<std::size_t>(stop / T + 0.5);
        std::vector<std::size_t> hits(periods, 0), rests(periods, 0), releases(periods, 0);
        const double release_phase = std::asin(1.0 / table.Gamma);
        for (const EventRow& h : impacts(r.recorder)) {
            const auto k = static_cast<std::size_t>(h.state.t / T);
            if (h.label.starts_with("release: ")) {
                ++releases[k];
                // the tracker's release test takes g'' by central differences of step
                // 1e-4 s (event_tracker.cpp), which bias s'' by (omega 1e-4)^2/12 = 3.3e-6
                // relative: 1.3e-5 rad here, where g'' turns slowly (cos(phi) = 0.24)
                if (k >= periods - 10) {
                    CHECK(std::abs(table.phase(h.state.t) - release_phase) <= 3e-5);
                }
            } else {
                ++hits[k];
                rests[k] += h.label.ends_with("(rest)") ? 1 : 0;
            }
        }
        for (std::size_t k = periods - 10; k < periods; ++k) {
            INFO("period " << k);
            CHECK(hits[k] >= 2);
            CHECK(rests[k] == 1);
            CHECK(releases[k] == 1);
        }
        // Gamma < 1: the ball comes to rest once and moves with the table from then on
        table.Gamma = 0.9;
        Run locked = run_table(table, stop);
        CHECK(impacts(locked.recorder).back().state.t < 1.0);
        CHECK(locked.stats.event_rests == std::vector<std::size_t>{1});
        CHECK(std::abs(locked.final_state.q[0] - table.s(stop)) <= 1e-9);
        CHECK(std::abs(locked.final_state.v[0] - table.ds(stop)) <= 1e-9);
    }
}

TEST_CASE("impact gives the events of the when-clause it stands for") {
    // models/vibrating_table.mdl with its when-clause written as an impact on the table:
    // v+ = s' - e (v- - s') is (1 + e) s' - e v-
    test::ShippedModel when_form("vibrating_table.mdl");
    std::ifstream file(test::shipped_model_path("vibrating_table.mdl"));
    std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    const std::string clause = R"(  when b.y <= A*sin(omega*time + phi0) then
    reinit(b.vy, (1 + e)*A*omega*cos(omega*time + phi0) - e*pre(b.vy));
  end when;
)";
    const auto at = text.find(clause);
    REQUIRE(at != std::string::npos);
    text.replace(at, clause.size(),
                 "  impact table(b.y >= A*sin(omega*time + phi0), restitution = e);\n");
    test::LoadedModel impact_form(compile(text));
    REQUIRE(impact_form.model.events().size() == 1);
    CHECK(impact_form.model.events()[0].name == "table");
    // period 2 (Gamma = 1.55), from the table's phase 0: ~50 impacts in 5 s
    const std::vector<ParameterValue> values = {{"phi0", 0.0}, {"dv", 0.0}, {"Gamma", 1.55}};
    test::LoadedModel a(when_form.compiled.with_parameters(values));
    test::LoadedModel b(impact_form.compiled.with_parameters(values));
    Run ra = run(a, settings_for(runtime::Method::dopri5, 5.0, 1.0));
    Run rb = run(b, settings_for(runtime::Method::dopri5, 5.0, 1.0));
    REQUIRE(ra.recorder.events.size() >= 90);
    REQUIRE(rb.recorder.events.size() == ra.recorder.events.size());
    for (std::size_t k = 0; k < ra.recorder.events.size(); ++k) {
        INFO("event row " << k);
        CHECK(rb.recorder.events[k].label == "table");
        // within the events' time brackets, 1e-12 t
        CHECK(std::abs(rb.recorder.events[k].state.t - ra.recorder.events[k].state.t) <= 1e-11);
        CHECK(std::abs(rb.recorder.events[k].state.v[0] - ra.recorder.events[k].state.v[0]) <=
              1e-10);
    }

    // a stop above the position (the impact oscillator's `when b.x >= d`): `b.x <= d`
    test::LoadedModel stop(compile(R"(
model ImpactOscillator
  parameter Real k = 4, d = 0.3, e = 0.7, v0 = 1;
  body b(m = 1, x(start = 0), vx(start = v0));
  anchor O(x = 0);
  spring s(O, b, k = k);
equation
  impact stop(d >= b.x, restitution = e);
end ImpactOscillator;
)"));
    Run r = run(stop, settings_for(runtime::Method::dopri5, 5.0, 0.01));
    const auto hits = impacts(r.recorder);
    REQUIRE(hits.size() >= 2);
    const double w = 2.0, d = 0.3, e = 0.7;
    const double t1 = std::asin(d * w) / w, speed = std::cos(w * t1);
    CHECK(std::abs(hits[0].state.t - t1) <= 1e-9);
    CHECK(std::abs(r.recorder.events[1].state.v[0] + e * speed) <= 1e-9);
}
