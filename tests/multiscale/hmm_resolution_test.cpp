// An HMM micro step that does not resolve the fast period is a reported numerical failure
// (issue 11): method, time and the vibration by name, before any macro step is taken.
#include "shipped_model.hpp"

#include "runtime/model.hpp"
#include "runtime/multiscale/hmm.hpp"
#include "runtime/numerical_failure.hpp"
#include "runtime/output/csv_writer.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>
#include <sstream>

using namespace mdl;
using namespace mdl::runtime;
using namespace mdl::runtime::multiscale;
using mdl::test::ShippedModel;

namespace {

HmmOptions options(std::size_t per_period) {
    HmmOptions o;
    o.t_end = 1.5;
    o.macro_step = 1.0 / 80;
    o.micro_steps_per_period = per_period;
    o.force_even_in_phase = true; // the Kapitza force is: simple filtering applies
    return o;
}

} // namespace

TEST_CASE("HMM refuses a micro step that does not resolve the fast period", "[hmm]") {
    ShippedModel k("kapitza.mdl");
    const double omega = k.compiled.parameter("omega");
    // simple filter, one period: the window has 2 round(N/2) micro steps, h = period/that
    for (const std::size_t per_period : {2u, 3u, 4u, 5u}) {
        INFO(per_period << " micro steps per period");
        State s = k.start(0.5);
        std::ostringstream csv_text;
        CsvWriter csv(csv_text, k.model);
        try {
            run_hmm(k.model, s, options(per_period), csv);
            FAIL("no failure reported");
        } catch (const NumericalFailure& e) {
            CHECK(e.kind() == FailureKind::unresolved_fast_scale);
            CHECK(e.method() == "hmm");
            CHECK(e.time() == 0.5);
            CHECK(e.where() == "vibration 'a' (omega = 10000 rad/s)");
            const double steps = 2 * std::round(static_cast<double>(per_period) / 2);
            const double omega_h = 2 * std::numbers::pi / steps;
            CHECK(std::string(e.what()).find("omega h = " + format_number(omega_h)) !=
                  std::string::npos);
            CHECK(omega * (2 * std::numbers::pi / omega / steps) > HmmForceEstimator::max_omega_h);
        }
        // nothing half-written: the CSV is its header alone
        CHECK(csv_text.str() == "time,q,der(q)\n");
    }
}

TEST_CASE("HMM accepts 7 or more micro steps per period (omega h <= 1)", "[hmm]") {
    ShippedModel k("kapitza.mdl");
    for (const std::size_t per_period : {7u, 8u, 10u}) {
        State s = k.start(0.0);
        HmmOptions o = options(per_period);
        o.t_end = 0.25;
        const HmmStats stats = run_hmm(k.model, s, o, [](const State&) {});
        CHECK(stats.macro_steps == 20);
        CHECK(stats.micro_step * k.compiled.parameter("omega") <= 1.0);
    }
}
