// The stroboscopic averaging driver: counts, options, the DOPRI5 macro-integrator, outputs,
// the micro-integrations' origin, CSV output, and what it refuses.
#include "shipped_model.hpp"

#include "reproduce/reproduce_strobo.hpp"
#include "runtime/model.hpp"
#include "runtime/multiscale/stroboscopic.hpp"
#include "runtime/numerical_failure.hpp"
#include "runtime/output/csv_writer.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

using namespace mdl;
using namespace mdl::runtime;
using namespace mdl::runtime::multiscale;
using mdl::test::ShippedModel;

namespace {

constexpr double pi = std::numbers::pi;

struct Error {
    double q = 0.0, p = 0.0;
    std::size_t outputs = 0;
    bool on_grid = true;
};

// Max error of the outputs against a reference on the grid t0 + k dt.
Error error_against(const GridSolution& ref, const std::vector<State>& outputs, double t0) {
    Error e;
    for (const State& s : outputs) {
        const double k = (s.t - t0) / ref.dt;
        const auto i = static_cast<std::size_t>(std::llround(k));
        e.on_grid = e.on_grid && std::abs(k - static_cast<double>(i)) < 1e-9 * std::max(1.0, k);
        if (i < ref.q.size()) {
            e.q = std::max(e.q, std::abs(s.q[0] - ref.q[i]));
            e.p = std::max(e.p, std::abs(s.v[0] - ref.p[i]));
        }
        ++e.outputs;
    }
    return e;
}

} // namespace

TEST_CASE("the period comes from the model's phase rate; counts per macro step", "[strobo]") {
    ShippedModel k("kapitza_eps.mdl");
    k.model.set_parameter("eps", 1.0 / 800);
    for (const int order : {2, 4}) {
        StroboscopicOptions options;
        options.order = order;
        options.macro_step = pi / 50;
        options.micro_steps_per_period = 20;
        State s = k.start();
        std::size_t outputs = 0;
        const StroboscopicStats st =
            run_stroboscopic(k.model, s, options, [&](const State&) { ++outputs; });
        CHECK(st.period == Approx(2 * pi / 800).epsilon(1e-14));
        CHECK(st.micro_step == Approx(2 * pi / 800 / 20).epsilon(1e-14));
        CHECK(st.macro_steps == 15); // floor(1/H)
        CHECK(outputs == 16);
        CHECK(st.outputs == 16);
        CHECK(st.field_evaluations == 4 * 15);
        CHECK(st.micro_steps_per_field == static_cast<std::size_t>(order) * 20);
        CHECK(st.micro_steps == st.field_evaluations * st.micro_steps_per_field);
        CHECK(st.force_evaluations == 4 * st.micro_steps);
        CHECK(st.stroboscopic_outputs); // H = 16 periods
        CHECK(s.t == Approx(15 * pi / 50).epsilon(1e-15));
    }
}

TEST_CASE("DOPRI5 as macro-integrator: stroboscopic output points, tolerance-driven accuracy",
          "[strobo][dopri5]") {
    ShippedModel k("kapitza_eps.mdl");
    const double eps = 1.0 / 3200;
    const GridSolution ref = oscillatory_reference(k.model, k.start(), eps, pi / 50);
    Error last;
    std::size_t last_fields = 0;
    for (const double rtol : {1e-5, 1e-9}) {
        StroboscopicOptions options;
        options.macro = StroboscopicMacro::dopri5;
        options.macro_step = pi / 50; // output interval, 64 periods
        options.t_end = 15 * pi / 50;
        options.micro_steps_per_period = 160; // micro error well below the tolerances
        options.rtol = rtol;
        options.atol = rtol * 1e-2;
        State s = k.start();
        std::vector<State> outputs;
        const StroboscopicStats st =
            run_stroboscopic(k.model, s, options, [&](const State& y) { outputs.push_back(y); });
        const Error e = error_against(ref, outputs, 0.0);
        INFO("rtol " << rtol << ": q error " << e.q << ", p error " << e.p << ", " << st.macro_steps
                     << " steps, " << st.rejected_steps << " rejected, " << st.field_evaluations
                     << " F");
        CHECK(e.outputs == 16); // exactly the output points 0, H, ..., 15 H
        CHECK(e.on_grid);
        CHECK(st.stroboscopic_outputs);
        CHECK(s.t == Approx(options.t_end).epsilon(1e-15));
        if (rtol == 1e-5) {
            CHECK(e.q < 1e-4);
        } else {
            // the O(eps^4) differencing error (paper: below 1e-7 for eps = 1/3200) remains
            CHECK(e.q < 1e-6);
            CHECK(e.p < 2e-5);
            CHECK(e.q < last.q / 20);
            CHECK(st.field_evaluations > last_fields);
        }
        last = e;
        last_fields = st.field_evaluations;
    }
}

TEST_CASE("DOPRI5 without an output interval reports every accepted step", "[strobo][dopri5]") {
    ShippedModel k("kapitza_eps.mdl");
    StroboscopicOptions options;
    options.macro = StroboscopicMacro::dopri5;
    options.macro_step = 0.0;
    options.rtol = 1e-6;
    State s = k.start();
    std::size_t outputs = 0;
    const StroboscopicStats st =
        run_stroboscopic(k.model, s, options, [&](const State&) { ++outputs; });
    CHECK(outputs == st.macro_steps + 1);
    CHECK(s.t == 1.0);
    CHECK_FALSE(st.stroboscopic_outputs); // the code's step points are arbitrary
    CHECK(st.field_evaluations <= 6 * (st.macro_steps + st.rejected_steps) + 3);
}

TEST_CASE("micro-integrations start at the run's initial time, not at the macro time", "[strobo]") {
    // Started at t0 = 0.1 (phase theta(0.1), not theta0), the outputs t0 + n H are
    // stroboscopic for the solution from t0.
    ShippedModel k("kapitza_eps.mdl");
    const double eps = 1.0 / 1600, H = pi / 100;
    State start = k.start();
    start.t = 0.1;
    const GridSolution ref = oscillatory_reference(k.model, start, eps, H, 1.1);
    StroboscopicOptions options;
    options.macro_step = H;
    options.t_end = 1.1;
    options.micro_steps_per_period = 40;
    State s = start;
    std::vector<State> outputs;
    run_stroboscopic(k.model, s, options, [&](const State& y) { outputs.push_back(y); });
    const Error e = error_against(ref, outputs, 0.1);
    INFO("q error " << e.q << ", p error " << e.p);
    CHECK(e.outputs == 32);
    CHECK(e.q < 1e-3); // the same size as the table's 5.01e-4
    CHECK(e.p < 2e-2);
}

TEST_CASE("H not a multiple of the period: outputs are the smooth interpolant", "[strobo]") {
    ShippedModel k("kapitza_eps.mdl");
    StroboscopicOptions options;
    options.macro_step = 0.1; // 6.37 periods of eps = 1/400
    options.whole_steps = false;
    options.t_end = 0.95;
    State s = k.start();
    const StroboscopicStats st = run_stroboscopic(k.model, s, options, [](const State&) {});
    CHECK_FALSE(st.stroboscopic_outputs);
    CHECK(st.macro_steps == 10);
    CHECK(s.t == 0.95); // the last step shortened to end at t_end
}

TEST_CASE("velocity Verlet as micro-integrator converges with the micro step", "[strobo]") {
    ShippedModel k("kapitza_eps.mdl");
    const double eps = 1.0 / 1600, H = pi / 100;
    const GridSolution ref = oscillatory_reference(k.model, k.start(), eps, H);
    std::vector<double> errors;
    for (const std::size_t N : {40, 160}) {
        StroboscopicOptions options;
        options.micro = StroboscopicMicro::verlet;
        options.macro_step = H;
        options.micro_steps_per_period = N;
        State s = k.start();
        std::vector<State> outputs;
        const StroboscopicStats st =
            run_stroboscopic(k.model, s, options, [&](const State& y) { outputs.push_back(y); });
        CHECK(st.force_evaluations == st.micro_steps + 2 * st.field_evaluations); // 1 a step
        errors.push_back(error_against(ref, outputs, 0.0).q);
    }
    INFO("Verlet micro: q errors " << errors[0] << ", " << errors[1]);
    CHECK(errors[1] < errors[0]);
    CHECK(errors[1] < 2e-3);
}

TEST_CASE("the driver writes CSV through runtime::CsvWriter", "[strobo]") {
    ShippedModel k("kapitza_eps.mdl");
    std::ostringstream out;
    CsvWriter csv(out, k.model);
    StroboscopicOptions options;
    options.macro_step = pi / 25;
    State s = k.start();
    const StroboscopicStats st = run_stroboscopic(k.model, s, options, csv);
    CHECK(csv.rows() == 8);
    CHECK(st.integration().outputs == 8);
    CHECK(out.str().rfind("time,q,der(q)", 0) == 0);
}

TEST_CASE("what stroboscopic averaging refuses", "[strobo]") {
    ShippedModel k("kapitza_eps.mdl");
    StroboscopicOptions options;
    State s = k.start();
    const auto nothing = [](const State&) {
    };
    options.order = 3;
    CHECK_THROWS_AS(run_stroboscopic(k.model, s, options, nothing), std::invalid_argument);
    options.order = 4;
    options.macro_step = 2.0;
    CHECK_THROWS_AS(run_stroboscopic(k.model, s, options, nothing), std::invalid_argument);
    options.macro_step = pi / 50;
    options.micro_steps_per_period = 0;
    CHECK_THROWS_AS(run_stroboscopic(k.model, s, options, nothing), std::invalid_argument);

    ShippedModel oscillator("harmonic_oscillator.mdl"); // no vibration
    State so = oscillator.start();
    CHECK_THROWS_AS(run_stroboscopic(oscillator.model, so, StroboscopicOptions{}, nothing),
                    MethodNotApplicable);
    // ... unless the period is given
    StroboscopicOptions with_period;
    with_period.period = 0.01;
    CHECK_NOTHROW(run_stroboscopic(oscillator.model, so, with_period, nothing));

    ShippedModel pendulum("double_pendulum.mdl"); // constrained: RK4 micro steps cannot keep g = 0
    State sp = pendulum.start();
    StroboscopicOptions explicit_rk4;
    explicit_rk4.micro = StroboscopicMicro::rk4;
    CHECK_THROWS_AS(run_stroboscopic(pendulum.model, sp, explicit_rk4, nothing),
                    MethodNotApplicable);
    CHECK(resolve_stroboscopic_micro(pendulum.model, StroboscopicMicro::automatic) ==
          StroboscopicMicro::half_explicit_rk3);

    CHECK(parse_stroboscopic_macro("dopri5") == StroboscopicMacro::dopri5);
    CHECK(parse_stroboscopic_micro("verlet") == StroboscopicMicro::verlet);
    CHECK_THROWS_AS(parse_stroboscopic_macro("euler"), std::invalid_argument);
}
