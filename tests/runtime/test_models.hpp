// Hand-written kernels in the calling convention of kernel_abi.h (what the JIT emits), with
// their analytic or independently computed solutions, for the runtime's tests.
#pragma once

#include "runtime/integrate.hpp"
#include "runtime/model.hpp"

#include <cmath>
#include <cstddef>
#include <vector>

namespace mdl::runtime::test {

// Long runs (energy drift over 1e5 steps) take ~200x longer in the Debug + ASan build of CI;
// there the few expensive ones run 2e4 steps.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr std::size_t long_run_steps = 20000;
#else
inline constexpr std::size_t long_run_steps = 100000;
#endif

// m q'' = -k q; parameters {m, k}; potential k q^2 / 2.
Model harmonic_oscillator(double m = 1.0, double k = 1.0);
// q(t), v(t) of the harmonic oscillator (omega = sqrt(k/m)) from q0, v0 at t = 0.
void harmonic_solution(double omega, double q0, double v0, double t, double& q, double& v);

// m q'' = -k q - c v; parameters {m, c, k}; velocity dependent.
Model damped_oscillator(double m, double c, double k);
// Underdamped analytic solution (zeta = c / (2 sqrt(k m)) < 1).
void damped_solution(double m, double c, double k, double q0, double v0, double t, double& q,
                     double& v);

// Pendulum in its angle: m l^2 q'' = -m g l sin q; parameters {m, l, g}; potential
// m g l (1 - cos q). Nonlinear and conservative (energy-drift tests).
Model angle_pendulum(double m = 1.0, double l = 1.0, double g = 1.0);

// Harmonic oscillator (m = k = 1) driving a first-order state: x' = -a x + q.
// Parameters {a}. From q0 = 1, v0 = 0: q = cos t, x = C e^{-a t} + (a cos t + sin t)/(1+a^2).
Model oscillator_with_filter(double a);
double filter_solution(double a, double x0, double t);

// Two masses on a line, wall --k1-- m1 --k2-- m2: K = [[k1 + k2, -k2], [-k2, k2]];
// parameters {m1, m2, k1, k2}. With k2 >> k1 one mode is stiff.
Model two_frequency_chain(double m1, double m2, double k1, double k2);

// The seated human body of second-derivative-models-ge3 ("Introduction IV"):
// M x'' + C x' + K x = f, f = (0, 0, 0, F0 sin(Omega t)); parameters
// {M1, M2, M3, M4, k1, k2, k3, B1, B2, B3, F0, Omega}.
struct SeatedBody {
    double M1, M2, M3, M4, k1, k2, k3, B1, B2, B3, F0, Omega;
};
SeatedBody seated_body_parameters();
Model seated_human_body(const SeatedBody& p);

// Planar double pendulum in Cartesian coordinates q = (x1, y1, x2, y2), y up, gravity g:
// g1 = x1^2 + y1^2 - l1^2, g2 = (x2 - x1)^2 + (y2 - y1)^2 - l2^2; curvature
// 2 (vx1^2 + vy1^2), 2 ((vx2 - vx1)^2 + (vy2 - vy1)^2); potential g (m1 y1 + m2 y2).
// Parameters {m1, m2, l1, l2, g}; constraints named rod1, rod2.
Model double_pendulum(double m1, double m2, double l1, double l2, double g);
// A consistent state: rod angles phi1, phi2 from the downward vertical, angular rates w1, w2.
State double_pendulum_state(const Model& model, double phi1, double phi2, double w1, double w2);

// Single pendulum in Cartesian coordinates (x, y), x^2 + y^2 = l^2, mass m, gravity g;
// parameters {m, l, g}. `duplicate` adds the same constraint twice (singular Jacobian).
Model cartesian_pendulum(double m, double l, double g, bool duplicate = false);

// q'' = 2 q^3: from q = 1, v = 1 the solution 1/(1 - t) blows up at t = 1.
Model blow_up();
// q1'' = -q1, q2'' = sqrt(q1): NaN as soon as q1 = cos t < 0, i.e. after t = pi/2.
Model square_root_of_cosine();
// q'' = exp(q): Newmark's implicit equation has no solution for large steps.
Model exponential_force();
// The averaged inverted pendulum (hmm-mechanical-vibrations eq. 2.5-2.6, the reproduction settings
// of docs/hmm.md): Q'' = (g/l - vmax^2/(2 l^2) cos Q) sin Q, l = 0.2, g = 9.8, vmax = 4.
Model averaged_kapitza();

// Integrates with a fixed step and no observer.
template <class Stepper>
void advance(Stepper& stepper, State& s, double t_end, double h) {
    integrate_fixed(stepper, s, t_end, h, [](const State&) {});
}

// Least-squares slope of log(error) against log(h).
double observed_order(const std::vector<double>& steps, const std::vector<double>& errors);

} // namespace mdl::runtime::test

namespace mdl::runtime::test {

// Error at T = max(|q - q_exact|, |v - v_exact|) for each step size, starting from q0 = 1,
// v0 = 0 at t = 0, for a stepper built by make(model) on the given model.
template <class Make, class Exact>
std::vector<double> errors_at(const Model& model, Make&& make, Exact&& exact, double T,
                              const std::vector<double>& steps) {
    std::vector<double> errors;
    for (double h : steps) {
        auto stepper = make(model);
        State s = model.zero_state();
        s.q[0] = 1.0;
        advance(stepper, s, T, h);
        double q = 0.0, v = 0.0;
        exact(T, q, v);
        errors.push_back(std::max(std::abs(s.q[0] - q), std::abs(s.v[0] - v)));
    }
    return errors;
}

// The observed order on the harmonic oscillator (omega = 1) and on the damped oscillator
// (m = 1, c = 0.2, k = 1: zeta = 0.1), both from q = 1, v = 0 over 0 <= t <= 10.
template <class Make>
double order_on_harmonic_oscillator(Make&& make, const std::vector<double>& steps) {
    const Model model = harmonic_oscillator();
    const auto errors = errors_at(
        model, make,
        [](double t, double& q, double& v) { harmonic_solution(1.0, 1.0, 0.0, t, q, v); }, 10.0,
        steps);
    return observed_order(steps, errors);
}

template <class Make>
double order_on_damped_oscillator(Make&& make, const std::vector<double>& steps) {
    const Model model = damped_oscillator(1.0, 0.2, 1.0);
    const auto errors = errors_at(
        model, make,
        [](double t, double& q, double& v) { damped_solution(1.0, 0.2, 1.0, 1.0, 0.0, t, q, v); },
        10.0, steps);
    return observed_order(steps, errors);
}

// Largest |E - E0| in each of `windows` equal parts of a run of the angle pendulum from
// phi = 1.5 rad at rest (m = l = g = 1), `steps` steps of size h.
template <class Stepper>
std::vector<double> energy_error_by_window(Stepper& stepper, const Model& model, double h,
                                           std::size_t steps, std::size_t windows) {
    State s = model.zero_state();
    s.q[0] = 1.5;
    const Vector none;
    const double e0 = model.energy(0.0, s.q, s.v, none);
    std::vector<double> largest(windows, 0.0);
    const std::size_t per_window = steps / windows;
    for (std::size_t k = 0; k < steps; ++k) {
        stepper.step(s, h);
        const double e = model.energy(s.t, s.q, s.v, none);
        double& w = largest[k / per_window];
        w = std::max(w, std::abs(e - e0));
    }
    return largest;
}

} // namespace mdl::runtime::test

namespace mdl::runtime::test {

// The Cartesian pendulum (m = l = g = 1) released at rest from angle theta0 (from the
// downward vertical), at time T: x = sin theta, y = -cos theta, from the angle equation
// theta'' = -sin theta integrated independently (DOPRI5, tolerance 1e-13).
State cartesian_pendulum_reference(const Model& cartesian, double theta0, double T);
State cartesian_pendulum_start(const Model& cartesian, double theta0);

// Error at T of a constrained stepper on the Cartesian pendulum from theta0 = 1, for each h.
template <class Make>
std::vector<double> cartesian_pendulum_errors(Make&& make, const std::vector<double>& steps,
                                              double T = 5.0) {
    const Model model = cartesian_pendulum(1.0, 1.0, 1.0);
    const State reference = cartesian_pendulum_reference(model, 1.0, T);
    std::vector<double> errors;
    for (double h : steps) {
        auto stepper = make(model);
        State s = cartesian_pendulum_start(model, 1.0);
        advance(stepper, s, T, h);
        errors.push_back(std::max((s.q - reference.q).cwiseAbs().maxCoeff(),
                                  (s.v - reference.v).cwiseAbs().maxCoeff()));
    }
    return errors;
}

} // namespace mdl::runtime::test
