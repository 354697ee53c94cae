#include "runtime/integrators/generalized_alpha.hpp"

#include "../test_models.hpp"

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mdl::runtime;
using namespace mdl::runtime::test;

namespace {

// The one-step map (x, v, a)_n -> (x, v, a)_{n+1} of generalized-alpha on x'' = -omega^2 x,
// written out from the formulas of mechanical-systems-newmark-galpha Sect. 21.2
// (independently of the stepper):
//   (1 - am) a1 + am a0 = -w^2 ((1 - af) x1 + af x0),
//   x1 = x0 + h v0 + h^2 ((1/2 - b) a0 + b a1),  v1 = v0 + h ((1 - g) a0 + g a1).
Eigen::Matrix3d amplification(double rho, double omega_h) {
    const double am = (2 * rho - 1) / (rho + 1), af = rho / (rho + 1);
    const double b = 0.25 * (1 - am + af) * (1 - am + af), g = 0.5 - am + af;
    const double w2 = omega_h * omega_h; // h = 1, omega = omega_h
    const double d = (1 - am) + w2 * (1 - af) * b;
    // a1 = (-w2 x0 - w2 (1 - af) v0 - (am + w2 (1 - af)(1/2 - b)) a0) / d
    const Eigen::RowVector3d a1(-w2 / d, -w2 * (1 - af) / d, -(am + w2 * (1 - af) * (0.5 - b)) / d);
    Eigen::Matrix3d A;
    A.row(0) = Eigen::RowVector3d(1, 1, 0.5 - b) + b * a1;
    A.row(1) = Eigen::RowVector3d(0, 1, 1 - g) + g * a1;
    A.row(2) = a1;
    return A;
}

double spectral_radius(const Eigen::Matrix3d& A) {
    return Eigen::EigenSolver<Eigen::Matrix3d>(A).eigenvalues().cwiseAbs().maxCoeff();
}

} // namespace

TEST_CASE("Chung-Hulbert parameters follow Sect. 21.2") {
    // rho_inf = 1: alpha_m = 1/2, alpha_f = 1/2, beta = 1/4, gamma = 1/2 (no dissipation);
    // rho_inf = 0: alpha_m = -1, alpha_f = 0, beta = 1, gamma = 3/2 (asymptotic annihilation).
    const auto one = GeneralizedAlphaParameters::chung_hulbert(1.0);
    CHECK(one.alpha_m == 0.5);
    CHECK(one.alpha_f == 0.5);
    CHECK(one.beta == 0.25);
    CHECK(one.gamma == 0.5);
    const auto zero = GeneralizedAlphaParameters::chung_hulbert(0.0);
    CHECK(zero.alpha_m == -1.0);
    CHECK(zero.alpha_f == 0.0);
    CHECK(zero.beta == 1.0);
    CHECK(zero.gamma == 1.5);
    CHECK_THROWS_AS(GeneralizedAlphaParameters::chung_hulbert(1.5), std::invalid_argument);
}

TEST_CASE("generalized-alpha converges with order 2 for rho_inf = 0, 0.5, 0.9, 1") {
    const std::vector<double> steps{0.1, 0.05, 0.025, 0.0125};
    for (double rho : {0.0, 0.5, 0.9, 1.0}) {
        const auto make = [rho](const Model& m) {
            return GeneralizedAlpha(m, rho);
        };
        const double p = order_on_harmonic_oscillator(make, steps);
        const double d = order_on_damped_oscillator(make, steps);
        INFO("rho_inf " << rho << ": harmonic " << p << ", damped " << d);
        CHECK(std::abs(p - 2.0) < 0.1);
        CHECK(std::abs(d - 2.0) < 0.1);
    }
}

TEST_CASE("generalized-alpha damps the unresolved mode by rho_inf per step") {
    // Two masses, wall --k1-- m1 --k2-- m2 with k2 = 1e8: a slow mode (omega ~ 0.7) resolved
    // by h = 0.01 and a stiff one (omega ~ 1.4e4, omega h ~ 140). The stiff modal coordinate
    // must follow the amplification matrix of the paper's formulas step by step, whose
    // spectral radius tends to rho_inf as omega h grows; the slow mode stays accurate.
    const double m = 1.0, k1 = 1.0, k2 = 1e8, h = 0.01;
    const Model model = two_frequency_chain(m, m, k1, k2);
    Eigen::Matrix2d M, K;
    M << m, 0, 0, m;
    K << k1 + k2, -k2, -k2, k2;
    const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::Matrix2d> modes(K, M);
    const Eigen::Vector2d omega = modes.eigenvalues().cwiseSqrt();
    const Eigen::Matrix2d phi = modes.eigenvectors(); // M-orthonormal: phi^T M phi = I
    for (double rho : {0.0, 0.3, 0.8, 1.0}) {
        // The spectral radius tends to rho_inf as omega h grows (Sect. 21.2). Slowly: at
        // omega h = infinity the three roots coincide at -rho_inf (Chung & Hulbert's design),
        // a defective eigenvalue that a perturbation (omega h)^-2 moves by ~ (omega h)^(-2/3).
        const double omega_h = omega[1] * h;
        const Eigen::Matrix3d A = amplification(rho, omega_h);
        const double radius = spectral_radius(A);
        const double far = spectral_radius(amplification(rho, 1e5));
        INFO("rho_inf " << rho << ", omega h " << omega_h << ", spectral radius " << radius
                        << "; at omega h = 1e5: " << far);
        CHECK(std::abs(radius - rho) < 0.05);
        CHECK(std::abs(far - rho) < 1e-3);
        CHECK(std::abs(far - rho) < std::abs(radius - rho) + 1e-5); // 1e-5: eigenvalue round-off

        GeneralizedAlpha galpha(model, rho);
        State s = model.zero_state();
        // both modes excited: eta = (1, 1e-3) in modal coordinates
        s.q = phi * Eigen::Vector2d(1.0, 1e-3);
        const auto modal = [&](const Vector& y) {
            return (phi.transpose() * M * y).eval();
        };
        // the matrix acts on (x, h v, h^2 a) (it was written with h = 1)
        const auto stiff_mode = [&] {
            return Eigen::Vector3d(modal(s.q)[1], h * modal(s.v)[1],
                                   h * h * modal(galpha.acceleration())[1]);
        };
        galpha.step(s, h); // the first step starts from the true acceleration
        Eigen::Vector3d stiff = stiff_mode();
        const double size = stiff.cwiseAbs().maxCoeff();
        double largest = 0.0;
        for (int k = 0; k < 40; ++k) {
            const Eigen::Vector3d predicted = A * stiff;
            galpha.step(s, h);
            stiff = stiff_mode();
            largest = std::max(largest, (stiff - predicted).cwiseAbs().maxCoeff() / size);
        }
        INFO("largest deviation from the amplification matrix " << largest);
        CHECK(largest < 1e-8);
        // the slow mode: cos(omega_1 t) to second-order accuracy
        const double slow = modal(s.q)[0];
        CHECK(std::abs(slow - std::cos(omega[0] * s.t)) < 1e-4);
    }
}

TEST_CASE("constrained generalized-alpha: order 2 on the Cartesian pendulum, constraints held") {
    const std::vector<double> h{0.04, 0.02, 0.01, 0.005};
    for (double rho : {0.5, 0.9}) {
        const auto errors = cartesian_pendulum_errors(
            [rho](const Model& m) { return GeneralizedAlpha(m, rho); }, h);
        const double p = observed_order(h, errors);
        INFO("rho_inf " << rho << ": observed order " << p << ", error " << errors.back());
        CHECK(std::abs(p - 2.0) < 0.1);
    }
    const Model model = double_pendulum(1.0, 0.5, 1.0, 0.7, 9.81);
    ImplicitOptions options;
    options.solver.constraint_tolerance = 1e-12;
    GeneralizedAlpha galpha(model, 0.8, options);
    State s = double_pendulum_state(model, 1.2, -0.5, 0.0, 1.0);
    Vector g(2);
    double position = 0.0;
    integrate_fixed(galpha, s, 5.0, 0.005, [&](const State& x) {
        model.constraint(x.q, g);
        position = std::max(position, g.cwiseAbs().maxCoeff());
    });
    CHECK(position <= 1e-12);
}

namespace {

// A hardening (Duffing) spring, F = -k x - k3 x^3 with p = {k, k3}: its stiffness
// k + 3 k3 x^2 runs from 1 to 3e4 and back each half period, so a Newton matrix held over
// steps goes stale and must be refreshed.
void duffing_mass(const mdl_kernel_args*, double* out) {
    out[0] = 1.0;
}
void duffing_force(const mdl_kernel_args* a, double* out) {
    const double x = a->q[0];
    out[0] = -a->p[0] * x - a->p[1] * x * x * x;
}
void duffing_force_dq(const mdl_kernel_args* a, double* out) {
    const double x = a->q[0];
    out[0] = -a->p[0] - 3.0 * a->p[1] * x * x;
}
void duffing_force_dv(const mdl_kernel_args*, double* out) {
    out[0] = 0.0;
}

Model duffing(double k, double k3) {
    mdl_kernels kernels;
    std::memset(&kernels, 0, sizeof kernels);
    kernels.n_positions = 1;
    kernels.n_parameters = 2;
    kernels.mass = duffing_mass;
    kernels.force = duffing_force;
    kernels.force_dq = duffing_force_dq;
    kernels.force_dv = duffing_force_dv;
    return Model(kernels, {k, k3}, {"duffing", {"x"}, {}, {}, {"k", "k3"}});
}

// Generalized-alpha on x'' = -k x - k3 x^3 written out independently of the stepper (the
// formulas of generalized_alpha.hpp's header), the scalar equation for a_{n+1} solved by
// Newton's method to round-off: g(a) = (1 - am) a + am a_n + k x_af + k3 x_af^3 is
// increasing in a, and Newton's iterates are stopped only once they no longer change.
struct ScalarGeneralizedAlpha {
    GeneralizedAlphaParameters p;
    double k, k3;
    double x, v, a;
    void step(double h) {
        const auto x_next = [&](double a1) {
            return x + h * v + h * h * ((0.5 - p.beta) * a + p.beta * a1);
        };
        double a1 = a;
        for (int i = 0; i < 100; ++i) {
            const double xa = (1.0 - p.alpha_f) * x_next(a1) + p.alpha_f * x;
            const double g = (1.0 - p.alpha_m) * a1 + p.alpha_m * a + k * xa + k3 * xa * xa * xa;
            const double dg =
                (1.0 - p.alpha_m) + (k + 3.0 * k3 * xa * xa) * (1.0 - p.alpha_f) * p.beta * h * h;
            const double next = a1 - g / dg;
            if (next == a1) {
                break;
            }
            a1 = next;
        }
        const double x1 = x_next(a1);
        v += h * ((1.0 - p.gamma) * a + p.gamma * a1);
        x = x1;
        a = a1;
    }
};

} // namespace

TEST_CASE("modified Newton refreshes a stale matrix and converges to Newton's tolerance") {
    // x(0) = 1 on the hardening spring: omega ~ 85, h = 0.02 (omega h ~ 1.7), 3 periods. The
    // term (1 - alpha_f) beta h^2 dF/dx of Newton's matrix ranges over 1e-4 ... 4, so the
    // matrix of one step is far from the next's near x = +-1. Each step's a_{n+1} is checked
    // against the scalar equation solved to round-off from the stepper's own (x, v, a)_n:
    // a residual below 1e-10 of the accelerations leaves an error below 1e-10 / (1 - alpha_m)
    // of them (dg/da >= 1 - alpha_m), and an accepted iterate that has not converged would
    // not.
    const double k = 1.0, k3 = 1e4, h = 0.02;
    const int steps = 300;
    const Model model = duffing(k, k3);
    for (double rho : {0.0, 0.8, 1.0}) {
        const GeneralizedAlphaParameters p = GeneralizedAlphaParameters::chung_hulbert(rho);
        for (bool reuse : {true, false}) {
            ImplicitOptions options;
            options.jacobian_reuse = reuse;
            GeneralizedAlpha galpha(model, rho, options);
            CHECK(galpha.jacobian_reuse() == reuse);
            State s = model.zero_state();
            s.q[0] = 1.0;
            ScalarGeneralizedAlpha trajectory{p, k, k3, 1.0, 0.0, -k - k3};
            double a_n = -k - k3;
            double largest = 0.0;    // |a_{n+1} - exact| relative to the accelerations
            double separation = 0.0; // of the trajectories
            int iterations = 0;
            for (int n = 0; n < steps; ++n) {
                ScalarGeneralizedAlpha one{p, k, k3, s.q[0], s.v[0], a_n};
                one.step(h);
                galpha.step(s, h);
                trajectory.step(h);
                iterations += galpha.newton_iterations();
                const double a = galpha.acceleration()[0];
                const double size = std::max(
                    {std::abs(one.a), std::abs((1.0 - p.alpha_m) * one.a + p.alpha_m * a_n)});
                largest = std::max(largest, std::abs(a - one.a) / size);
                separation = std::max(separation, std::abs(s.q[0] - trajectory.x));
                a_n = a;
            }
            const auto evaluations = static_cast<int>(galpha.jacobian_evaluations());
            INFO("rho_inf " << rho << ", reuse " << reuse << ": largest error of a_{n+1} "
                            << largest << ", trajectories apart by " << separation << ", "
                            << iterations << " Newton updates, " << evaluations << " Jacobians");
            // 1.2: the residual's scale at the iterate and its round-off allowance
            CHECK(largest < 1.2e-10 / (1.0 - p.alpha_m));
            CHECK(separation < 1e-6);            // the one-step errors propagated over 3 periods
            CHECK(std::abs(trajectory.x) > 0.1); // still oscillating with amplitude ~ 1
            if (reuse) {
                CHECK(evaluations > 10);         // refreshed where the stiffness changed
                CHECK(evaluations < iterations); // and held where it did not
            } else {
                CHECK(evaluations == iterations); // Newton: one per update
            }
        }
    }
}
