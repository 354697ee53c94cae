// The Duffing oscillator's frequency response x'' + 0.05 x' + x + 0.1 x^3 = 0.18 cos(Omega t)
// by pseudo-arclength continuation (runtime/analysis/continuation.hpp), against references
// computed here: every stable point against a long direct run of an RK4 written in the test
// (sweeping Omega up and down, so that both stable responses between the folds are reached),
// the unstable points as fixed points of the test's own period map with an eigenvalue > 1,
// and the folds and the peak against single-harmonic balance within its accuracy.
#include "runtime/analysis/continuation.hpp"
#include "shipped_model.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

using mdl::runtime::Vector;
using mdl::runtime::analysis::Branch;
using mdl::runtime::analysis::BranchPoint;

namespace {

constexpr double pi = 3.14159265358979323846;
constexpr double c = 0.05, beta = 0.1, F = 0.18;

// The test's period map: classical RK4 with `steps` steps over 2 pi/Omega from t = 0.
Eigen::Vector2d period_map(Eigen::Vector2d y, double omega, int steps) {
    const auto f = [omega](double t, const Eigen::Vector2d& z) {
        return Eigen::Vector2d(z[1], -c * z[1] - z[0] - beta * z[0] * z[0] * z[0] +
                                         F * std::cos(omega * t));
    };
    const double h = 2 * pi / omega / steps;
    for (int i = 0; i < steps; ++i) {
        const double t = i * h;
        const Eigen::Vector2d k1 = f(t, y), k2 = f(t + h / 2, y + h / 2 * k1),
                              k3 = f(t + h / 2, y + h / 2 * k2), k4 = f(t + h, y + h * k3);
        y += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
    }
    return y;
}

// The period map to ~1e-13: RK4 with 800 and 1600 steps, Richardson-extrapolated (order 5).
Eigen::Vector2d accurate_map(const Eigen::Vector2d& y, double omega) {
    return (16 * period_map(y, omega, 1600) - period_map(y, omega, 800)) / 15;
}

// The direct run's steady state: the period map iterated until the motion settles on an
// attractor (change per period below 1e-7), then polished by Newton's method on the same map
// (central differences), which converges to that attractor's fixed point where plain
// iteration would take thousands of periods next to a fold (multiplier near 1).
Eigen::Vector2d settle(Eigen::Vector2d y, double omega) {
    for (int k = 0; k < 20000; ++k) {
        const Eigen::Vector2d next = period_map(y, omega, 200);
        const double change = (next - y).cwiseAbs().maxCoeff();
        y = next;
        if (change < 1e-7) {
            break;
        }
    }
    for (int k = 0; k < 4; ++k) {
        Eigen::Matrix2d J;
        for (int j = 0; j < 2; ++j) {
            Eigen::Vector2d e = Eigen::Vector2d::Zero();
            e[j] = 1e-6;
            J.col(j) = (accurate_map(y + e, omega) - accurate_map(y - e, omega)) / 2e-6;
        }
        y -= (J - Eigen::Matrix2d::Identity()).lu().solve(accurate_map(y, omega) - y);
    }
    return y;
}

// Single-harmonic balance, x = a cos(Omega t - phi): for each a the two roots w = Omega^2 of
// a^2 w^2 + (c^2 a^2 - 2 a^2 - 2 a kappa) w + (a + kappa)^2 - F^2 = 0, kappa = 3/4 beta a^3.
struct HarmonicBalance {
    static double discriminant(double a) {
        const double kappa = 0.75 * beta * a * a * a;
        const double A = a * a, B = c * c * a * a - 2 * a * a - 2 * a * kappa,
                     C = (a + kappa) * (a + kappa) - F * F;
        return B * B - 4 * A * C;
    }
    static double upper_root(double a) { // w+
        const double kappa = 0.75 * beta * a * a * a;
        const double A = a * a, B = c * c * a * a - 2 * a * a - 2 * a * kappa;
        return (-B + std::sqrt(std::max(0.0, discriminant(a)))) / (2 * A);
    }
    // the peak: the largest a with a real root (discriminant 0), by bisection
    static double peak_amplitude() {
        double lo = 1.0, hi = 10.0;
        for (int i = 0; i < 200; ++i) {
            const double mid = 0.5 * (lo + hi);
            (discriminant(mid) > 0 ? lo : hi) = mid;
        }
        return lo;
    }
    // an extremum of w+(a) in [lo, hi] by golden section (sign +1: maximum)
    static double extremum(double lo, double hi, double sign) {
        const double g = (std::sqrt(5.0) - 1) / 2;
        for (int i = 0; i < 200; ++i) {
            const double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
            if (sign * upper_root(x1) > sign * upper_root(x2)) {
                hi = x2;
            } else {
                lo = x1;
            }
        }
        return 0.5 * (lo + hi);
    }
};

const Branch& duffing_branch() {
    static const Branch branch = [] {
        auto loaded = mdl::test::ShippedModel("duffing_response.mdl");
        mdl::runtime::analysis::ContinuationOptions options;
        options.parameter = "Omega";
        options.from = 0.5;
        options.to = 2.0;
        options.ds_max = 0.05;
        const Vector zero = Vector::Zero(1);
        return mdl::runtime::analysis::continue_orbits(loaded.model, zero, zero, options);
    }();
    return branch;
}

std::vector<const BranchPoint*> labelled(const Branch& branch, const std::string& label) {
    std::vector<const BranchPoint*> found;
    for (const BranchPoint& p : branch.points) {
        if (p.label == label) {
            found.push_back(&p);
        }
    }
    return found;
}

} // namespace

TEST_CASE("the Duffing branch passes both folds and ends at the range's end",
          "[analysis][continuation]") {
    const Branch& branch = duffing_branch();
    INFO(branch.stop);
    REQUIRE(branch.points.size() > 40);
    CHECK(branch.points.front().label == "start");
    CHECK(branch.points.back().label == "end");
    CHECK(branch.points.back().parameter == Approx(2.0).epsilon(1e-14));
    const auto folds = labelled(branch, "fold");
    REQUIRE(folds.size() == 2);
    // the upper fold (jump down when sweeping up) comes first along the branch
    const BranchPoint& upper = *folds[0];
    const BranchPoint& lower = *folds[1];
    CHECK(upper.parameter > lower.parameter);
    // at a fold a real multiplier is +1
    for (const BranchPoint* fold : folds) {
        double closest = INFINITY;
        for (const auto& mu : fold->floquet.multipliers) {
            closest = std::min(closest, std::abs(mu - 1.0));
        }
        CHECK(closest < 1e-4);
    }
    // single-harmonic balance: the peak where its two roots meet, the folds at the extrema
    // of the right root; its error here is of the size of the third harmonic, ~1%
    const double a_peak = HarmonicBalance::peak_amplitude();
    const double a_upper = HarmonicBalance::extremum(1.0, a_peak, +1);
    const double a_lower = HarmonicBalance::extremum(0.3, a_upper, -1);
    CHECK(upper.parameter == Approx(std::sqrt(HarmonicBalance::upper_root(a_upper))).epsilon(0.01));
    CHECK(upper.amplitude[0] == Approx(a_upper).epsilon(0.03));
    CHECK(lower.parameter == Approx(std::sqrt(HarmonicBalance::upper_root(a_lower))).epsilon(0.01));
    CHECK(lower.amplitude[0] == Approx(a_lower).epsilon(0.03));
    const auto peaks = labelled(branch, "peak");
    REQUIRE(peaks.size() == 1);
    CHECK(peaks[0]->amplitude[0] == Approx(a_peak).epsilon(0.03));
    CHECK(peaks[0]->parameter ==
          Approx(std::sqrt(HarmonicBalance::upper_root(a_peak))).epsilon(0.01));
    // the peak is the largest amplitude of the branch
    for (const BranchPoint& p : branch.points) {
        CHECK(p.amplitude[0] <= peaks[0]->amplitude[0] * (1 + 1e-9));
    }
    // stable outside the folds, unstable between them on the middle branch
    bool middle = false;
    for (const BranchPoint& p : branch.points) {
        if (&p == &upper || &p == &lower) {
            middle = &p == &upper;
            continue;
        }
        if (p.label.empty()) {
            CHECK(p.floquet.stable == !middle);
        }
    }
}

TEST_CASE("every stable Duffing branch point is the steady state of a direct run",
          "[analysis][continuation][heavy]") {
    const Branch& branch = duffing_branch();
    std::vector<const BranchPoint*> stable, unstable;
    for (const BranchPoint& p : branch.points) {
        if (p.label.empty() || p.label == "start" || p.label == "end") {
            (p.floquet.stable ? stable : unstable).push_back(&p);
        }
    }
    REQUIRE(stable.size() > 20);
    REQUIRE(unstable.size() > 5);
    // sweep up from rest and down from rest, settling at each stable point's Omega
    std::vector<const BranchPoint*> order = stable;
    std::sort(order.begin(), order.end(), [](const BranchPoint* a, const BranchPoint* b) {
        return a->parameter < b->parameter;
    });
    std::vector<Eigen::Vector2d> up(order.size()), down(order.size());
    Eigen::Vector2d y = Eigen::Vector2d::Zero();
    for (std::size_t i = 0; i < order.size(); ++i) {
        y = settle(y, order[i]->parameter);
        up[i] = y;
    }
    y = Eigen::Vector2d::Zero();
    for (std::size_t i = order.size(); i-- > 0;) {
        y = settle(y, order[i]->parameter);
        down[i] = y;
    }
    int on_both = 0, only_one = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const Eigen::Vector2d point(order[i]->q[0], order[i]->v[0]);
        const double to_up = (up[i] - point).cwiseAbs().maxCoeff();
        const double to_down = (down[i] - point).cwiseAbs().maxCoeff();
        INFO("Omega = " << order[i]->parameter << ", |mu| " << order[i]->floquet.max_modulus
                        << ", up " << to_up << ", down " << to_down);
        CHECK(std::min(to_up, to_down) < 1e-8);
        ((up[i] - down[i]).cwiseAbs().maxCoeff() < 1e-6 ? on_both : only_one) += 1;
    }
    CHECK(only_one >= 4); // the coexisting responses between the folds, one per sweep
    CHECK(on_both >= 10);
    // the unstable points: fixed points of the test's period map, with an eigenvalue > 1 of
    // its Jacobian (central differences)
    for (const BranchPoint* p : unstable) {
        const Eigen::Vector2d point(p->q[0], p->v[0]);
        CHECK((accurate_map(point, p->parameter) - point).cwiseAbs().maxCoeff() < 1e-9);
        Eigen::Matrix2d J;
        for (int j = 0; j < 2; ++j) {
            Eigen::Vector2d e = Eigen::Vector2d::Zero();
            e[j] = 1e-6;
            J.col(j) =
                (accurate_map(point + e, p->parameter) - accurate_map(point - e, p->parameter)) /
                2e-6;
        }
        const double largest =
            Eigen::EigenSolver<Eigen::Matrix2d>(J).eigenvalues().cwiseAbs().maxCoeff();
        CHECK(largest > 1.0);
        CHECK(largest == Approx(p->floquet.max_modulus).epsilon(1e-5));
    }
}

TEST_CASE("an autonomous branch: the van der Pol period against its small-mu expansion",
          "[analysis][continuation]") {
    auto loaded = mdl::test::LoadedModel(mdl::compile(R"(
model VanDerPol
  parameter Real mu = 0.05;
  coordinate x(start = 2, m = 1);
  potential U = x^2/2;
  force f(x) = mu*(1 - x^2)*der(x);
end VanDerPol;
)",
                                                      "<test>"));
    mdl::runtime::analysis::ContinuationOptions options;
    options.parameter = "mu";
    options.from = 0.05;
    options.to = 0.4;
    options.ds_max = 0.05;
    Vector q(1), v(1);
    q << 2.0;
    v << 0.0;
    const Branch branch = mdl::runtime::analysis::continue_orbits(loaded.model, q, v, options);
    REQUIRE(branch.autonomous);
    REQUIRE(branch.points.size() > 5);
    CHECK(branch.points.back().parameter == Approx(0.4).epsilon(1e-14));
    for (const BranchPoint& p : branch.points) {
        const double mu = p.parameter;
        // T = 2 pi (1 + mu^2/16 - 5 mu^4/3072 + O(mu^6)); amplitude 2 + O(mu^2)
        const double expansion = 2 * pi * (1 + mu * mu / 16 - 5 * mu * mu * mu * mu / 3072);
        CHECK(std::abs(p.period - expansion) < 2 * pi * 0.01 * std::pow(mu, 6) + 1e-9);
        CHECK(std::abs(p.amplitude[0] - 2.0) < 0.02 * mu * mu + 1e-6);
        // the trivial multiplier is set aside; the other is exp(-mu T) to leading order
        CHECK(p.floquet.trivial >= 0);
        CHECK(p.floquet.stable);
        CHECK(p.label != "fold");
    }
}

TEST_CASE("period doubling: the Mathieu equation's first instability tongue",
          "[analysis][continuation]") {
    // x'' + (delta + eps cos t) x = 0: the orbit x = 0 (period 2 pi) loses stability where a
    // multiplier passes -1, at the edges of the first tongue (delta near 1/4)
    auto loaded = mdl::test::LoadedModel(mdl::compile(R"(
model Mathieu
  parameter Real delta = 0.05; parameter Real eps = 0.2;
  vibration drive(theta = time) = cos(theta);
  coordinate x(start = 0, m = 1);
  potential U = (delta + eps*drive)*x^2/2;
end Mathieu;
)",
                                                      "<test>"));
    mdl::runtime::analysis::ContinuationOptions options;
    options.parameter = "delta";
    options.from = 0.05;
    options.to = 0.5;
    options.ds_max = 0.05;
    const Vector zero = Vector::Zero(1);
    const Branch branch =
        mdl::runtime::analysis::continue_orbits(loaded.model, zero, zero, options);
    const auto doublings = labelled(branch, "period-doubling");
    REQUIRE(doublings.size() == 2);
    // the edges from the test's own RK4 monodromy: trace Phi = -2, by bisection in delta
    const auto trace = [](double delta) {
        Eigen::Matrix2d phi = Eigen::Matrix2d::Identity();
        const int steps = 4000;
        const double h = 2 * pi / steps;
        const auto A = [delta](double t) {
            Eigen::Matrix2d a;
            a << 0, 1, -(delta + 0.2 * std::cos(t)), 0;
            return a;
        };
        for (int i = 0; i < steps; ++i) {
            const double t = i * h;
            const Eigen::Matrix2d k1 = A(t) * phi, k2 = A(t + h / 2) * (phi + h / 2 * k1),
                                  k3 = A(t + h / 2) * (phi + h / 2 * k2),
                                  k4 = A(t + h) * (phi + h * k3);
            phi += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
        }
        return phi.trace() + 2.0;
    };
    const auto edge = [&](double lo, double hi) {
        for (int i = 0; i < 60; ++i) {
            const double mid = 0.5 * (lo + hi);
            ((trace(mid) > 0) == (trace(lo) > 0) ? lo : hi) = mid;
        }
        return 0.5 * (lo + hi);
    };
    const double lower = edge(0.05, 0.25), upper = edge(0.25, 0.5);
    CHECK(doublings[0]->parameter == Approx(lower).margin(1e-7));
    CHECK(doublings[1]->parameter == Approx(upper).margin(1e-7));
    // Mathieu's characteristic values (a = 4 delta, q = 2 eps): b1, a1 = 1 -+ q - q^2/8 ...
    CHECK(4 * lower == Approx(1 - 0.4 - 0.02 + 0.001).margin(2e-4));
    CHECK(4 * upper == Approx(1 + 0.4 - 0.02 - 0.001).margin(2e-4));
    for (const BranchPoint& p : branch.points) {
        if (p.label.empty()) {
            CHECK(p.floquet.stable == (p.parameter < lower || p.parameter > upper));
        }
    }
}
