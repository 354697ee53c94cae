// SUNDIALS IDA as the runtime method `ida` (runtime/integrators/ida.hpp): the Cartesian
// pendulum as a stabilized index-2 DAE against the pendulum in its angle (an ODE), the
// constraints held at every output, and failures as NumericalFailure naming the time, `ida`
// and IDA's message. Without SUNDIALS every case says so and checks the method is absent.
#include "runtime/integrators/ida.hpp"
#include "runtime/methods.hpp"
#include "runtime/numerical_failure.hpp"
#include "runtime/run.hpp"
#include "test_models.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>

using namespace mdl::runtime;
using namespace mdl::runtime::test;

namespace {

bool have_ida() {
    if (ida_available()) {
        return true;
    }
    WARN("SUNDIALS (libsundials-dev) was not found at build time: ida is absent, its tests "
         "skipped");
    CHECK_FALSE(find_method("ida").has_value());
    return false;
}

} // namespace

TEST_CASE("ida: the Cartesian pendulum as an index-2 DAE follows the angle ODE") {
    if (!have_ida()) {
        return;
    }
    // m = l = g = 1, released horizontally: x = sin q, y = -cos q with q'' = -sin q, q0 = pi/2
    const Model pendulum = cartesian_pendulum(1.0, 1.0, 1.0);
    State s = pendulum.zero_state();
    s.q << 1.0, 0.0;
    IdaOptions options;
    options.rtol = 1e-10;
    options.atol = 1e-12;
    double worst_residual = 0.0;
    integrate_ida(pendulum, s, options, 2.0, 0.1, [&](const State& out) {
        worst_residual = std::max(
            {worst_residual, std::abs(out.q.squaredNorm() - 1.0), std::abs(out.q.dot(out.v))});
    });
    const Model angle = angle_pendulum(1.0, 1.0, 1.0);
    State r = angle.zero_state();
    r.q << std::acos(-1.0) / 2;
    RunSettings settings;
    settings.method = Method::dopri5;
    settings.stop_time = 2.0;
    settings.step = 0.0;
    settings.adaptive.rtol = 1e-13;
    settings.adaptive.atol = 1e-15;
    run(angle, r, settings, [](const State&) {});
    CHECK(s.t == 2.0);
    CHECK(std::abs(s.q[0] - std::sin(r.q[0])) < 1e-7);
    CHECK(std::abs(s.q[1] + std::cos(r.q[0])) < 1e-7);
    // g = 0 and G v = 0 are equations of the DAE: held at every output, no drift
    CHECK(worst_residual < 1e-10);
    // the rod force: lambda = -(q'^2 + cos q)/2 (cvode_test.cpp derives it)
    REQUIRE(s.lambda.size() == 1);
    CHECK(std::abs(s.lambda[0] + (r.v[0] * r.v[0] + std::cos(r.q[0])) / 2) < 1e-6);
}

TEST_CASE("ida: a blow-up is a NumericalFailure naming the time, ida and IDA's message") {
    if (!have_ida()) {
        return;
    }
    // q'' = 2 q^3 from q = v = 1: q = 1/(1 - t) blows up at t = 1
    const Model model = blow_up();
    State s = model.zero_state();
    s.q[0] = 1.0;
    s.v[0] = 1.0;
    try {
        integrate_ida(model, s, {}, 2.0, 0.0, [](const State&) {});
        FAIL("no exception");
    } catch (const NumericalFailure& e) {
        INFO(e.what());
        CHECK(e.method() == "ida");
        CHECK(e.time() > 0.9);
        CHECK(e.time() < 1.0 + 1e-6);
        CHECK(std::string(e.what()).find("IDA") != std::string::npos);
    }
}
