// The car axis problem (models/car_axis.mdl): an index-3 DAE whose constraint moves with time,
// xl xb(t) + yl yb(t) = 0 with yb = r sin(w t), against the reference solution published by the
// Test Set for IVP Solvers (F. Mazzia, C. Magherini et al., University of Bari, release 2.4,
// problem "caraxis": y1..y10 at t = 3). Each constrained method that takes a rheonomic
// constraint reaches the accuracy of its order: ida and dopri5 at rtol 1e-12 within 1e-8,
// rattle and galpha at h = 1e-5 within 1e-5, with errors that fall as h^2; the multipliers too.
#include "mdl/compiled_model.hpp"
#include "reproduce/reproduce_car_axis.hpp"
#include "shipped_model.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

using namespace mdl;
namespace mech = runtime::mechanics;

TEST_CASE("car axis: the wheels at t = 3 are the Test Set's reference to each method's order",
          "[heavy]") {
    test::ShippedModel car("car_axis.mdl");
    REQUIRE(car.model.rheonomic());
    const runtime::State start = car.start();
    // the published start values are consistent: positions and G v + g_t = 0 at t = 0
    CHECK(start.q[0] == 0.0);
    CHECK(start.q[1] == 0.5);
    CHECK(start.q[2] == 1.0);
    CHECK(start.v[0] == -0.5);
    for (const mech::CarAxisSetting& setting : mech::car_axis_settings()) {
        const mech::CarAxisRun run = mech::run_car_axis(car.model, start, setting);
        INFO(run.method << ": largest error " << run.largest_error() << ", " << run.correct_digits()
                        << " correct digits, multipliers " << run.multipliers[0] << ", "
                        << run.multipliers[1] << ", residual " << run.constraint_residual);
        CHECK(run.passes());
        // the multipliers (the Test Set's y9, y10: the constraint forces' scale)
        const double multiplier_tolerance = setting.method == runtime::Method::galpha ? 1e-6 : 1e-8;
        for (std::size_t i = 0; i < 2; ++i) {
            CHECK(std::abs(run.multipliers[i] - mech::car_axis_reference_multipliers[i]) <
                  multiplier_tolerance);
        }
    }
}

TEST_CASE("car axis: rattle's errors in the state and the multipliers fall as h^2") {
    // The multipliers are those of consistent accelerations at (q_{n+1}, v_{n+1}): second
    // order like the state (RATTLE's stage multipliers mu_n were first order: 1.5e-6 at
    // h = 1e-4 against 1.5e-7 now).
    test::ShippedModel car("car_axis.mdl");
    const runtime::State start = car.start();
    const auto multiplier_error = [](const mech::CarAxisRun& run) {
        return std::max(std::abs(run.multipliers[0] - mech::car_axis_reference_multipliers[0]),
                        std::abs(run.multipliers[1] - mech::car_axis_reference_multipliers[1]));
    };
    const mech::CarAxisRun coarse =
        mech::run_car_axis(car.model, start, {runtime::Method::rattle, 4e-5, 1.0});
    const mech::CarAxisRun fine =
        mech::run_car_axis(car.model, start, {runtime::Method::rattle, 2e-5, 1.0});
    INFO("errors " << coarse.largest_error() << " at h = 4e-5, " << fine.largest_error()
                   << " at h = 2e-5; multipliers " << multiplier_error(coarse) << ", "
                   << multiplier_error(fine));
    CHECK(coarse.largest_error() / fine.largest_error() > 3.6);
    CHECK(coarse.largest_error() / fine.largest_error() < 4.4);
    CHECK(multiplier_error(coarse) / multiplier_error(fine) > 3.6);
    CHECK(multiplier_error(coarse) / multiplier_error(fine) < 4.4);
}
