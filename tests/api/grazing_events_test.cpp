// Grazing impacts (docs/events.md, "Detection"): a mass on a linear spring against a stop
// above its equilibrium has impacts whose speed falls as e^k while their spacing tends to the
// period, so late impacts enter and leave the stop within a step (the indicator is negative
// at both ends). Every method that detects events must find every impact, in order, down to
// impact speeds of 1e-6, against the closed form computed here.
//
// The closed form: m x'' = -k x, w = sqrt(k/m). From (x0, v0) at t0 the motion is
// x = R cos(w s - phi), R = hypot(x0, v0/w), phi = atan2(v0/w, x0); it reaches the stop xs
// (rising) when w s - phi = -alpha (mod 2 pi), alpha = atan2(sqrt(R^2 - xs^2), xs), with speed
// w sqrt(R^2 - xs^2) (conserved energy), and never when R < xs.
#include "event_runs.hpp"
#include "mdl/compiled_model.hpp"
#include "runtime/integrators/cvode.hpp"
#include "runtime/integrators/ida.hpp"
#include "runtime/methods.hpp"
#include "runtime/run.hpp"
#include "shipped_model.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

using namespace mdl;

namespace {

struct Impact {
    double t = 0.0;
    double speed = 0.0; // before the impact
};

struct Oscillator {
    double w = 1.0, xs = 1.0, e = 0.8;

    // The next impact from (x0 <= xs, v0) at t0, nullopt when the motion stays below xs.
    std::optional<Impact> next(double t0, double x0, double v0) const {
        const double r2_minus_xs2 = (x0 - xs) * (x0 + xs) + (v0 / w) * (v0 / w);
        if (r2_minus_xs2 < 0.0) {
            return std::nullopt;
        }
        const double phi = std::atan2(v0 / w, x0);
        const double alpha = std::atan2(std::sqrt(r2_minus_xs2), xs);
        double s = (phi - alpha) / w;
        if (s <= 0.0) {
            s += 2.0 * std::numbers::pi / w;
        }
        return Impact{t0 + s, w * std::sqrt(r2_minus_xs2)};
    }

    // The impacts from x = 0 with velocity v0 at t = 0 until the speed falls below `slowest`.
    std::vector<Impact> sequence(double v0, double slowest) const {
        std::vector<Impact> out;
        std::optional<Impact> hit = next(0.0, 0.0, v0);
        while (hit && hit->speed >= slowest) {
            out.push_back(*hit);
            // after the impact: at the stop, moving away at e times the speed
            hit = next(hit->t, xs, -e * hit->speed);
        }
        return out;
    }
};

std::string model_source() {
    return R"(
model SpringStop "a mass on a linear spring against a stop above its equilibrium"
  parameter Real k = 1, xs = 1, e = 0.8, v0 = 1.4142135623730951;
  body b(m = 1, x(start = 0), vx(start = v0));
  anchor O(x = 0);
  spring s(O, b, k = k);
equation
  when b.x >= xs then
    reinit(b.vx, -e*pre(b.vx));
  end when;
end SpringStop;
)";
}

struct Observed {
    std::vector<Impact> impacts;
    std::vector<runtime::State> after; // the state after each impact's reinit
    std::vector<std::string> labels;
};

Observed run(const test::LoadedModel& m, runtime::Method method, double stop, double step,
             double rtol) {
    runtime::State s = m.start();
    test::EventRecorder recorder;
    runtime::run(m.model, s, test::event_settings(method, stop, step, rtol, rtol * 1e-2), recorder);
    Observed observed;
    for (std::size_t i = 0; i + 1 < recorder.events.size(); i += 2) {
        const test::EventRow& before = recorder.events[i];
        observed.impacts.push_back({before.state.t, before.state.v[0]});
        observed.labels.push_back(before.label);
        observed.after.push_back(recorder.events[i + 1].state);
    }
    return observed;
}

} // namespace

TEST_CASE("Every grazing impact of a mass on a spring against a stop is found, in order") {
    test::LoadedModel m(compile(model_source()));
    const Oscillator osc;
    const double v0 = std::sqrt(2.0); // first impact at speed 1
    // the impacts down to speed 1e-6 (62 of them, 61 periods: e^61 = 1.2e-6)
    const std::vector<Impact> exact = osc.sequence(v0, 1e-6);
    REQUIRE(exact.size() == 62);
    const double stop = exact.back().t + 1.0;

    // eps: the error in v^2 one period of the method adds (measured from the one-period map
    // below, with a margin of about 5); time: its phase error over one period
    struct Case {
        runtime::Method method;
        double step, rtol, eps, time;
    };
    // (measured: dopri5 1.4e-10 and 4.4e-12, rk4 1.2e-10, 4.4e-12 and 4.5e-12, cvode-adams
    // 3.6e-10, cvode-bdf 6.1e-10)
    std::vector<Case> cases = {{runtime::Method::dopri5, 0.0, 1e-10, 1e-9, 1e-9},
                               {runtime::Method::dopri5, 0.0, 1e-13, 2e-11, 1e-10},
                               {runtime::Method::rk4, 1e-2, 0.0, 6e-10, 2e-9},
                               {runtime::Method::rk4, 4e-3, 0.0, 2e-11, 1e-10},
                               {runtime::Method::rk4, 2e-3, 0.0, 2e-11, 1e-10}};
    // the fixed-step second-order methods that carry events on an unconstrained model (shake
    // and rattle need constraints: tests/api/constrained_events_test.cpp), at h = 1e-4
    // (measured: v^2 error 1.2e-9 a period, phase 4.3e-9, both methods)
    for (const runtime::Method fixed : {runtime::Method::newmark, runtime::Method::galpha}) {
        cases.push_back({fixed, 1e-4, 0.0, 5e-9, 2e-8});
    }
    if (runtime::cvode_available()) {
        cases.push_back({runtime::Method::cvode_adams, 0.0, 1e-12, 2e-9, 1e-9});
        cases.push_back({runtime::Method::cvode_bdf, 0.0, 1e-12, 3e-9, 1e-9});
    }
    if (runtime::ida_available()) {
        cases.push_back({runtime::Method::ida, 0.0, 1e-12, 3e-9, 1e-9});
    }
    const double a = osc.w * osc.w * osc.xs; // deceleration at the stop: dt = dv / a
    for (const Case& c : cases) {
        INFO(runtime::info(c.method).name << " step " << c.step << " rtol " << c.rtol);
        const Observed got = run(m, c.method, stop, c.step, c.rtol);
        // the bounces: the impacts before the first that puts the mass at rest (its speed
        // below the resting tolerance, 1e-6 of the first impact's), then released at once
        std::size_t bounces = 0;
        while (bounces < got.impacts.size() && got.labels[bounces] == "b.x >= xs") {
            ++bounces;
        }
        REQUIRE(bounces >= 1);
        // 1. No impact missed: from each bounce's state after the reinit, the closed form's
        // next impact is the next one found, to the error of one period (a missed impact
        // would be 2 pi later)
        for (std::size_t k = 0; k + 1 < bounces; ++k) {
            INFO("impact " << k + 1);
            const runtime::State& after = got.after[k];
            const auto next = osc.next(after.t, after.q[0], after.v[0]);
            REQUIRE(next);
            const Impact& found = got.impacts[k + 1];
            CHECK(std::abs(found.speed * found.speed - next->speed * next->speed) <= c.eps);
            CHECK(std::abs(found.t - next->t) <= c.time + c.eps / (2.0 * a * next->speed));
        }
        // ... and after the last bounce the closed form has no impact the motion must reach:
        // none, or one of speed^2 within one period's error (a graze the numerical motion,
        // a little slower, passes under), or the rest the run found
        if (bounces == got.impacts.size()) {
            const runtime::State& after = got.after[bounces - 1];
            const auto next = osc.next(after.t, after.q[0], after.v[0]);
            CHECK((!next || next->t > stop || next->speed * next->speed <= c.eps));
        }
        // 2. Against the exact sequence: every impact whose speed^2 is above the error the
        // periods accumulate (eps per period, damped by e^2 at each impact) is found, with
        // its speed to that error
        const double accumulated = c.eps / (1.0 - osc.e * osc.e);
        std::size_t resolvable = 0;
        while (resolvable < exact.size() &&
               exact[resolvable].speed * exact[resolvable].speed > 10.0 * accumulated) {
            ++resolvable;
        }
        CHECK(bounces >= resolvable);
        CHECK(got.impacts.size() <= exact.size() + 1); // no spurious impact (+ the release)
        for (std::size_t k = 0; k < std::min(bounces, exact.size()); ++k) {
            INFO("impact " << k + 1 << " of the exact sequence");
            const double v = exact[k].speed;
            CHECK(std::abs(got.impacts[k].speed * got.impacts[k].speed - v * v) <=
                  2.0 * accumulated);
            CHECK(std::abs(got.impacts[k].t - exact[k].t) <=
                  static_cast<double>(k + 1) * c.time + 2.0 * accumulated / (a * v));
        }
    }
}
