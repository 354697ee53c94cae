// The cost of HMM at a fixed macro step H does not depend on omega (issue 6): the Kapitza
// pendulum of models/kapitza.mdl at omega = 1e3 ... 1e8, counted in model force evaluations and
// micro steps (counts, not time). A direct integration at a fixed tolerance, for contrast,
// costs in proportion to the number of fast periods. The timed comparison is
// bench/multiscale_bench.cpp (docs/performance.md).
#include "shipped_model.hpp"

#include "runtime/integrators/dopri5.hpp"
#include "runtime/model.hpp"
#include "runtime/multiscale/hmm.hpp"
#include "runtime/run.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

using namespace mdl;
using namespace mdl::runtime;
using namespace mdl::runtime::multiscale;
using mdl::test::ShippedModel;

namespace {

const std::vector<double> omegas{1e3, 1e4, 1e5, 1e6, 1e7, 1e8};

struct Cost {
    std::size_t force_evaluations = 0, micro_steps = 0, estimates = 0, macro_steps = 0;
    double q_end = 0.0;
};

Cost hmm_cost(ShippedModel& k, const HmmOptions& options, double omega) {
    k.model.set_parameter("omega", omega);
    State s = k.start();
    const HmmStats stats = run_hmm(k.model, s, options, [](const State&) {});
    return {stats.force_evaluations, stats.micro_steps, stats.force_estimates, stats.macro_steps,
            s.q[0]};
}

} // namespace

TEST_CASE("HMM's cost at fixed H is independent of omega = 1e3 ... 1e8", "[hmm][cost]") {
    ShippedModel k("kapitza.mdl");
    struct Variant {
        const char* name;
        HmmAlgorithm algorithm;
        FilterKind filter;
        double window;
        bool half; // the half window allowed (the force is even in the phase)
    };
    const std::vector<Variant> variants{
        {"async, simple filter, half window", HmmAlgorithm::asynchronous, FilterKind::simple, 1.0,
         true},
        {"async, simple filter, full window", HmmAlgorithm::asynchronous, FilterKind::simple, 1.0,
         false},
        {"async, exponential filter, 40 periods", HmmAlgorithm::asynchronous,
         FilterKind::exponential, 40.0, true},
        {"sync, exponential filter, 40 periods", HmmAlgorithm::synchronous, FilterKind::exponential,
         40.0, true},
    };
    REQUIRE(k.compiled.force_even_in_phase(0));
    for (const Variant& v : variants) {
        for (double H : {1.0 / 40, 1.0 / 160}) {
            HmmOptions options;
            options.algorithm = v.algorithm;
            options.filter = v.filter;
            options.window_periods = v.window;
            options.force_even_in_phase = true;
            options.allow_half_window = v.half;
            options.macro_step = H;
            const Cost first = hmm_cost(k, options, omegas.front());
            INFO(v.name << ", H = " << H << ": " << first.force_evaluations
                        << " force evaluations, " << first.micro_steps
                        << " micro steps at omega = " << omegas.front());
            CHECK(first.macro_steps == static_cast<std::size_t>(std::lround(1.0 / H)));
            CHECK(first.force_evaluations > first.micro_steps);
            for (double omega : omegas) {
                const Cost c = hmm_cost(k, options, omega);
                INFO("omega = " << omega << ": " << c.force_evaluations << " force evaluations, "
                                << c.micro_steps << " micro steps, q(1) = " << c.q_end);
                CHECK(c.force_evaluations == first.force_evaluations);
                CHECK(c.micro_steps == first.micro_steps);
                CHECK(c.estimates == first.estimates);
                // the averaged motion (Q(1) = 0.1686) within the O(H^2) error once the scales
                // separate (at omega = 1e3 the O(1/omega) terms and the 40-period window of the
                // exponential filter, 0.25 s, are not small)
                if (omega >= 1e5) {
                    CHECK(std::abs(c.q_end - 0.168561190029) < (H > 0.02 ? 0.05 : 0.01));
                }
            }
        }
    }
}

TEST_CASE("a direct integration's cost grows in proportion to omega", "[hmm][cost]") {
    // DOPRI5 at a fixed tolerance over 0 <= t <= 0.1: ten times omega, about ten times the
    // force evaluations (the step follows the fast period); HMM's stay the same (above).
    ShippedModel k("kapitza.mdl");
    std::vector<double> evaluations;
    for (double omega : {1e3, 1e4, 1e5}) {
        k.model.set_parameter("omega", omega);
        RunSettings settings;
        settings.method = Method::dopri5;
        settings.stop_time = 0.1;
        settings.step = 0.0;
        settings.adaptive.rtol = 1e-6;
        settings.adaptive.atol = 1e-6;
        State s = k.start();
        evaluations.push_back(
            static_cast<double>(run(k.model, s, settings, [](const State&) {}).force_evaluations));
    }
    for (std::size_t i = 1; i < evaluations.size(); ++i) {
        INFO(evaluations[i - 1] << " -> " << evaluations[i] << " force evaluations");
        CHECK(evaluations[i] / evaluations[i - 1] > 7.0);
        CHECK(evaluations[i] / evaluations[i - 1] < 14.0);
    }
}
