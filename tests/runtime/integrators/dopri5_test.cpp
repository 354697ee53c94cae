#include "runtime/integrate.hpp"
#include "runtime/integrators/dopri5.hpp"

#include "../test_models.hpp"

#include <catch2/catch.hpp>

using namespace mdl::runtime;
using namespace mdl::runtime::test;

namespace {

const auto make_dopri5 = [](const Model& m) {
    return Dopri5(m);
};

// Adaptive run of the harmonic oscillator from (1, 0) to T; error at T and the stepper.
double adaptive_error(double tol, StepSizeControl control, std::size_t* steps = nullptr) {
    const Model model = harmonic_oscillator();
    Dopri5 dopri5(model, Dopri5Options{tol, tol, control});
    State s = model.zero_state();
    s.q[0] = 1.0;
    const auto stats = integrate_adaptive(dopri5, s, 10.0, [](const State&) {});
    if (steps != nullptr) {
        *steps = stats.steps;
    }
    double q = 0, v = 0;
    harmonic_solution(1.0, 1.0, 0.0, 10.0, q, v);
    return std::max(std::abs(s.q[0] - q), std::abs(s.v[0] - v));
}

} // namespace

TEST_CASE("DOPRI5 at fixed steps converges with order 5") {
    const std::vector<double> steps{0.4, 0.2, 0.1, 0.05};
    const double p = order_on_harmonic_oscillator(make_dopri5, steps);
    INFO("harmonic: observed order " << p);
    CHECK(std::abs(p - 5.0) < 0.1);
    const double d = order_on_damped_oscillator(make_dopri5, steps);
    INFO("damped: observed order " << d);
    CHECK(std::abs(d - 5.0) < 0.1);
}

TEST_CASE("adaptive DOPRI5: the global error follows the tolerance") {
    // With local extrapolation the step is chosen so that the embedded 4th-order error is
    // ~ tol; the propagated 5th-order solution then has a global error proportional to tol.
    for (StepSizeControl control : {StepSizeControl::standard, StepSizeControl::pi}) {
        std::vector<double> tolerances{1e-5, 1e-7, 1e-9, 1e-11};
        std::vector<double> errors;
        for (double tol : tolerances) {
            errors.push_back(adaptive_error(tol, control));
            INFO("tol " << tol << " error " << errors.back());
            CHECK(errors.back() < 10.0 * tol);
        }
        const double slope = observed_order(tolerances, errors);
        INFO("error ~ tol^" << slope);
        CHECK(std::abs(slope - 1.0) < 0.15);
    }
}

TEST_CASE("adaptive DOPRI5 rejects a step that is too large and retries smaller") {
    const Model model = harmonic_oscillator();
    Dopri5Options options{1e-8, 1e-8};
    options.initial_step = 2.0; // error ~ h^5 / tol >> 1: rejected
    Dopri5 dopri5(model, options);
    State s = model.zero_state();
    s.q[0] = 1.0;
    double h = 2.0;
    CHECK_FALSE(dopri5.try_step(s, h));
    CHECK(s.t == 0.0);
    CHECK(h < 2.0);
    CHECK(h >= 2.0 * 0.2); // the factor is limited to 1/5
    const auto stats = integrate_adaptive(dopri5, s, 10.0, [](const State&) {});
    CHECK(stats.rejected >= 1);
    double q = 0, v = 0;
    harmonic_solution(1.0, 1.0, 0.0, 10.0, q, v);
    CHECK(std::abs(s.q[0] - q) < 1e-7);
}

TEST_CASE("DOPRI5 dense output interpolates with the accuracy of the steps") {
    // Output every 0.01 from steps of ~0.3: the continuous extension of order 4 (local error
    // O(h^5)) keeps the interpolated states within the tolerance's reach of cos/sin.
    const Model model = harmonic_oscillator();
    Dopri5 dopri5(model, Dopri5Options{1e-9, 1e-9});
    State s = model.zero_state();
    s.q[0] = 1.0;
    double largest = 0.0;
    std::size_t outputs = 0;
    double last_t = -1.0;
    const auto stats = integrate_adaptive(
        dopri5, s, 10.0,
        [&](const State& out) {
            double q = 0, v = 0;
            harmonic_solution(1.0, 1.0, 0.0, out.t, q, v);
            largest = std::max({largest, std::abs(out.q[0] - q), std::abs(out.v[0] - v)});
            CHECK(out.t > last_t);
            last_t = out.t;
            ++outputs;
        },
        0.01);
    CHECK(outputs == 1001); // t = 0, 0.01, ..., 10
    CHECK(last_t == 10.0);
    CHECK(stats.steps < 200); // the steps are much longer than the output interval
    INFO("largest error " << largest);
    CHECK(largest < 1e-8);
}

TEST_CASE("DOPRI5 dense output converges with order 5 at mid-step at fixed steps") {
    // Midpoints are where the interpolant is least accurate; with local error O(h^5) of
    // the continuous extension and O(h^5) global error, the midpoint error is O(h^5).
    const Model model = harmonic_oscillator();
    const std::vector<double> steps{0.4, 0.2, 0.1, 0.05};
    std::vector<double> errors;
    for (double h : steps) {
        Dopri5 dopri5(model);
        State s = model.zero_state();
        s.q[0] = 1.0;
        State mid = s;
        double largest = 0.0;
        while (s.t < 10.0 - 1e-12) {
            dopri5.step(s, h);
            dopri5.interpolate(s.t - 0.5 * h, mid);
            double q = 0, v = 0;
            harmonic_solution(1.0, 1.0, 0.0, mid.t, q, v);
            largest = std::max(largest, std::abs(mid.q[0] - q));
        }
        errors.push_back(largest);
    }
    const double p = observed_order(steps, errors);
    INFO("observed order " << p);
    CHECK(std::abs(p - 5.0) < 0.2);
}

TEST_CASE("DOPRI5 integrates first-order states to the tolerance") {
    const double a = 0.5;
    const Model model = oscillator_with_filter(a);
    Dopri5 dopri5(model, Dopri5Options{1e-10, 1e-10});
    State s = model.zero_state();
    s.q[0] = 1.0;
    s.x[0] = 0.2;
    integrate_adaptive(dopri5, s, 10.0, [](const State&) {});
    CHECK(std::abs(s.x[0] - filter_solution(a, 0.2, 10.0)) < 1e-9);
    CHECK(std::abs(s.q[0] - std::cos(10.0)) < 1e-9);
}

TEST_CASE("DOPRI5 at tight tolerance reproduces Q(1) of the averaged inverted pendulum") {
    // the reproduction settings of docs/hmm.md: Q(1) = 0.168561190029 to 12 digits, Q(0) = 0.5,
    // P(0) = 0.
    const Model model = averaged_kapitza();
    Dopri5 dopri5(model, Dopri5Options{1e-13, 1e-13});
    State s = model.zero_state();
    s.q[0] = 0.5;
    integrate_adaptive(dopri5, s, 1.0, [](const State&) {});
    CHECK(s.t == 1.0);
    CHECK(std::abs(s.q[0] - 0.168561190029) < 1e-12);
}

TEST_CASE("DOPRI5 reports step-size underflow at a blow-up, with time and variable") {
    // q'' = 2 q^3, q(0) = 1, q'(0) = 1: q = 1/(1 - t) blows up at t = 1.
    const Model model = blow_up();
    Dopri5 dopri5(model, Dopri5Options{1e-8, 1e-8});
    State s = model.zero_state();
    s.q[0] = 1.0;
    s.v[0] = 1.0;
    try {
        integrate_adaptive(dopri5, s, 2.0, [](const State&) {});
        FAIL("no failure reported");
    } catch (const NumericalFailure& e) {
        INFO(e.what());
        CHECK(e.kind() == FailureKind::step_size_underflow);
        CHECK(e.method() == "dopri5");
        CHECK(std::abs(e.time() - 1.0) < 1e-6);
        CHECK((e.where() == "q" || e.where() == "der(q)"));
        CHECK(std::string(e.what()).rfind("dopri5: step size underflow at t = 0.99999", 0) == 0);
    }
}

TEST_CASE("DOPRI5 stops after max_steps with too_many_steps") {
    const Model model = harmonic_oscillator();
    Dopri5Options options{1e-10, 1e-10};
    options.max_steps = 20;
    Dopri5 dopri5(model, options);
    State s = model.zero_state();
    s.q[0] = 1.0;
    CHECK_THROWS_MATCHES(integrate_adaptive(dopri5, s, 100.0, [](const State&) {}),
                         NumericalFailure,
                         Catch::Predicate<NumericalFailure>([](const NumericalFailure& e) {
                             return e.kind() == FailureKind::too_many_steps;
                         }));
}
