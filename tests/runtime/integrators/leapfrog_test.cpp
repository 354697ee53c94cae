#include "runtime/integrators/leapfrog.hpp"
#include "runtime/integrators/verlet.hpp"

#include "../test_models.hpp"

#include <catch2/catch.hpp>

using namespace mdl::runtime;
using namespace mdl::runtime::test;

namespace {
const auto make_leapfrog = [](const Model& m) {
    return Leapfrog(m);
};
const std::vector<double> steps{0.1, 0.05, 0.025, 0.0125};
} // namespace

TEST_CASE("leapfrog converges with order 2 on the harmonic oscillator") {
    const double p = order_on_harmonic_oscillator(make_leapfrog, steps);
    INFO("observed order " << p);
    CHECK(std::abs(p - 2.0) < 0.1);
}

TEST_CASE("leapfrog keeps order 2 on the damped oscillator (implicit midpoint kick)") {
    const double p = order_on_damped_oscillator(make_leapfrog, steps);
    INFO("observed order " << p);
    CHECK(std::abs(p - 2.0) < 0.1);
}

TEST_CASE("leapfrog's energy error stays bounded over 1e5 steps") {
    const Model model = angle_pendulum();
    Leapfrog leapfrog(model);
    const auto windows = energy_error_by_window(leapfrog, model, 0.1, 100000, 10);
    INFO("first " << windows.front() << " last " << windows.back());
    CHECK(windows.back() <= 1.05 * windows.front());
    CHECK(windows.back() < 1e-2);
}

TEST_CASE("leapfrog is the drift-kick-drift arrangement, not velocity Verlet") {
    // One step on q'' = -q from (1, 0) by the formulas of leapfrog.hpp, by hand:
    // q_half = 1, v1 = -h, q1 = 1 - h^2/2; velocity Verlet gives v1 = -h + h^3/4 instead.
    const Model model = harmonic_oscillator();
    Leapfrog leapfrog(model);
    State s = model.zero_state();
    s.q[0] = 1.0;
    const double h = 0.1;
    leapfrog.step(s, h);
    CHECK(s.q[0] == Approx(1.0 - h * h / 2).epsilon(1e-15));
    CHECK(s.v[0] == Approx(-h).epsilon(1e-15));
    CHECK(leapfrog.force().evaluations() == 1);
}
