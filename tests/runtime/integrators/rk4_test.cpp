#include "runtime/integrators/rk4.hpp"

#include "../test_models.hpp"

#include <catch2/catch.hpp>

using namespace mdl::runtime;
using namespace mdl::runtime::test;

namespace {
const auto make_rk4 = [](const Model& m) {
    return RungeKutta4(m);
};
const std::vector<double> steps{0.2, 0.1, 0.05, 0.025};
} // namespace

TEST_CASE("RK4 converges with order 4 on the harmonic oscillator") {
    const double p = order_on_harmonic_oscillator(make_rk4, steps);
    INFO("observed order " << p);
    CHECK(std::abs(p - 4.0) < 0.1);
}

TEST_CASE("RK4 converges with order 4 on the damped oscillator") {
    const double p = order_on_damped_oscillator(make_rk4, steps);
    INFO("observed order " << p);
    CHECK(std::abs(p - 4.0) < 0.1);
}

TEST_CASE("RK4 integrates first-order states with order 4") {
    // x' = -a x + q with q = cos t: x(t) = C e^{-a t} + (a cos t + sin t)/(1 + a^2)
    const double a = 0.5;
    const Model model = oscillator_with_filter(a);
    std::vector<double> errors;
    for (double h : steps) {
        RungeKutta4 rk4(model);
        State s = model.zero_state();
        s.q[0] = 1.0;
        s.x[0] = 0.2;
        advance(rk4, s, 10.0, h);
        errors.push_back(std::abs(s.x[0] - filter_solution(a, 0.2, 10.0)));
    }
    const double p = observed_order(steps, errors);
    INFO("observed order " << p);
    CHECK(std::abs(p - 4.0) < 0.1);
}

TEST_CASE("RK4 refuses constrained models") {
    const Model pendulum = cartesian_pendulum(1, 1, 1);
    CHECK_THROWS_AS(RungeKutta4(pendulum), MethodNotApplicable);
}
