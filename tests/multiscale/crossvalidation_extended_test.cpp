// Cross-validation of the multiscale methods on the extended families of issue 31
// (support/random_extended_model.hpp: M(q), rigid bodies on revolute and prismatic joints,
// damped rods, tanh friction, two commensurate vibrations, large slow motions), run as a user
// runs them, through mdl::simulate, against a direct DOPRI5 integration (rtol 1e-10) resolving
// the fast scale. For every accepted run:
//  - the true error: strobo at a stroboscopic time T (the averaged and the true solution
//    coincide there); hmm and hmm-shake against the direct solution's mean over the fast
//    period around T (the averaged motion up to O(1/omega^2));
//  - the run's own error estimate (SimulationStatistics::error_estimate) when it has one: the
//    ratio true error / estimate (both in position units), whose distribution is printed with
//    the quantiles of estimate / true error per method; at least 95 % of the ratios <= 3 and
//    none > 10;
//  - the same method with the defaults (the tolerance control choosing H and the micro steps):
//    an accepted run's true error at most 10 times its tolerance, a refusal only on the
//    tolerance (issue 31's "done when"). A run without an estimate is held to the fixed
//    tolerances of crossvalidation_test.cpp instead.
// And per method: it accepts at least 80 % of the models of its documented class
// (docs/methods.md): hmm every unconstrained model (with --filter spline for velocity-dependent
// forces and odd waves, as `mdl check` says), hmm-shake the constrained models without
// velocity dependence, strobo every model.
//
// MDL_CROSS_MODELS=N runs N models instead of 12 (scripts/cross-validate N runs both suites).
// MDL_CROSS_EXTENDED_MODELS=N overrides it for this suite alone (the asan preset sets 3).
// Measured on 300 models (before the error estimates): every method accepted every model of its
// class (hmm 107, hmm-shake 124, strobo 300); largest errors 0.92 (hmm), 0.016 (hmm-shake) and
// 0.021 (strobo) of the fixed tolerances.
#include "random_extended_model.hpp"

#include "mdl/compiled_model.hpp"
#include "mdl/simulate.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <numbers>
#include <string>
#include <vector>

using namespace mdl;

namespace {

constexpr double omega = 1e4;
const double period = 2.0 * std::numbers::pi / omega;
constexpr long periods = 1536; // T = 1536 periods = 0.97 s

std::size_t model_count() {
    // The sanitizer preset runs fewer of these (each model is a dozen multiscale and direct
    // runs, 30 s under ASan at -O0) than of crossvalidation_test's.
    if (const char* n = std::getenv("MDL_CROSS_EXTENDED_MODELS")) {
        return static_cast<std::size_t>(std::strtoul(n, nullptr, 10));
    }
    if (const char* n = std::getenv("MDL_CROSS_MODELS")) {
        return static_cast<std::size_t>(std::strtoul(n, nullptr, 10));
    }
    return 12;
}

struct Direct {
    std::vector<double> at_T, mean_T; // positions at T and their mean over [T - P/2, T + P/2]
    double scale = 1.0;               // 1 + max |q| over the run
};

Direct direct(const CompiledModel& model) {
    constexpr int per_period = 64;
    SimulationSettings s;
    s.method = "dopri5";
    s.rtol = 1e-10;
    s.atol = 1e-12;
    s.step = period / per_period;
    s.stop = (static_cast<double>(periods) + 0.5) * period;
    const SimulationResult r = simulate(model, s);
    const std::size_t n = r.layout.positions;
    Direct d;
    d.at_T.assign(n, 0.0);
    d.mean_T.assign(n, 0.0);
    const std::size_t centre = static_cast<std::size_t>(periods) * per_period;
    REQUIRE(r.rows() >= centre + per_period / 2);
    for (std::size_t i = 0; i < n; ++i) {
        d.at_T[i] = r.positions[centre * n + i];
        for (int j = -per_period / 2; j < per_period / 2; ++j) {
            const auto k = static_cast<std::size_t>(static_cast<long>(centre) + j);
            d.mean_T[i] += r.positions[k * n + i] / per_period;
        }
    }
    for (double q : r.positions) {
        d.scale = std::max(d.scale, 1.0 + std::abs(q));
    }
    return d;
}

struct Outcome {
    bool accepted = false;
    std::string reason;
    double error = 0.0;    // relative to 1 + max |q|
    double absolute = 0.0; // in position units (the estimate's and the tolerance's)
    std::optional<ErrorEstimate> estimate;
};

Outcome run(const CompiledModel& model, const SimulationSettings& s, const Direct& d,
            bool stroboscopic) {
    Outcome o;
    try {
        const SimulationResult r = simulate(model, s);
        const std::size_t n = r.layout.positions;
        const std::vector<double>& ref = stroboscopic ? d.at_T : d.mean_T;
        const std::size_t last = r.rows() - 1;
        REQUIRE(std::abs(r.t[last] - static_cast<double>(periods) * period) < 1e-9);
        for (std::size_t i = 0; i < n; ++i) {
            o.error = std::max(o.error, std::abs(r.positions[last * n + i] - ref[i]));
        }
        o.absolute = o.error;
        o.error /= d.scale;
        o.estimate = r.statistics.error_estimate;
        o.accepted = true;
    } catch (const std::exception& e) {
        o.reason = e.what();
    }
    return o;
}

} // namespace

TEST_CASE("extended random vibrated models: true errors, error estimates, acceptance",
          "[multiscale][crossvalidation][extended]") {
    std::map<std::string, std::size_t> in_class, accepted, accepted_in_class;
    std::map<std::string, std::map<std::string, std::size_t>> family_runs, family_accepted;
    std::vector<double> ratios;                               // true error / estimate
    std::map<std::string, std::vector<double>> overestimates; // estimate / true error, per method
    std::map<std::string, std::vector<double>> controlled_errors; // true error / tolerance
    std::map<std::string, std::size_t> controlled_stops;          // runs that stopped
    std::map<std::string, double> worst; // the largest true error / fixed tolerance
    const std::size_t count = model_count();
    for (std::uint64_t seed = 1; seed <= count; ++seed) {
        const test::RandomExtendedModel generated = test::random_extended_model(seed, omega);
        INFO("seed " << seed << " (" << test::to_string(generated.family) << "):\n"
                     << generated.text);
        const CompiledModel model = compile(generated.text, "extended.mdl");
        const Direct d = direct(model);
        const std::string family = test::to_string(generated.family);

        struct Variant {
            std::string method;
            bool in_class;
            SimulationSettings settings;
            bool stroboscopic;
        };
        std::vector<Variant> variants;
        SimulationSettings hmm;
        hmm.stop = static_cast<double>(periods) * period;
        hmm.step = hmm.stop.value() / 64.0;
        hmm.micro_steps_per_period = 64;
        if (generated.constrained) {
            hmm.method = "hmm-shake";
            if (!generated.even) {
                hmm.filter = "exp";
            }
            variants.push_back({"hmm-shake", !generated.velocity_dependent, hmm, false});
        } else {
            hmm.method = "hmm";
            if (generated.velocity_dependent || !generated.even) {
                hmm.filter = "spline";
            }
            variants.push_back({"hmm", true, hmm, false});
        }
        SimulationSettings strobo;
        strobo.method = "strobo";
        strobo.stop = static_cast<double>(periods) * period;
        strobo.step = 16.0 * period;
        strobo.micro_steps_per_period = 40;
        variants.push_back({"strobo", true, strobo, true});

        // with the defaults (the step and micro steps left to the tolerance control): an
        // accepted run's error at most 10 times its tolerance (issue 31's "done when")
        for (const Variant& v : variants) {
            if (!v.in_class) {
                continue; // refused with its documented reason (below)
            }
            SimulationSettings controlled = v.settings;
            controlled.step.reset();
            controlled.micro_steps_per_period.reset();
            const Outcome out = run(model, controlled, d, v.stroboscopic);
            INFO(v.method << " with the defaults: "
                          << (out.accepted ? "error " + std::to_string(out.absolute) : out.reason));
            if (!out.accepted) {
                ++controlled_stops[v.method];
                CHECK(out.reason.find("error estimate") != std::string::npos);
                continue;
            }
            REQUIRE(out.estimate);
            const double ratio = out.absolute / out.estimate->tolerance;
            controlled_errors[v.method].push_back(ratio);
            CHECK(ratio <= 10.0);
        }

        for (const Variant& v : variants) {
            const Outcome out = run(model, v.settings, d, v.stroboscopic);
            INFO(v.method << ": "
                          << (out.accepted ? "error " + std::to_string(out.error) : out.reason));
            if (v.in_class) {
                ++in_class[v.method];
                ++family_runs[v.method][family];
            }
            if (!out.accepted) {
                continue;
            }
            ++accepted[v.method];
            if (v.in_class) {
                ++family_accepted[v.method][family];
                ++accepted_in_class[v.method];
            }
            if (out.estimate) {
                // both in position units: the estimate is not relative to max |q|
                ratios.push_back(out.absolute / std::max(out.estimate->total, 1e-300));
                overestimates[v.method].push_back(out.estimate->total /
                                                  std::max(out.absolute, 1e-300));
                CHECK(out.absolute <= 10.0 * out.estimate->total);
            } else {
                // the fixed tolerances of crossvalidation_test.cpp (H = T/64 = 0.015 s), the
                // macro term scaled by the averaged motion's (Omega H)^2 (seed 247 of the
                // M(q) family: Omega^2 = 12, errors 0.035 and 4.4e-3 at H = T/64, T/128)
                const double H = v.settings.step.value();
                const double tolerance =
                    v.stroboscopic
                        ? 3e-3
                        : 10.0 * (std::max(1.0, generated.stiffness) * H * H + 1.0 / omega);
                CHECK(out.error <= tolerance);
                worst[v.method] = std::max(worst[v.method], out.error / tolerance);
            }
        }
    }
    for (const auto& [method, n] : in_class) {
        std::string families;
        for (const auto& [family, runs] : family_runs[method]) {
            families += "; " + family + " " + std::to_string(family_accepted[method][family]) +
                        "/" + std::to_string(runs);
        }
        WARN(method << ": accepted " << accepted[method] << " runs, " << n
                    << " models in its class (largest error " << worst[method]
                    << " of the fixed tolerance)" << families);
        // a method refusing the models of its documented class fails the suite
        CHECK(static_cast<double>(accepted_in_class[method]) >= 0.8 * static_cast<double>(n));
    }
    for (auto& [method, r] : overestimates) {
        std::sort(r.begin(), r.end());
        const auto at = [&](double p) {
            return r[static_cast<std::size_t>(p * static_cast<double>(r.size() - 1))];
        };
        const auto under = std::count_if(r.begin(), r.end(), [](double x) { return x < 1.0; });
        WARN(method << ": estimate / true error over " << r.size() << " runs: min " << r.front()
                    << ", 5 % " << at(0.05) << ", 25 % " << at(0.25) << ", median " << at(0.5)
                    << ", 75 % " << at(0.75) << ", 95 % " << at(0.95) << ", max " << r.back()
                    << "; underestimates (< 1) " << under << ", below 1/3 "
                    << std::count_if(r.begin(), r.end(), [](double x) { return x < 1.0 / 3.0; }));
    }
    for (auto& [method, r] : controlled_errors) {
        std::sort(r.begin(), r.end());
        WARN(method << " with the defaults: " << r.size() << " runs accepted, "
                    << controlled_stops[method] << " stopped on the tolerance; true error / "
                    << "tolerance: median " << r[r.size() / 2] << ", 95 % "
                    << r[static_cast<std::size_t>(0.95 * static_cast<double>(r.size() - 1))]
                    << ", max " << r.back() << ", above 1: "
                    << std::count_if(r.begin(), r.end(), [](double x) { return x > 1.0; }));
    }
    if (!ratios.empty()) {
        std::sort(ratios.begin(), ratios.end());
        const auto at = [&](double p) {
            return ratios[static_cast<std::size_t>(p * static_cast<double>(ratios.size() - 1))];
        };
        const auto within3 =
            std::count_if(ratios.begin(), ratios.end(), [](double x) { return x <= 3.0; });
        WARN("true error / estimate over "
             << ratios.size() << " runs: median " << at(0.5) << ", 90 % " << at(0.9) << ", 95 % "
             << at(0.95) << ", max " << ratios.back() << "; <= 3 in " << within3 << " runs");
        CHECK(static_cast<double>(within3) >= 0.95 * static_cast<double>(ratios.size()));
    }
}
