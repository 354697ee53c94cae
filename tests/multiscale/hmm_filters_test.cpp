// The filters (kernels) of HMM and the building blocks of the HMM driver.
#include "shipped_model.hpp"

#include "runtime/integrators/shake.hpp"
#include "runtime/model.hpp"
#include "runtime/multiscale/filters.hpp"
#include "runtime/multiscale/hmm.hpp"
#include "runtime/output/csv_writer.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>
#include <numeric>
#include <sstream>

using namespace mdl;
using namespace mdl::runtime;
using namespace mdl::runtime::multiscale;
using mdl::test::ShippedModel;

// kapitza.mdl and double_pendulum.mdl start at rest: ShippedModel::start()'s velocities are
// zero, as these tests have always had them.

namespace {

double sum(const std::vector<double>& w) {
    return std::accumulate(w.begin(), w.end(), 0.0);
}

} // namespace

TEST_CASE("exponential kernel: unit mass, even, vanishing at the ends", "[hmm][filter]") {
    const Filter f = Filter::exponential(40.0);
    // Gauss-free check of the constant: composite Simpson on [-1, 1] with 20000 panels
    const int n = 20000;
    double s = 0.0;
    for (int i = 0; i <= n; ++i) {
        const double xi = -1.0 + 2.0 * i / n;
        const double w = (i == 0 || i == n) ? 1.0 : (i % 2 == 1 ? 4.0 : 2.0);
        s += w * f.kernel(xi);
    }
    s *= (2.0 / n) / 3.0;
    CHECK(s == Approx(1.0).epsilon(1e-12));
    CHECK(f.kernel(0.3) == f.kernel(-0.3));
    CHECK(f.kernel(1.0) == 0.0);
    CHECK(f.kernel(-1.5) == 0.0);
    // C = 1 / int exp(5/(xi^2-1)): K(0) = C e^-5
    CHECK(f.kernel(0.0) == Approx(f.normalization() * std::exp(-5.0)));
    CHECK(f.window_periods() == 40.0);
}

TEST_CASE("filter weights: unit mass for every window size", "[hmm][filter]") {
    for (std::size_t n : {1u, 5u, 40u, 1600u}) {
        CHECK(sum(Filter::simple().half_window_weights(n)) == Approx(1.0).epsilon(1e-12));
        CHECK(sum(Filter::simple().full_window_weights(n)) == Approx(1.0).epsilon(1e-12));
    }
    for (std::size_t n : {200u, 1600u}) {
        CHECK(sum(Filter::exponential().half_window_weights(n)) == Approx(1.0).epsilon(1e-12));
        CHECK(sum(Filter::exponential().full_window_weights(n)) == Approx(1.0).epsilon(1e-12));
    }
    CHECK_THROWS_AS(Filter::simple().half_window_weights(0), std::invalid_argument);
    CHECK_THROWS_AS(Filter::make(FilterKind::simple, 2.0), std::invalid_argument);
    CHECK_THROWS_AS(Filter::exponential(-1.0), std::invalid_argument);
    CHECK(Filter::make(FilterKind::exponential).window_periods() == 40.0);
    CHECK(parse_filter_kind("exp") == FilterKind::exponential);
    CHECK(parse_filter_kind("simple") == FilterKind::simple);
    CHECK_THROWS_AS(parse_filter_kind("gauss"), std::invalid_argument);
}

TEST_CASE("filters remove fast oscillations, half and full windows agree", "[hmm][filter]") {
    // f(t) = 1 + A cos(k omega t): the average is 1
    const double omega = 1e4, period = 2.0 * std::numbers::pi / omega;
    for (const Filter& filter : {Filter::simple(), Filter::exponential(40.0)}) {
        const std::size_t per_period = 32;
        const auto n =
            static_cast<std::size_t>(std::lround(per_period * filter.window_periods() / 2.0));
        const double h = filter.window_periods() * period / (2.0 * static_cast<double>(n));
        const auto half = filter.half_window_weights(n);
        const auto full = filter.full_window_weights(n);
        for (int k = 1; k <= 3; ++k) {
            const auto f = [&](double t) {
                return 1.0 + 1e4 * std::cos(k * omega * t);
            };
            double fh = 0.0, ff = 0.0;
            for (std::size_t i = 0; i <= n; ++i) {
                fh += half[i] * f(static_cast<double>(i) * h);
            }
            for (std::size_t i = 0; i <= 2 * n; ++i) {
                ff += full[i] * f((static_cast<double>(i) - static_cast<double>(n)) * h);
            }
            INFO(to_string(filter.kind()) << " k = " << k);
            CHECK(fh == Approx(1.0).margin(1e-6)); // amplitude 1e4 filtered below 1e-10 of itself
            CHECK(ff == Approx(fh).epsilon(1e-12));
        }
    }
}

TEST_CASE("SHAKE after a step from t_k: acceleration() and multipliers() belong to q_k",
          "[hmm][filter]") {
    // The constrained micro-force f(q_k) + G(q_k)^T Lambda_k relies on it.
    ShippedModel p("double_pendulum.mdl");
    Shake<> shake(p.model);
    State s = p.start();
    Vector a(p.model.positions()), theta(p.model.vibrations());
    const double h = 1e-5;
    for (int k = 0; k < 3; ++k) {
        const State before = s;
        shake.step(s, h);
        p.model.phases(before.t, theta);
        p.model.acceleration(before.t, before.q, before.v, before.x, theta, a);
        CHECK((shake.acceleration() - a).cwiseAbs().maxCoeff() <= 1e-12 * a.cwiseAbs().maxCoeff());
    }
}

TEST_CASE("run_hmm: CsvWriter observer, counters, options", "[hmm]") {
    ShippedModel k("kapitza.mdl");
    k.model.set_parameter("omega", 1e6);
    HmmOptions o;
    o.filter = FilterKind::simple;
    o.macro_step = 1.0 / 20;
    o.force_even_in_phase = k.compiled.force_even_in_phase(0);
    std::ostringstream out;
    CsvWriter csv(out, k.model);
    State s = k.start();
    const HmmStats stats = run_hmm(k.model, s, o, csv);
    CHECK(csv.rows() == 21);
    CHECK(stats.outputs == 21);
    CHECK(stats.macro_steps == 20);
    CHECK(stats.force_estimates == 21); // final_velocity: F_20 too
    CHECK(stats.micro_steps_per_window == 10);
    CHECK(stats.micro_steps == 210);
    // one evaluation at the start of each micro-integration besides the steps' own (the
    // window's centre sample: the steps continue from it)
    CHECK(stats.force_evaluations == 21 * 11);
    CHECK(stats.micro_step == Approx(2.0 * std::numbers::pi / 1e6 / 20));
    CHECK(s.t == Approx(1.0));
    CHECK(out.str().rfind("time,", 0) == 0);

    // the full window: twice the micro steps, same F
    State s2 = k.start();
    o.allow_half_window = false;
    const HmmStats full = run_hmm(k.model, s2, o, [](const State&) {});
    CHECK(full.micro_steps_per_window == 20);
    CHECK(s2.q[0] == Approx(s.q[0]).epsilon(1e-6));

    // a given micro step count per period
    o.micro_steps_per_period = 64;
    o.allow_half_window = true;
    State s3 = k.start();
    CHECK(run_hmm(k.model, s3, o, [](const State&) {}).micro_steps_per_window == 32);
}

TEST_CASE("run_hmm: misuse is reported", "[hmm]") {
    ShippedModel k("kapitza.mdl");
    State s = k.start();
    HmmOptions o;
    o.macro_step = 0.3; // 1/0.3 steps
    CHECK_THROWS_AS(run_hmm(k.model, s, o, [](const State&) {}), std::invalid_argument);
    o.macro_step = 0.1;
    o.macro = HmmMacro::shake;
    CHECK_THROWS_AS(run_hmm(k.model, s, o, [](const State&) {}), MethodNotApplicable);
    ShippedModel p("double_pendulum.mdl");
    State sp = p.start();
    o.macro = HmmMacro::verlet;
    CHECK_THROWS_AS(run_hmm(p.model, sp, o, [](const State&) {}), MethodNotApplicable);
    o.macro = HmmMacro::shake;
    o.algorithm = HmmAlgorithm::synchronous;
    CHECK_THROWS_AS(run_hmm(p.model, sp, o, [](const State&) {}), MethodNotApplicable);
    CHECK(parse_hmm_method("hmm-rattle") == HmmMacro::rattle);
    CHECK(parse_hmm_algorithm("sync") == HmmAlgorithm::synchronous);
    CHECK_THROWS_AS(parse_hmm_algorithm("both"), std::invalid_argument);
}
