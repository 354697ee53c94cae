#include "mdl/compiled_model.hpp"

#include "check/checker.hpp"
#include "check/front_end.hpp"
#include "parse/parser.hpp"
#include "symbolic/equations_of_motion.hpp"
#include "symbolic/evaluate.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <random>

using Catch::Detail::Approx;
namespace fs = std::filesystem;

namespace {

std::string model_path(const std::string& name) {
    return std::string(MDL_SOURCE_DIR) + "/models/" + name;
}

// The symbolic system of a file, built independently of the API, for the reference evaluator.
mdl::symbolic::System reference_system(const std::string& path) {
    auto file = mdl::source::SourceFile::read(path);
    mdl::source::Diagnostics diagnostics(file);
    auto checked = mdl::check::check_file(file, diagnostics);
    REQUIRE(checked);
    return mdl::symbolic::equations_of_motion(*checked);
}

// NaN equals NaN here: the mass kernel's entries for the coordinates of a kinetic energy with
// M(q) are NaN by definition (kernel_abi.h).
double relative_error(double a, double b) {
    if (std::isnan(a) && std::isnan(b)) {
        return 0.0;
    }
    double scale = std::max({std::fabs(a), std::fabs(b), 1e-300});
    return a == b ? 0.0 : std::fabs(a - b) / scale;
}

} // namespace

TEST_CASE("JIT kernels equal the reference evaluator on every shipped model") {
    std::mt19937_64 rng(20261122);
    std::uniform_real_distribution<double> u(-1.5, 1.5);
    for (const auto& entry : fs::directory_iterator(fs::path(MDL_SOURCE_DIR) / "models")) {
        if (entry.path().extension() != ".mdl") {
            continue;
        }
        INFO(entry.path().filename().string());
        mdl::CompiledModel model = mdl::compile_file(entry.path().string());
        mdl::symbolic::System system = reference_system(entry.path().string());
        mdl::symbolic::Evaluator evaluator(system.pool());
        auto sizes = model.sizes();
        for (int trial = 0; trial < 5; ++trial) {
            std::vector<double> q(sizes.positions), v(sizes.positions), x(sizes.states),
                theta(sizes.vibrations);
            for (auto* vec : {&q, &v, &x, &theta}) {
                for (double& value : *vec) {
                    value = u(rng);
                }
            }
            double t = std::fabs(u(rng));
            auto args = model.args(t, q.data(), v.data(), x.data(), theta.data());
            mdl::symbolic::VariableValues at;
            at.t = t;
            at.q = q;
            at.v = v;
            at.x = x;
            at.theta = theta;
            at.p = model.parameters();
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
                {K::mass_matrix, model.mass_matrix()},
            };
            for (auto& [which, kernel] : kernels) {
                auto expected =
                    evaluator.evaluate(system.dense_outputs(which), at); // matrices: every entry
                REQUIRE(expected.size() == kernel.outputs());
                if (expected.empty()) {
                    CHECK_FALSE(kernel);
                    continue;
                }
                std::vector<double> got(kernel.outputs());
                kernel(args, got.data());
                for (std::size_t i = 0; i < got.size(); ++i) {
                    INFO(mdl::symbolic::kernel_name(which)
                         << "[" << i << "] " << got[i] << " vs " << expected[i]);
                    CHECK(relative_error(got[i], expected[i]) <= 1e-13);
                }
            }
        }
    }
}

TEST_CASE("a parameter change takes effect without recompiling") {
    mdl::CompiledModel model = mdl::compile_file(model_path("kapitza.mdl"));
    double q = 0.3, v = 0, theta = 0.7, f = 0;
    auto force = [&] {
        auto a = model.args(0, &q, &v, nullptr, &theta);
        model.force()(a, &f);
        return f;
    };
    CHECK(force() == Approx((9.8 + 4 * 1e4 * std::cos(0.7)) / 0.2 * std::sin(0.3)));
    model.set_parameter("omega", 1e8);
    CHECK(force() == Approx((9.8 + 4 * 1e8 * std::cos(0.7)) / 0.2 * std::sin(0.3)));
    CHECK(model.phases(1e-8)[0] == Approx(1.0));
    CHECK(model.fast_scales().at(0).omega == 1e8);
    model.reset_parameters();
    CHECK(model.parameter("omega") == 1e4);
}

TEST_CASE("parameters defined from others follow them until set themselves") {
    mdl::CompiledModel model = mdl::compile(R"(model P
  parameter Real eps = 1/400, omega = 1/eps, k = omega^2;
  coordinate q(start = 1/omega);
equation
  der(der(q)) = -k*q;
end P;)",
                                            "p.mdl");
    CHECK(model.parameter("omega") == Approx(400));
    model.set_parameter("eps", 1.0 / 800);
    CHECK(model.parameter("omega") == Approx(800));
    CHECK(model.parameter("k") == Approx(640000));
    CHECK(model.start_positions()[0] == Approx(1.0 / 800));
    model.set_parameter("omega", 10); // now fixed: eps no longer moves it
    model.set_parameter("eps", 1.0);
    CHECK(model.parameter("omega") == 10);
    CHECK(model.parameter("k") == Approx(100));
}

TEST_CASE("bad parameter requests are exceptions that leave the model unchanged") {
    mdl::CompiledModel model = mdl::compile("model P parameter Real amp = 1, b = 1/amp; "
                                            "coordinate q; equation der(der(q)) = -b*q; end P;",
                                            "p.mdl");
    CHECK_THROWS_WITH(model.set_parameter("Amp", 2),
                      "model 'P' has no parameter 'Amp'; did you mean 'amp'?");
    CHECK_THROWS_WITH(model.set_parameter("amp", 0),
                      "setting 'amp' = 0 makes parameter 'b' non-finite (inf)");
    CHECK_THROWS_AS(model.set_parameter("amp", NAN), std::invalid_argument);
    CHECK(model.parameter("amp") == 1);
    CHECK(model.parameter("b") == 1);
}

TEST_CASE("a model with errors throws CompileError with located diagnostics") {
    try {
        (void)mdl::compile("model M\n  parameter Real omega = 1;\n  coordinate q;\nequation\n  "
                           "der(der(q)) = -omgea*q;\nend M;",
                           "m.mdl");
        FAIL("no exception");
    } catch (const mdl::CompileError& e) {
        REQUIRE(e.messages().size() == 1);
        CHECK(e.messages()[0] == "m.mdl:5:18: error: use of undeclared name 'omgea'; did you "
                                 "mean 'omega'?");
        CHECK(std::string(e.what()).find("                 ^~~~~") != std::string::npos);
    }
    CHECK_THROWS_WITH(mdl::compile_file("/nonexistent/m.mdl"),
                      "mdl: error: cannot open '/nonexistent/m.mdl'\n");
}

TEST_CASE("start values, settings, names and phase parity come from the model") {
    mdl::CompiledModel model = mdl::compile_file(model_path("double_pendulum.mdl"));
    CHECK(model.position_names() == std::vector<std::string>{"b1.x", "b1.y", "b2.x", "b2.y"});
    CHECK(model.constraint_names() == std::vector<std::string>{"rod1", "rod2"});
    model.set_parameter("q10", 0.1);
    CHECK(model.start_positions()[0] == Approx(0.2 * std::sin(0.1)));
    CHECK(model.text_setting("method", "") == "hmm-shake");
    CHECK(model.number_setting("step", 0) == Approx(1.0 / 80));
    CHECK(model.number_setting("Tolerance", 7) == 7);
    CHECK(model.force_even_in_phase(0)); // cos(theta)
    mdl::CompiledModel odd = mdl::compile(R"(model S
  parameter Real w = 10;
  vibration a(theta = w*time) = sin(theta);
  coordinate q;
equation
  der(der(q)) = a*q;
end S;)",
                                          "s.mdl");
    CHECK_FALSE(odd.force_even_in_phase(0));
}

TEST_CASE("a square-wave vibration is even in its phase only when it is") {
    // if cos(theta) > 0 then A else -A is even in theta; the same with sin is odd (and the
    // parity proof must not be fooled by both branches being even).
    const auto square = [](const std::string& wave) {
        return mdl::compile(R"(model Square
  parameter Real w = 10, A = 2;
  vibration a(theta = w*time) = if )" +
                                wave +
                                R"((theta) > 0 then A else -A;
  coordinate q;
equation
  der(der(q)) = a*q - q^3;
end Square;)",
                            "square.mdl");
    };
    mdl::CompiledModel even = square("cos");
    CHECK(even.force_even_in_phase(0));
    CHECK(even.force_even_in_all_phases());
    CHECK(even.symbolic_text().find("if cos(theta_a) > 0 then") != std::string::npos);
    mdl::CompiledModel odd = square("sin");
    CHECK_FALSE(odd.force_even_in_phase(0));
    CHECK_FALSE(odd.force_even_in_all_phases());
}

TEST_CASE("the derived equations print in the model's own names") {
    mdl::CompileOptions options;
    options.keep_ir = true;
    mdl::CompiledModel model = mdl::compile_file(model_path("kapitza.mdl"), options);
    std::string text = model.symbolic_text();
    CHECK(text.find("sin(q)") != std::string::npos);
    CHECK(model.llvm_ir().find("define") != std::string::npos);
}

TEST_CASE("Jacobians and curvature of every shipped model match central differences") {
    // Differences are a check here only; the product derives everything symbolically.
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (const auto& entry : fs::directory_iterator(fs::path(MDL_SOURCE_DIR) / "models")) {
        if (entry.path().extension() != ".mdl") {
            continue;
        }
        INFO(entry.path().filename().string());
        mdl::CompiledModel model = mdl::compile_file(entry.path().string());
        auto s = model.sizes();
        const std::size_t n = s.positions, m = s.constraints;
        if (n == 0) {
            continue;
        }
        std::vector<double> q = model.start_positions(), v(n), x = model.start_states(),
                            theta(s.vibrations);
        for (std::size_t i = 0; i < n; ++i) {
            q[i] += 0.05 * u(rng); // near the start, where the model is meant to live
            v[i] = u(rng);
        }
        for (double& th : theta) {
            th = 3 * u(rng);
        }
        const double t = 0.3;
        auto eval = [&](const mdl::Kernel& k, const std::vector<double>& qq,
                        const std::vector<double>& vv) {
            std::vector<double> out(k.outputs());
            auto a = model.args(t, qq.data(), vv.data(), x.data(), theta.data());
            k(a, out.data());
            return out;
        };
        auto scale_of = [](const std::vector<double>& values) {
            double s_max = 1e-8;
            for (double value : values) {
                s_max = std::max(s_max, std::fabs(value));
            }
            return s_max;
        };
        auto f_q = eval(model.force_dq(), q, v), f_v = eval(model.force_dv(), q, v);
        std::vector<double> G = m ? eval(model.constraint_jacobian(), q, v) : std::vector<double>{};
        for (std::size_t j = 0; j < n; ++j) {
            double h = 1e-6 * std::max(1.0, std::fabs(q[j]));
            auto qp = q, qm = q, vp = v, vm = v;
            qp[j] += h;
            qm[j] -= h;
            vp[j] += 1e-6;
            vm[j] -= 1e-6;
            auto fqp = eval(model.force(), qp, v), fqm = eval(model.force(), qm, v);
            auto fvp = eval(model.force(), q, vp), fvm = eval(model.force(), q, vm);
            double fscale = scale_of(f_q) + scale_of(eval(model.force(), q, v));
            for (std::size_t i = 0; i < n; ++i) {
                CHECK(std::fabs(f_q[i * n + j] - (fqp[i] - fqm[i]) / (2 * h)) <= 1e-6 * fscale);
                CHECK(std::fabs(f_v[i * n + j] - (fvp[i] - fvm[i]) / 2e-6) <= 1e-6 * fscale);
            }
            if (m) {
                auto gp = eval(model.constraint(), qp, v), gm = eval(model.constraint(), qm, v);
                for (std::size_t i = 0; i < m; ++i) {
                    CHECK(std::fabs(G[i * n + j] - (gp[i] - gm[i]) / (2 * h)) <=
                          1e-7 * scale_of(G));
                }
            }
        }
        if (m) {
            // curvature = d/de [G v + g_t] at (q + e v, t + e), e = 0, the phases moving at
            // their rates: (d/dq (G v)) v for a scleronomic g (g_t = 0), plus the time terms
            // 2 G_t v + g_tt of a rheonomic one (moving anchors, car_axis.mdl's bump)
            const std::vector<double> rates = model.phase_rates();
            const mdl_kernel rate = model.kernels().constraint_rate;
            auto Gv = [&](double e) {
                auto qe = q, th = theta;
                for (std::size_t k = 0; k < n; ++k) {
                    qe[k] += e * v[k];
                }
                for (std::size_t k = 0; k < th.size(); ++k) {
                    th[k] += e * rates[k];
                }
                const auto a = model.args(t + e, qe.data(), v.data(), x.data(), th.data());
                std::vector<double> Ge(m * n), out(m, 0.0);
                model.constraint_jacobian()(a, Ge.data());
                if (rate != nullptr) {
                    rate(&a, out.data());
                }
                for (std::size_t i = 0; i < m; ++i) {
                    for (std::size_t k = 0; k < n; ++k) {
                        out[i] += Ge[i * n + k] * v[k];
                    }
                }
                return out;
            };
            auto c = eval(model.curvature(), q, v);
            auto plus = Gv(1e-6), minus = Gv(-1e-6);
            for (std::size_t i = 0; i < m; ++i) {
                CHECK(std::fabs(c[i] - (plus[i] - minus[i]) / 2e-6) <= 1e-6 * scale_of(c));
            }
        }
    }
}

TEST_CASE("expression swell beyond the node limit is a compile error, not a hang") {
    mdl::CompileOptions options;
    options.node_limit = 40; // the double pendulum's kernels need more
    try {
        (void)mdl::compile_file(model_path("double_pendulum.mdl"), options);
        FAIL("no exception");
    } catch (const mdl::CompileError& e) {
        CHECK(std::string(e.what()).find("double_pendulum.mdl: error: the derived equations are "
                                         "too large") != std::string::npos);
    }
}

TEST_CASE("potentials with abs of odd powers compile (they crashed the symbolic engine) and their "
          "force is the analytic -dU/dq") {
    // |x^3| was rewritten to |x|^3 reading the pool's child list after adding a node to it
    struct Case {
        const char* potential;
        double (*force)(double q);
    };
    const Case cases[] = {
        {"abs(q^3)",
         [](double q) {
             return -3 * q * q * (q > 0 ? 1.0 : -1.0);
         }},
        {"abs(q*q*q)^1.5",
         [](double q) {
             return -4.5 * q * q * std::pow(std::abs(q), 1.5) * (q > 0 ? 1.0 : -1.0);
         }},
        {"sqrt(abs(q^3))",
         [](double q) {
             return -1.5 * std::sqrt(std::abs(q)) * (q > 0 ? 1.0 : -1.0);
         }},
        {"abs(sin(q)^3)^0.5",
         [](double q) {
             return -1.5 * std::sqrt(std::abs(std::sin(q))) * std::cos(q) *
                    (std::sin(q) > 0 ? 1.0 : -1.0);
         }},
    };
    for (const Case& c : cases) {
        INFO(c.potential);
        mdl::CompiledModel model = mdl::compile(
            std::string("model A\n  coordinate q(start = 0.5, m = 1);\n  potential U = ") +
                c.potential + ";\nend A;\n",
            "abs.mdl");
        for (double q : {0.7, -0.4, 2.0}) {
            double v = 0, f = 0;
            auto a = model.args(0, &q, &v);
            model.force()(a, &f);
            CHECK(f == Approx(c.force(q)).epsilon(1e-12));
        }
    }
}
