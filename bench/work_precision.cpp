// Work-precision data of the multiscale methods against direct integration (issue 31 item 5):
// for each model and omega, the error at T (about 1 s, a whole number of fast periods) against
// a DOPRI5 reference (rtol 1e-11), and each run's force evaluations and wall time, through
// mdl::simulate as `mdl run` runs them. One CSV line per run:
//   model,omega,method,setting,error,force_evaluations,seconds
// hmm is compared with the reference's mean over the fast period around T (the averaged motion
// it approximates, up to O(1/omega^2)); strobo, dopri5, cvode-adams and rattle with the
// reference at T (a stroboscopic time). The reference costs in proportion to omega: the
// program runs omega = 1e4 .. 1e6 (1e7 and 1e8 would take hours of reference integration,
// while the multiscale costs do not change with omega: tests/multiscale/hmm_cost_test.cpp).
//   build/bench/mdl_work_precision [max_omega]      (default 1e6)
#include "mdl/compiled_model.hpp"
#include "mdl/simulate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <string>
#include <vector>

namespace {

struct Model {
    std::string name;
    mdl::CompiledModel compiled;
    bool constrained;
    std::string hmm_filter; // "" = the default (simple)
};

const char* inverted_double_pendulum =
    "model InvertedDoublePendulum\n"
    "  parameter Real m1 = 0.01, m2 = 0.005, l1 = 0.2, l2 = 0.1, g = 9.8, vmax = 4;\n"
    "  parameter Real omega = 1e4;\n"
    "  vibration a(theta = omega*time) = vmax*omega*cos(theta);\n"
    "  coordinate q1(start = 0.5);\n"
    "  coordinate q2(start = 0);\n"
    "  kinetic T = m1/2*l1^2*der(q1)^2 + m2/2*(l1^2*der(q1)^2 + l2^2*der(q2)^2\n"
    "            + 2*l1*l2*cos(q1 - q2)*der(q1)*der(q2));\n"
    "  potential U = (m1*l1*cos(q1) + m2*(l1*cos(q1) + l2*cos(q2)))*g;\n"
    "  force f1(q1) = (m1 + m2)*a*l1*sin(q1);\n"
    "  force f2(q2) = m2*a*l2*sin(q2);\n"
    "end InvertedDoublePendulum;\n";

struct Reference {
    std::vector<double> at_T, mean_T;
};

// DOPRI5 at rtol 1e-11, rows every period/32, kept only in the last period around T.
Reference reference(Model& m, double T, double period) {
    mdl::SimulationSettings s;
    s.method = "dopri5";
    s.rtol = 1e-11;
    s.atol = 1e-13;
    s.step = period / 32.0;
    s.stop = T + 0.5 * period;
    Reference r;
    std::size_t in_window = 0;
    mdl::simulate(m.compiled, s, [&](const mdl::OutputRow& row) {
        const std::size_t n = row.positions.size();
        if (r.mean_T.empty()) {
            r.mean_T.assign(n, 0.0);
            r.at_T.assign(n, 0.0);
        }
        if (row.t > T - 0.5 * period + 1e-3 * s.step.value() && in_window < 32) {
            for (std::size_t i = 0; i < n; ++i) {
                r.mean_T[i] += row.positions[i] / 32.0;
            }
            ++in_window;
        }
        if (std::abs(row.t - T) < 1e-3 * s.step.value()) {
            r.at_T.assign(row.positions.begin(), row.positions.end());
        }
        return true;
    });
    return r;
}

void run(Model& m, double omega, const Reference& ref, mdl::SimulationSettings s,
         const std::string& setting, bool averaged) {
    std::vector<double> last;
    try {
        const mdl::SimulationStatistics st =
            mdl::simulate(m.compiled, s, [&](const mdl::OutputRow& row) {
                last.assign(row.positions.begin(), row.positions.end());
                return true;
            });
        const std::vector<double>& r = averaged ? ref.mean_T : ref.at_T;
        double error = 0.0;
        for (std::size_t i = 0; i < r.size(); ++i) {
            error = std::max(error, std::abs(last[i] - r[i]));
        }
        std::printf("%s,%g,%s,%s,%.3e,%zu,%.4f\n", m.name.c_str(), omega, st.method.c_str(),
                    setting.c_str(), error, st.force_evaluations, st.seconds);
    } catch (const std::exception& e) {
        std::printf("%s,%g,%s,%s,failed: %s,,\n", m.name.c_str(), omega, s.method->c_str(),
                    setting.c_str(), e.what());
    }
    std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv) {
    const double max_omega = argc > 1 ? std::atof(argv[1]) : 1e6;
    const std::string models_dir = std::string(MDL_SOURCE_DIR) + "/models/";
    std::vector<Model> models;
    models.push_back({"kapitza", mdl::compile_file(models_dir + "kapitza.mdl"), false, ""});
    models.push_back({"inverted double pendulum M(q)",
                      mdl::compile(inverted_double_pendulum, "inverted_double_pendulum.mdl"), false,
                      "spline"});
    models.push_back({"double pendulum Cartesian",
                      mdl::compile_file(models_dir + "double_pendulum.mdl"), true, ""});
    std::printf("model,omega,method,setting,error,force_evaluations,seconds\n");
    for (double omega = 1e4; omega <= max_omega * 1.001; omega *= 10.0) {
        const double period = 2.0 * std::numbers::pi / omega;
        const double T = std::round(1.0 / period) * period;
        for (Model& m : models) {
            m.compiled.set_parameter("omega", omega);
            const Reference ref = reference(m, T, period);
            for (int k : {32, 64, 128, 256, 512}) {
                mdl::SimulationSettings s;
                s.method = m.constrained ? "hmm-shake" : "hmm";
                s.stop = T;
                s.step = T / k;
                if (!m.hmm_filter.empty()) {
                    s.filter = m.hmm_filter;
                }
                run(m, omega, ref, s, "H=T/" + std::to_string(k), true);
            }
            for (int k : {16, 32, 64, 128}) {
                // macro steps of about T/k, a whole number of periods
                const double p = std::max(1.0, std::round(T / k / period));
                mdl::SimulationSettings s;
                s.method = "strobo";
                s.stop = T;
                s.step = p * period;
                s.micro_steps_per_period = 40;
                run(m, omega, ref, s, "H=T/" + std::to_string(k), false);
            }
            for (double rtol : {1e-4, 1e-6, 1e-8}) {
                for (const char* method : {"dopri5", "cvode-adams"}) {
                    mdl::SimulationSettings s;
                    s.method = method;
                    s.stop = T;
                    s.step = T;
                    s.rtol = rtol;
                    s.atol = rtol * 1e-3;
                    char setting[32];
                    std::snprintf(setting, sizeof setting, "rtol=%g", rtol);
                    run(m, omega, ref, s, setting, false);
                }
            }
            if (m.constrained) {
                for (int n : {10, 20, 40}) {
                    mdl::SimulationSettings s;
                    s.method = "rattle";
                    s.stop = T;
                    s.step = period / n;
                    s.every = 1000000;
                    run(m, omega, ref, s, "h=P/" + std::to_string(n), false);
                }
            }
        }
    }
    return 0;
}
