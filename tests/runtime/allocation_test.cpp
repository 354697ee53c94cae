// The stepping loops allocate nothing: every stepper preallocates its work vectors. Counted
// by allocation_counter.cpp (malloc wrapped at link time, operator new replaced).
#include "runtime/integrate.hpp"
#include "runtime/integrators/dopri5.hpp"
#include "runtime/integrators/generalized_alpha.hpp"
#include "runtime/integrators/leapfrog.hpp"
#include "runtime/integrators/newmark.hpp"
#include "runtime/integrators/rattle.hpp"
#include "runtime/integrators/rk4.hpp"
#include "runtime/integrators/shake.hpp"
#include "runtime/integrators/stormer.hpp"
#include "runtime/integrators/verlet.hpp"
#include "runtime/output/csv_writer.hpp"

#include "allocation_counter.hpp"
#include "test_models.hpp"

#include <catch2/catch.hpp>
#include <fstream>

using namespace mdl::runtime;
using namespace mdl::runtime::test;
using mdl::test::allocations_in;

namespace {

// Allocations during `steps` steps after one warm-up step (which sizes the memory of the
// state the stepper remembers).
template <class Stepper>
std::size_t allocations_while_stepping(Stepper& stepper, State s, double h, int steps = 50) {
    stepper.step(s, h);
    return allocations_in([&] {
        for (int k = 0; k < steps; ++k) {
            stepper.step(s, h);
        }
    });
}

} // namespace

TEST_CASE("the counter sees Eigen's allocations") {
    Vector v;
    CHECK(allocations_in([&] { v = Vector::Zero(100); }) == 1);
    CHECK(v.size() == 100);
}

TEST_CASE("explicit steppers step without allocating") {
    const Model oscillator = harmonic_oscillator();
    State s = oscillator.zero_state();
    s.q[0] = 1.0;
    VelocityVerlet verlet(oscillator);
    Leapfrog leapfrog(oscillator);
    Stormer stormer(oscillator);
    CHECK(allocations_while_stepping(verlet, s, 0.01) == 0);
    CHECK(allocations_while_stepping(leapfrog, s, 0.01) == 0);
    CHECK(allocations_while_stepping(stormer, s, 0.01) == 0);

    const Model body = seated_human_body(seated_body_parameters()); // velocity dependent
    VelocityVerlet damped_verlet(body);
    Leapfrog damped_leapfrog(body);
    CHECK(allocations_while_stepping(damped_verlet, body.zero_state(), 1e-3) == 0);
    CHECK(allocations_while_stepping(damped_leapfrog, body.zero_state(), 1e-3) == 0);

    const Model filtered = oscillator_with_filter(0.5); // first-order states
    State f = filtered.zero_state();
    f.q[0] = 1.0;
    RungeKutta4 rk4(filtered);
    Dopri5 dopri5(filtered);
    CHECK(allocations_while_stepping(rk4, f, 0.01) == 0);
    CHECK(allocations_while_stepping(dopri5, f, 0.01) == 0);
}

TEST_CASE("adaptive DOPRI5 with dense output does not allocate per step") {
    const Model filtered = oscillator_with_filter(0.5);
    State s = filtered.zero_state();
    s.q[0] = 1.0;
    Dopri5 dopri5(filtered, Dopri5Options{1e-10, 1e-10});
    State out = s;
    double h = dopri5.initial_step(s, 10.0);
    dopri5.try_step(s, h);
    CHECK(allocations_in([&] {
              for (int k = 0; k < 50; ++k) {
                  if (dopri5.try_step(s, h)) {
                      dopri5.interpolate(0.5 * (dopri5.step_begin() + dopri5.step_end()), out);
                  }
              }
          }) == 0);
}

TEST_CASE("constrained and implicit steppers step without allocating") {
    const Model pendulum = double_pendulum(1.0, 0.5, 1.0, 0.7, 9.81);
    const State s = double_pendulum_state(pendulum, 1.2, -0.5, 0.0, 1.0);
    Shake shake(pendulum);
    Rattle rattle(pendulum);
    Newmark newmark(pendulum);
    GeneralizedAlpha galpha(pendulum, 0.8);
    CHECK(allocations_while_stepping(shake, s, 0.005) == 0);
    CHECK(allocations_while_stepping(rattle, s, 0.005) == 0);
    CHECK(allocations_while_stepping(newmark, s, 0.005) == 0);
    CHECK(allocations_while_stepping(galpha, s, 0.005) == 0);

    const Model body = seated_human_body(seated_body_parameters());
    Newmark damped_newmark(body);
    GeneralizedAlpha damped_galpha(body, 0.5);
    CHECK(allocations_while_stepping(damped_newmark, body.zero_state(), 1e-3) == 0);
    CHECK(allocations_while_stepping(damped_galpha, body.zero_state(), 1e-3) == 0);
}

TEST_CASE("the driver and the CSV writer add no allocation per step") {
    const Model pendulum = double_pendulum(1.0, 0.5, 1.0, 0.7, 9.81);
    std::ofstream sink("/dev/null");
    CsvWriter writer(sink, pendulum);
    Rattle rattle(pendulum);
    State s = double_pendulum_state(pendulum, 1.2, -0.5, 0.0, 1.0);
    integrate_fixed(rattle, s, 0.01, 0.005, writer); // warm-up: sizes every buffer
    CHECK(allocations_in([&] { integrate_fixed(rattle, s, 1.0, 0.005, writer); }) == 0);
}
