// Differential tests of the whole compiler on random well-formed models (issue 22, item 0;
// support/random_model.hpp). Every model either compiles or is refused with a located
// CompileError. For each one that compiles, at random states:
//   - the JIT kernels equal the reference DAG evaluator (symbolic/evaluate.hpp);
//   - the derived kernels equal central finite differences of the model's own kernels:
//     force_dq = df/dq, force_dv = df/dv, G = dg/dq, curvature = d/dq(G v) v (the derivative
//     of G(q) v along v), and force = -dU/dq for the conservative models.
//
// MDL_RANDOM_MODELS=N runs N models instead of the default (a longer search);
// MDL_RANDOM_FIRST_SEED=S starts at seed S instead of 1 (a search past the suite's seeds);
// MDL_RANDOM_SPREAD=R samples positions in [-R, R] instead of [-1.5, 1.5] (large arguments).
#include "mdl/compiled_model.hpp"

#include "check/front_end.hpp"
#include "random_model.hpp"
#include "symbolic/equations_of_motion.hpp"
#include "symbolic/evaluate.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace {

using mdl::test::SplitMix;

std::size_t model_count() {
    if (const char* n = std::getenv("MDL_RANDOM_MODELS")) {
        return static_cast<std::size_t>(std::strtoul(n, nullptr, 10));
    }
#if defined(__SANITIZE_ADDRESS__)
    return 40; // the Debug + ASan build of CI: the same seeds, fewer of them
#else
    return 300;
#endif
}

struct Point {
    double t = 0;
    std::vector<double> q, v, x, theta;
};

std::vector<double> call(const mdl::CompiledModel& model, const mdl::Kernel& kernel,
                         const Point& at) {
    std::vector<double> out(kernel.outputs());
    kernel(model.args(at.t, at.q.data(), at.v.data(), at.x.data(), at.theta.data()), out.data());
    return out;
}

// Counts of one run, reported at the end (and checked: a test that skips everything fails).
struct Tally {
    std::size_t compared = 0;   // derivative entries compared with finite differences
    std::size_t skipped = 0;    // entries whose finite differences were ill-conditioned
    std::size_t mismatches = 0; // entries that disagree: each one a failed CHECK
};

// Compares derived[i] (i = 0..size) with central finite differences of F(s) at s = 0, where F
// is a model kernel along one direction (one coordinate, or v for the curvature).
//
// Tolerances: the central difference D(h) has truncation error ~h^2 F'''/6 and rounding error
// ~eps |F| / h. With h = 1e-4 the rounding part is ~1e-12 |F|; `noise` allows 1000 times
// that, since a kernel that cancels (A - B with |A| ~ |B| >> |A - B|) rounds at the size of
// its terms, not of its result. D(h/2) is compared to the derivative; D(h) - D(h/2) estimates
// three times D(h/2)'s truncation error, and when that exceeds 1e-8 of the value, F is not
// smooth at the scale h (a switch of an if-expression or a kink of abs inside the stencil, or
// large higher derivatives) and the entry is skipped, not compared. Otherwise the derivative
// must agree with D(h/2) to a relative 1e-6 (issue 22), plus the rounding noise.
void compare_with_differences(const std::function<std::vector<double>(double)>& F,
                              const std::vector<double>& derived, double sign, Tally& tally,
                              const std::string& what) {
    const double h = 1e-4;
    const auto f0 = F(0), fp = F(h), fm = F(-h), fp2 = F(h / 2), fm2 = F(-h / 2);
    for (std::size_t i = 0; i < derived.size(); ++i) {
        const double d = sign * derived[i];
        const double d1 = (fp[i] - fm[i]) / (2 * h), d2 = (fp2[i] - fm2[i]) / h;
        const double size =
            std::max({std::fabs(f0[i]), std::fabs(fp[i]), std::fabs(fm[i]), 1e-300});
        if (!std::isfinite(d) || !std::isfinite(d1) || !std::isfinite(d2) || !std::isfinite(size)) {
            ++tally.skipped;
            continue;
        }
        const double noise = 1e3 * std::numeric_limits<double>::epsilon() * size / h;
        if (std::fabs(d1 - d2) > 1e-8 * std::max(std::fabs(d1), std::fabs(d2)) + noise) {
            ++tally.skipped;
            continue;
        }
        ++tally.compared;
        const double error = std::fabs(d - d2);
        const bool ok = error <= 1e-6 * std::max(std::fabs(d), std::fabs(d2)) + noise;
        if (!ok) {
            ++tally.mismatches;
            if (tally.mismatches <= 20) { // enough to diagnose, not a flood
                INFO(what << "[" << i << "]: derived " << d << ", finite differences " << d2
                          << " (h: " << d1 << "), error " << error);
                CHECK(ok);
            }
        }
    }
}

// The symbolic system of `text`, built apart from the API, for the reference evaluator.
mdl::symbolic::System reference_system(const std::string& text, const std::string& name) {
    mdl::source::SourceFile file(name, text);
    mdl::source::Diagnostics diagnostics(file);
    auto checked = mdl::check::check_file(file, diagnostics);
    REQUIRE(checked);
    return mdl::symbolic::equations_of_motion(*checked);
}

// JIT == reference evaluator, exactly up to a few ulps (both compute the same operations,
// numeric.hpp; LLVM may contract or reorder nothing without fast_math). 1e-12 relative
// leaves room for libm calls that LLVM folds or vectorizes with a different rounding.
void compare_with_evaluator(const mdl::CompiledModel& model, mdl::symbolic::System& system,
                            const Point& at, Tally& jit_tally) {
    mdl::symbolic::Evaluator evaluator(system.pool());
    mdl::symbolic::VariableValues values;
    values.t = at.t;
    values.q = at.q;
    values.v = at.v;
    values.x = at.x;
    values.theta = at.theta;
    values.p = model.parameters();
    using K = mdl::symbolic::Kernel;
    std::pair<K, mdl::Kernel> kernels[] = {
        {K::mass, model.mass()},
        {K::force, model.force()},
        {K::rates, model.rates()},
        {K::potential, model.potential()},
        {K::constraint, model.constraint()},
        {K::constraint_jacobian, model.constraint_jacobian()},
        {K::curvature, model.curvature()},
        {K::force_dq, model.force_dq()},
        {K::force_dv, model.force_dv()},
    };
    for (auto& [which, kernel] : kernels) {
        auto expected = evaluator.evaluate(system.dense_outputs(which), values); // every entry
        REQUIRE(expected.size() == kernel.outputs());
        if (expected.empty()) {
            CHECK_FALSE(kernel);
            continue;
        }
        const auto got = call(model, kernel, at);
        for (std::size_t i = 0; i < got.size(); ++i) {
            const double a = got[i], b = expected[i];
            const bool same = a == b || (std::isnan(a) && std::isnan(b)) ||
                              std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b));
            ++jit_tally.compared;
            if (!same) {
                ++jit_tally.mismatches;
                if (jit_tally.mismatches <= 20) {
                    INFO(mdl::symbolic::kernel_name(which)
                         << "[" << i << "]: JIT " << a << ", evaluator " << b);
                    CHECK(same);
                }
            }
        }
    }
}

void check_derivatives(const mdl::CompiledModel& model, const mdl::test::RandomModel& generated,
                       const Point& at, Tally& tally) {
    const auto sizes = model.sizes();
    const std::size_t n = sizes.positions, m = sizes.constraints;
    // along position j (or velocity j): the kernel at q + s e_j
    auto along = [&](const mdl::Kernel& kernel, std::vector<double> Point::*which, std::size_t j) {
        return [&model, &kernel, at, which, j](double s) {
            Point p = at;
            (p.*which)[j] += s;
            return call(model, kernel, p);
        };
    };
    const mdl::Kernel force = model.force(), force_dq = model.force_dq(),
                      force_dv = model.force_dv();
    if (n > 0) {
        const auto dq = call(model, force_dq, at), dv = call(model, force_dv, at);
        for (std::size_t j = 0; j < n; ++j) {
            std::vector<double> column_q(n), column_v(n);
            for (std::size_t i = 0; i < n; ++i) {
                column_q[i] = dq[i * n + j];
                column_v[i] = dv[i * n + j];
            }
            compare_with_differences(along(force, &Point::q, j), column_q, 1.0, tally,
                                     "force_dq column " + std::to_string(j));
            compare_with_differences(along(force, &Point::v, j), column_v, 1.0, tally,
                                     "force_dv column " + std::to_string(j));
        }
    }
    if (generated.conservative && model.potential() && n > 0) {
        const auto f = call(model, force, at);
        const mdl::Kernel potential = model.potential();
        for (std::size_t j = 0; j < n; ++j) {
            compare_with_differences(along(potential, &Point::q, j), {f[j]}, -1.0, tally,
                                     "-force (dU/dq) " + std::to_string(j));
        }
    }
    if (m > 0) {
        const mdl::Kernel g = model.constraint(), G = model.constraint_jacobian(),
                          curvature = model.curvature();
        const auto jacobian = call(model, G, at);
        for (std::size_t j = 0; j < n; ++j) {
            std::vector<double> column(m);
            for (std::size_t i = 0; i < m; ++i) {
                column[i] = jacobian[i * n + j];
            }
            compare_with_differences(along(g, &Point::q, j), column, 1.0, tally,
                                     "G column " + std::to_string(j));
        }
        // curvature = d/ds [G(q + s v) v] at s = 0
        auto Gv_along_v = [&](double s) {
            Point p = at;
            for (std::size_t j = 0; j < n; ++j) {
                p.q[j] += s * at.v[j];
            }
            const auto Gs = call(model, G, p);
            std::vector<double> out(m, 0.0);
            for (std::size_t i = 0; i < m; ++i) {
                for (std::size_t j = 0; j < n; ++j) {
                    out[i] += Gs[i * n + j] * at.v[j];
                }
            }
            return out;
        };
        compare_with_differences(Gv_along_v, call(model, curvature, at), 1.0, tally, "curvature");
    }
}

bool located(const std::string& report, const std::string& name) {
    // "random12.mdl:7:23: error: ..."
    const auto at = report.find(name + ":");
    return at != std::string::npos && report.find(": error: ", at) != std::string::npos;
}

} // namespace

TEST_CASE("random well-formed models compile or fail with a located error, and their derived "
          "kernels equal finite differences and the reference evaluator") {
    const auto start = std::chrono::steady_clock::now();
    const std::size_t count = model_count();
    std::size_t compiled = 0, refused = 0, conservative = 0, with_constraints = 0;
    Tally derivatives, jit;
    const char* first_seed = std::getenv("MDL_RANDOM_FIRST_SEED");
    const std::uint64_t first = first_seed ? std::strtoull(first_seed, nullptr, 10) : 1;
    const char* spread_text = std::getenv("MDL_RANDOM_SPREAD");
    const double spread = spread_text ? std::strtod(spread_text, nullptr) : 1.5;
    for (std::uint64_t seed = first; seed < first + count; ++seed) {
        const auto generated = mdl::test::random_model(seed);
        const std::string name = "random" + std::to_string(seed) + ".mdl";
        INFO("seed " << seed << ":\n" << generated.text);
        std::optional<mdl::CompiledModel> model;
        try {
            model.emplace(mdl::compile(generated.text, name));
        } catch (const mdl::CompileError& e) {
            ++refused;
            INFO(e.what());
            CHECK(located(e.what(), name));
            CHECK(generated.invalid); // a valid model must compile
            continue;
        } catch (const std::exception& e) {
            FAIL("not a CompileError: " << e.what());
        }
        CHECK_FALSE(generated.invalid); // an invalid model must be refused
        ++compiled;
        conservative += generated.conservative ? 1 : 0;
        const auto sizes = model->sizes();
        with_constraints += sizes.constraints > 0 ? 1 : 0;
        auto system = reference_system(generated.text, name);
        SplitMix r(seed * 7919 + 1);
        for (int trial = 0; trial < 3; ++trial) {
            Point at;
            at.t = r.uniform(0.0, 2.0);
            at.q.resize(sizes.positions);
            at.v.resize(sizes.positions);
            at.x.resize(sizes.states);
            at.theta.resize(sizes.vibrations);
            for (double& d : at.q) {
                d = r.uniform(-spread, spread);
            }
            for (double& d : at.v) {
                d = r.uniform(-1.0, 1.0);
            }
            for (double& d : at.x) {
                d = r.uniform(-1.0, 1.0);
            }
            for (double& d : at.theta) {
                d = r.uniform(0.0, 6.283185307179586);
            }
            compare_with_evaluator(*model, system, at, jit);
            check_derivatives(*model, generated, at, derivatives);
        }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    WARN(count << " models in " << seconds << " s: " << compiled << " compiled (" << conservative
               << " conservative, " << with_constraints << " with constraints), " << refused
               << " refused with a located error; derivative entries: " << derivatives.compared
               << " compared, " << derivatives.skipped << " skipped, " << derivatives.mismatches
               << " wrong; JIT vs evaluator: " << jit.compared << " compared, " << jit.mismatches
               << " different");
    CHECK(derivatives.mismatches == 0);
    CHECK(jit.mismatches == 0);
    // The generator makes mostly valid models and the finite differences mostly apply: a run
    // that compiled or compared almost nothing has stopped testing anything.
    CHECK(compiled >= count * 3 / 4);
    CHECK(refused > 0); // the located-error path is exercised too
    CHECK(derivatives.compared >= 20 * compiled);
    CHECK(derivatives.skipped <= derivatives.compared / 5);
}
