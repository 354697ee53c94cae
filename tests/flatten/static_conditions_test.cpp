// Conditions known when the model is flattened (loop variables, Integer parameters, numbers)
// select their branch before the other is flattened: a chain with free ends written with
// `if i > 1 then q[i-1] else ...` compiles, and moves as the closed-form modal solution of the
// free-free spring chain, whose natural frequencies are 2 sqrt(k/m) sin(j pi / (2 n)),
// j = 0..n-1, with the mode shapes cos(j pi (i - 1/2) / n) (e.g. Strang, Introduction to
// Applied Mathematics, Wellesley-Cambridge 1986, sect. 2.2: the free-free second difference).
#include "runtime/integrate.hpp"
#include "runtime/integrators/rk4.hpp"
#include "shipped_model.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fmt/format.h>
#include <string>
#include <vector>

using namespace mdl;
using mdl::test::LoadedModel;

namespace {

constexpr int n = 6;
constexpr double k = 4, m = 1.5, a0 = 0.1, v0 = 0.05, a1 = 0.3, a3 = -0.2;

// The start: a translation, the rigid drift v0, and modes 1 and 3.
const char* start_values = "start = {a0 + a1*cos(pi*(i - 0.5)/n) + a3*cos(3*pi*(i - 0.5)/n) "
                           "for i in 1:n}, each vstart = v0";

std::string header(const char* name) {
    return fmt::format("model {}\n  parameter Integer n = {};\n  parameter Real k = {}, m = {}, "
                       "a0 = {}, v0 = {}, a1 = {}, a3 = {};\n",
                       name, n, k, m, a0, v0, a1, a3);
}

// The issue's form: the neighbours that exist, selected by conditions on the loop variable.
std::string if_chain() {
    return header("FreeChain") + fmt::format("  coordinate q[n]({});\nequation\n", start_values) +
           "  for i in 1:n loop\n"
           "    m*der(der(q[i])) = k*((if i < n then q[i+1] else q[i]) - 2*q[i]\n"
           "                          + (if i > 1 then q[i-1] else q[i]));\n"
           "  end for;\nend FreeChain;\n";
}

// An elseif chain on the loop variable and an Integer parameter.
std::string elseif_chain() {
    return header("FreeChain") + fmt::format("  coordinate q[n]({});\nequation\n", start_values) +
           "  for i in 1:n loop\n"
           "    m*der(der(q[i])) = k*(if i == 1 then q[2] - q[1]\n"
           "                          elseif i == n then q[n-1] - q[n]\n"
           "                          else q[i+1] - 2*q[i] + q[i-1]);\n"
           "  end for;\nend FreeChain;\n";
}

// Two chains in one array from nested loops; the conditions use both loop variables.
std::string nested_chains() {
    return header("TwoChains") +
           "  coordinate q[2*n](start = {a0 + a1*cos(pi*((if i > n then i - n else i) - 0.5)/n)\n"
           "      + a3*cos(3*pi*((if i > n then i - n else i) - 0.5)/n) for i in 1:2*n},\n"
           "                    each vstart = v0);\n"
           "equation\n"
           "  for c in 0:1 loop\n"
           "    for i in 1:n loop\n"
           "      m*der(der(q[c*n + i])) = k*((if i < n and c >= 0 then q[c*n + i + 1] else 0)\n"
           "        - (if i == 1 or i == n then 1 else 2)*q[c*n + i]\n"
           "        + (if not (i == 1) then q[c*n + i - 1] else 0));\n"
           "    end for;\n"
           "  end for;\nend TwoChains;\n";
}

double mode(int j, int i) { // mass i = 1..n
    return std::cos(j * M_PI * (i - 0.5) / n);
}

double omega(int j) {
    return 2 * std::sqrt(k / m) * std::sin(j * M_PI / (2 * n));
}

double closed_form(int i, double t) {
    return a0 + v0 * t + a1 * mode(1, i) * std::cos(omega(1) * t) +
           a3 * mode(3, i) * std::cos(omega(3) * t);
}

// Largest deviation of q from the modal solution over [0, 3] (RK4, h = 1e-3).
double deviation(const LoadedModel& model) {
    runtime::RungeKutta4<> rk4(model.model);
    runtime::State s = model.start();
    const auto size = static_cast<int>(s.q.size());
    double worst = 0;
    runtime::integrate_fixed(rk4, s, 3.0, 1e-3, [&](const runtime::State& x) {
        for (int p = 0; p < size; ++p) {
            worst = std::max(worst, std::fabs(x.q[p] - closed_form(p % n + 1, x.t)));
        }
    });
    return worst;
}

// The squared natural frequencies: eigenvalues of K/m, K = -df/dq (the force is linear).
std::vector<double> squared_frequencies(const LoadedModel& model) {
    runtime::State s = model.start();
    const auto size = s.q.size();
    runtime::Vector q = runtime::Vector::Zero(size), f(size), f0(size), theta(0);
    model.model.force(0.0, q, s.v, s.x, theta, f0);
    Eigen::MatrixXd stiffness(size, size);
    for (Eigen::Index j = 0; j < size; ++j) {
        q.setZero();
        q[j] = 1;
        model.model.force(0.0, q, s.v, s.x, theta, f);
        stiffness.col(j) = -(f - f0) / m;
    }
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(stiffness);
    std::vector<double> out(eigen.eigenvalues().data(),
                            eigen.eigenvalues().data() + eigen.eigenvalues().size());
    return out;
}

} // namespace

TEST_CASE("a free-free chain written with if on the loop variable moves as its modes") {
    for (const std::string& text : {if_chain(), elseif_chain()}) {
        LoadedModel chain(compile(text, "free_chain.mdl"));
        REQUIRE(chain.compiled.position_names().size() == n);
        auto w2 = squared_frequencies(chain);
        for (int j = 0; j < n; ++j) {
            CHECK(w2[static_cast<std::size_t>(j)] == Approx(omega(j) * omega(j)).margin(1e-12));
        }
        CHECK(deviation(chain) < 1e-9);
    }
}

TEST_CASE("conditions on the variables of nested loops select their branch") {
    LoadedModel chains(compile(nested_chains(), "two_chains.mdl"));
    REQUIRE(chains.compiled.position_names().size() == 2 * n);
    auto w2 = squared_frequencies(chains);
    for (int j = 0; j < 2 * n; ++j) { // each frequency twice
        CHECK(w2[static_cast<std::size_t>(j)] == Approx(omega(j / 2) * omega(j / 2)).margin(1e-12));
    }
    CHECK(deviation(chains) < 1e-9);
}

TEST_CASE("an out-of-range index in the branch taken is still a located error") {
    const char* text = R"(model Bad
  parameter Integer n = 3;
  coordinate q[n](each m = 1);
  potential U = sum(if i > 1 then (q[i] - q[i-2])^2 else q[i]^2 for i in 1:n);
end Bad;
)";
    try {
        (void)compile(text, "bad.mdl");
        FAIL("compiled q[0]");
    } catch (const CompileError& e) {
        CHECK_THAT(std::string(e.what()),
                   Catch::Contains("bad.mdl:4:45: error: index 0 is out of range for 'q'"));
    }
    // a condition decided at run time keeps both branches: q[0] in either is an error
    const char* run_time = R"(model Bad
  parameter Integer n = 3;
  parameter Real c = 1;
  coordinate q[n](each m = 1);
  potential U = sum(if c > 0 then q[i]^2 else q[i-1]^2 for i in 1:n);
end Bad;
)";
    CHECK_THROWS_WITH(compile(run_time, "bad.mdl"),
                      Catch::Contains("bad.mdl:5:49: error: index 0 is out of range for 'q'"));
}
