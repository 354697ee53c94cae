// The n-link pendulum in joint angles (models/n_link_pendulum.mdl, an array model: kinetic
// energy and potential written with sums over the links): mdl's accelerations at random
// states against two independent computations, to 1e-10 relative,
//  - the closed form of the point-mass chain, M_ij = mu_ij l_i l_j cos(phi_i - phi_j) and
//    Lagrange's terms -mu_ij l_i l_j sin(phi_i - phi_j) phi_j'^2 - g mu_ii l_i sin(phi_i), with
//    mu_ij = sum_{k >= max(i, j)} m_k (e.g. Goldstein, Poole & Safko, Classical Mechanics,
//    3rd ed., sect. 1.6, extended link by link), solved by Eigen's pivoted LU;
//  - sympy.physics.mechanics' LagrangesMethod + lambdify on the same chain built from
//    points and particles (bench/sympy_n_link_pendulum.py, run through python3; the test says
//    so and checks only the closed form where python3 or sympy is missing).
#include "mdl/compiled_model.hpp"
#include "runtime/run.hpp"
#include "shipped_model.hpp"

#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numbers>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace mdl;

namespace {

// The parameters bench/sympy_n_link_pendulum.py uses: m_k = 1 + k/10, l_k = 1 - k/(4 n).
struct Chain {
    int n;
    std::vector<double> m, l;
    double g = 9.81;
    explicit Chain(int links) : n(links) {
        for (int k = 1; k <= n; ++k) {
            m.push_back(1.0 + k / 10.0);
            l.push_back(1.0 - k / (4.0 * n));
        }
    }
    // sum_{k >= max(i, j)} m_k (0-based i, j)
    double mu(int i, int j) const {
        double total = 0.0;
        for (int k = std::max(i, j); k < n; ++k) {
            total += m[static_cast<std::size_t>(k)];
        }
        return total;
    }
    Eigen::MatrixXd mass(const Eigen::VectorXd& q) const {
        Eigen::MatrixXd M(n, n);
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) {
                M(i, j) = mu(i, j) * l[static_cast<std::size_t>(i)] *
                          l[static_cast<std::size_t>(j)] * std::cos(q[i] - q[j]);
            }
        }
        return M;
    }
    Eigen::VectorXd accelerations(const Eigen::VectorXd& q, const Eigen::VectorXd& u) const {
        Eigen::VectorXd f(n);
        for (int i = 0; i < n; ++i) {
            const double li = l[static_cast<std::size_t>(i)];
            f[i] = -g * mu(i, i) * li * std::sin(q[i]);
            for (int j = 0; j < n; ++j) {
                f[i] -= mu(i, j) * li * l[static_cast<std::size_t>(j)] * std::sin(q[i] - q[j]) *
                        u[j] * u[j];
            }
        }
        return mass(q).partialPivLu().solve(f);
    }
};

test::LoadedModel compile_chain(const Chain& chain) {
    CompileOptions options;
    options.structural_parameters = {{"n", chain.n}};
    CompiledModel compiled = compile_file(test::shipped_model_path("n_link_pendulum.mdl"), options);
    for (int k = 1; k <= chain.n; ++k) {
        compiled.set_parameter("m[" + std::to_string(k) + "]",
                               chain.m[static_cast<std::size_t>(k - 1)]);
        compiled.set_parameter("l[" + std::to_string(k) + "]",
                               chain.l[static_cast<std::size_t>(k - 1)]);
    }
    return test::LoadedModel(std::move(compiled));
}

struct Sample {
    int n;
    Eigen::VectorXd q, u, a; // a: mdl's accelerations
};

std::vector<Sample> samples_of(const Chain& chain, int count, std::mt19937_64& rng) {
    const test::LoadedModel loaded = compile_chain(chain);
    REQUIRE_FALSE(loaded.compiled.mass_constant());
    REQUIRE(loaded.model.positions() == chain.n);
    std::uniform_real_distribution<double> angle(-std::numbers::pi, std::numbers::pi);
    std::uniform_real_distribution<double> rate(-2.0, 2.0);
    std::vector<Sample> out;
    const Eigen::VectorXd none(0), theta(0);
    for (int s = 0; s < count; ++s) {
        Sample sample{chain.n, Eigen::VectorXd(chain.n), Eigen::VectorXd(chain.n),
                      Eigen::VectorXd(chain.n)};
        for (int i = 0; i < chain.n; ++i) {
            sample.q[i] = angle(rng);
            sample.u[i] = rate(rng);
        }
        // what every integrator calls: M(q)^-1 f(q, v), M from the mass_matrix kernel
        loaded.model.acceleration(0.0, sample.q, sample.u, none, theta, sample.a);
        // M itself, entry by entry
        runtime::Matrix M;
        loaded.model.mass_matrix(sample.q, M);
        const Eigen::MatrixXd expected = chain.mass(sample.q);
        CHECK((M - expected).cwiseAbs().maxCoeff() <= 1e-14 * expected.cwiseAbs().maxCoeff());
        out.push_back(std::move(sample));
    }
    return out;
}

double relative_difference(const Eigen::VectorXd& a, const Eigen::VectorXd& reference) {
    return (a - reference).cwiseAbs().maxCoeff() / reference.cwiseAbs().maxCoeff();
}

bool sympy_available() {
    return std::system("python3 -c 'import sympy.physics.mechanics' >/dev/null 2>&1") == 0;
}

} // namespace

TEST_CASE("n-link pendulum in joint angles: accelerations equal the closed form to 1e-10") {
    std::mt19937_64 rng(2323);
    for (int n : {2, 3, 4, 5, 6, 10, 20}) {
        const Chain chain(n);
        for (const Sample& s : samples_of(chain, 20, rng)) {
            const Eigen::VectorXd reference = chain.accelerations(s.q, s.u);
            INFO("n = " << n << ", q = " << s.q.transpose() << ", u = " << s.u.transpose());
            CHECK(relative_difference(s.a, reference) <= 1e-10);
        }
    }
}

TEST_CASE("n-link pendulum in joint angles: accelerations equal sympy's LagrangesMethod to "
          "1e-10") {
    if (!sympy_available()) {
        WARN("python3 with sympy not found: the comparison with sympy.physics.mechanics is "
             "skipped (the closed-form test still checks the accelerations)");
        return;
    }
    std::mt19937_64 rng(1923);
    std::vector<Sample> all;
    for (int n = 2; n <= 6; ++n) {
        for (Sample& s : samples_of(Chain(n), 5, rng)) {
            all.push_back(std::move(s));
        }
    }
    const std::string stem = std::string(MDL_BINARY_DIR) + "/n_link_pendulum_sympy_" +
                             std::to_string(static_cast<long long>(rng() % 1000000));
    {
        std::ofstream states(stem + ".in");
        states.precision(17);
        for (const Sample& s : all) {
            states << s.n;
            for (int i = 0; i < s.n; ++i) {
                states << ' ' << s.q[i];
            }
            for (int i = 0; i < s.n; ++i) {
                states << ' ' << s.u[i];
            }
            states << '\n';
        }
    }
    const std::string command = "python3 '" + std::string(MDL_SOURCE_DIR) +
                                "/bench/sympy_n_link_pendulum.py' accelerations < '" + stem +
                                ".in' > '" + stem + ".out'";
    const int status = std::system(command.c_str());
    REQUIRE(status == 0);
    std::ifstream results(stem + ".out");
    std::string line;
    std::size_t compared = 0;
    for (const Sample& s : all) {
        REQUIRE(std::getline(results, line));
        std::istringstream fields(line);
        Eigen::VectorXd reference(s.n);
        for (int i = 0; i < s.n; ++i) {
            REQUIRE(fields >> reference[i]);
        }
        INFO("n = " << s.n << ", q = " << s.q.transpose() << ", u = " << s.u.transpose()
                    << "\nmdl:   " << s.a.transpose() << "\nsympy: " << reference.transpose());
        CHECK(relative_difference(s.a, reference) <= 1e-10);
        ++compared;
    }
    CHECK(compared == 25);
    std::remove((stem + ".in").c_str());
    std::remove((stem + ".out").c_str());
}

TEST_CASE("n-link pendulum in joint angles: the energy is conserved by dopri5") {
    // T + U of the closed form along the run of the shipped model (n = 4, its default start)
    const Chain chain(4);
    test::LoadedModel loaded = compile_chain(chain);
    runtime::State state = loaded.start();
    const auto energy = [&](const runtime::State& s) {
        const Eigen::MatrixXd M = chain.mass(s.q);
        double U = 0.0, y = 0.0;
        for (int k = 0; k < chain.n; ++k) {
            y -= chain.l[static_cast<std::size_t>(k)] * std::cos(s.q[k]);
            U += chain.m[static_cast<std::size_t>(k)] * chain.g * y;
        }
        return 0.5 * s.v.dot(M * s.v) + U;
    };
    const double E0 = energy(state);
    runtime::RunSettings settings;
    settings.method = runtime::Method::dopri5;
    settings.stop_time = 2.0;
    settings.step = 0.01;
    settings.adaptive.rtol = 1e-11;
    settings.adaptive.atol = 1e-12;
    double worst = 0.0;
    runtime::run(loaded.model, state, settings, [&](const runtime::State& s) {
        worst = std::max(worst, std::abs(energy(s) - E0));
    });
    CHECK(state.t == Catch::Detail::Approx(2.0));
    CHECK(worst <= 1e-8 * std::abs(E0));
}
