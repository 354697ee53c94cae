// Work-precision data of the multiscale methods against direct integration (issue 31): for
// each model and omega, the error at T = 1 against a reference, and each run's force
// evaluations and wall time, through mdl::simulate as `mdl run` runs them. One CSV line per run:
//   model,omega,method,setting,error,force_evaluations,seconds,estimate,tolerance
// (estimate and tolerance: the run's own error estimate and the tolerance it was held to, for
// the multiscale methods). omega is rounded to 2 pi k (k whole), so that T = 1 is k fast
// periods for every omega and the references at different omegas are at the same time and phase.
//
// Runs: fixed settings (hmm H = T/32 .. T/512, strobo H ~ T/16 .. T/128 with 40 micro steps a
// period, hmm-stiff H = T/8 .. T/64; dopri5 and cvode-adams rtol 1e-4 .. 1e-8; rattle
// h = P/10 .. P/40) and tolerance-controlled multiscale runs (rtol 1e-2 .. 1e-5, atol =
// rtol/1000, the steps left to the error control: the models' annotated steps removed).
// hmm and hmm-stiff are compared with the reference's mean over the fast period around T (the
// averaged motion they approximate), the others with the reference at T.
//
// References: DOPRI5 at rtol 1e-11 up to omega = DIRECT_MAX (default 1e6); above it direct
// integration costs in proportion to omega (hours at 1e8) and is not run: the Kapitza pendulum
// then takes its averaged equation (Calvo & Sanz-Serna, SIAM J. Sci. Comput. 32 (2010), eqs.
// (2.5)-(2.6), solved here by RK4, with the O(1/omega) fast displacement), the other models the
// extrapolation r(omega) = r_inf + c/omega through the references at DIRECT_MAX/10 and
// DIRECT_MAX (the 1/omega terms of averaging; what remains is O(1/omega^2)). The direct methods
// are not run above DIRECT_MAX either.
//   build/bench/mdl_work_precision [MAX_OMEGA [DIRECT_MAX [MODEL]]]    (defaults 1e6, 1e6, all)
#include "mdl/compiled_model.hpp"
#include "mdl/simulate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <numbers>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Positions = std::vector<double>;

struct Model {
    std::string name;
    mdl::CompiledModel compiled;
    std::string omega_parameter;         // the fast frequency's parameter
    std::vector<std::string> multiscale; // the multiscale methods run on it
    std::string hmm_filter;              // "" = the default (simple)
    bool constrained = false, kapitza = false;
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

// A shipped model without its annotated macro step, so that the error control chooses it.
mdl::CompiledModel without_annotated_step(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    const std::string source =
        std::regex_replace(text.str(), std::regex(R"(, step = 1/[0-9]+\))"), ")");
    return mdl::compile(source, path);
}

struct Reference {
    Positions at_T, mean_T;
    std::string source;
};

// DOPRI5 at rtol 1e-11, rows every period/32, kept only in the last period around T.
Reference direct_reference(Model& m, double T, double period) {
    mdl::SimulationSettings s;
    s.method = "dopri5";
    s.rtol = 1e-11;
    s.atol = 1e-13;
    s.step = period / 32.0;
    s.stop = T + 0.5 * period;
    Reference r;
    r.source = "dopri5";
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

// The Kapitza pendulum's averaged motion Q'' = (g/l - vmax^2/(2 l^2) cos Q) sin Q from the
// averaged start Q(0) = q(0) + vmax sin q(0)/(omega l) (the true q = Q + xi, xi = -vmax
// cos(omega t) sin Q/(omega l) to O(1/omega^2)), by RK4 with 10^4 steps; at T = k periods
// the true position is Q(T) + xi = Q(T) - vmax sin Q(T)/(omega l).
Reference kapitza_averaged(double omega, double T) {
    const double l = 0.2, g = 9.8, vmax = 4.0;
    const auto acc = [&](double q) {
        return (g / l - vmax * vmax / (2.0 * l * l) * std::cos(q)) * std::sin(q);
    };
    double q = 0.5 + vmax * std::sin(0.5) / (omega * l), p = 0.0;
    const int steps = 10000;
    const double h = T / steps;
    for (int i = 0; i < steps; ++i) {
        const double k1q = p, k1p = acc(q);
        const double k2q = p + 0.5 * h * k1p, k2p = acc(q + 0.5 * h * k1q);
        const double k3q = p + 0.5 * h * k2p, k3p = acc(q + 0.5 * h * k2q);
        const double k4q = p + h * k3p, k4p = acc(q + h * k3q);
        q += h / 6.0 * (k1q + 2.0 * k2q + 2.0 * k3q + k4q);
        p += h / 6.0 * (k1p + 2.0 * k2p + 2.0 * k3p + k4p);
    }
    return {{q - vmax * std::sin(q) / (omega * l)}, {q}, "averaged equation"};
}

// r(omega) = r_inf + c/omega through (omega1, r1) and (omega2, r2).
Positions extrapolate(const Positions& r1, double omega1, const Positions& r2, double omega2,
                      double omega) {
    Positions r(r1.size());
    for (std::size_t i = 0; i < r.size(); ++i) {
        const double c = (r1[i] - r2[i]) / (1.0 / omega1 - 1.0 / omega2);
        r[i] = r2[i] + c * (1.0 / omega - 1.0 / omega2);
    }
    return r;
}

void run(Model& m, double omega, const Reference& ref, mdl::SimulationSettings s,
         const std::string& setting, bool averaged) {
    Positions last;
    try {
        const mdl::SimulationStatistics st =
            mdl::simulate(m.compiled, s, [&](const mdl::OutputRow& row) {
                last.assign(row.positions.begin(), row.positions.end());
                return true;
            });
        const Positions& r = averaged ? ref.mean_T : ref.at_T;
        double error = 0.0;
        for (std::size_t i = 0; i < r.size(); ++i) {
            error = std::max(error, std::abs(last[i] - r[i]));
        }
        std::string estimate = ",";
        if (st.error_estimate) {
            char text[64];
            std::snprintf(text, sizeof text, "%.3e,%.3e", st.error_estimate->total,
                          st.error_estimate->tolerance);
            estimate = text;
        }
        std::printf("%s,%g,%s,%s,%.3e,%zu,%.4f,%s\n", m.name.c_str(), omega, st.method.c_str(),
                    setting.c_str(), error, st.force_evaluations, st.seconds, estimate.c_str());
    } catch (const std::exception& e) {
        std::string what = e.what();
        std::replace(what.begin(), what.end(), ',', ';');
        std::replace(what.begin(), what.end(), '\n', ' ');
        std::printf("%s,%g,%s,%s,failed: %s,,,,\n", m.name.c_str(), omega, s.method->c_str(),
                    setting.c_str(), what.c_str());
    }
    std::fflush(stdout);
}

mdl::SimulationSettings base(const Model& m, const std::string& method, double T) {
    mdl::SimulationSettings s;
    s.method = method;
    s.stop = T;
    if (method == "hmm" && !m.hmm_filter.empty()) {
        s.filter = m.hmm_filter;
    }
    return s;
}

// The multiscale runs with fixed settings.
void fixed_multiscale(Model& m, double omega, double T, double period, const Reference& ref) {
    for (const std::string& method : m.multiscale) {
        if (method == "strobo") {
            for (int k : {16, 32, 64, 128}) {
                // macro steps of about T/k, a whole number of periods
                mdl::SimulationSettings s = base(m, method, T);
                s.step = std::max(1.0, std::round(T / k / period)) * period;
                s.micro_steps_per_period = 40;
                run(m, omega, ref, s, "H=T/" + std::to_string(k), false);
            }
            continue;
        }
        const bool stiff = method == "hmm-stiff";
        for (int k :
             stiff ? std::vector<int>{8, 16, 32, 64} : std::vector<int>{32, 64, 128, 256, 512}) {
            mdl::SimulationSettings s = base(m, method, T);
            s.step = T / k;
            run(m, omega, ref, s, "H=T/" + std::to_string(k), true);
        }
    }
}

// The multiscale runs under the error control: rtol 1e-2 .. 1e-5, the steps its choice.
void controlled_multiscale(Model& m, double omega, double T, const Reference& ref) {
    for (const std::string& method : m.multiscale) {
        for (double rtol : {1e-2, 1e-3, 1e-4, 1e-5}) {
            mdl::SimulationSettings s = base(m, method, T);
            s.rtol = rtol;
            s.atol = rtol * 1e-3;
            char setting[32];
            std::snprintf(setting, sizeof setting, "control rtol=%g", rtol);
            run(m, omega, ref, s, setting, method != "strobo");
        }
    }
}

void direct(Model& m, double omega, double T, double period, const Reference& ref) {
    for (double rtol : {1e-4, 1e-6, 1e-8}) {
        for (const char* method : {"dopri5", "cvode-adams"}) {
            if (m.constrained && std::string(method) == "cvode-adams") {
                continue; // refuses constraints
            }
            mdl::SimulationSettings s = base(m, method, T);
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
            mdl::SimulationSettings s = base(m, "rattle", T);
            s.step = period / n;
            s.every = 1000000;
            run(m, omega, ref, s, "h=P/" + std::to_string(n), false);
        }
    }
}

} // namespace

int main(int argc, char** argv) {
    const double max_omega = argc > 1 ? std::atof(argv[1]) : 1e6;
    const double direct_max = argc > 2 ? std::atof(argv[2]) : 1e6;
    const std::string only = argc > 3 ? argv[3] : "";
    const std::string dir = std::string(MDL_SOURCE_DIR) + "/models/";
    std::vector<Model> models;
    models.push_back({"kapitza",
                      without_annotated_step(dir + "kapitza.mdl"),
                      "omega",
                      {"hmm", "strobo"},
                      "",
                      false,
                      true});
    models.push_back({"inverted double pendulum M(q)",
                      mdl::compile(inverted_double_pendulum, "inverted_double_pendulum.mdl"),
                      "omega",
                      {"strobo", "hmm"},
                      "spline",
                      false,
                      false});
    models.push_back({"double pendulum Cartesian",
                      without_annotated_step(dir + "double_pendulum.mdl"),
                      "omega",
                      {"hmm-shake", "strobo"},
                      "",
                      true,
                      false});
    models.push_back({"stiff springs",
                      without_annotated_step(dir + "stiff_springs.mdl"),
                      "w2",
                      {"hmm-stiff"},
                      "",
                      false,
                      false});
    std::printf("model,omega,method,setting,error,force_evaluations,seconds,estimate,tolerance\n");
    std::fprintf(stderr, "references:\n");
    for (Model& m : models) {
        if (!only.empty() && m.name.find(only) == std::string::npos) {
            continue;
        }
        std::map<double, Reference> references; // the direct ones, by omega
        for (double nominal = 1e4; nominal <= max_omega * 1.001; nominal *= 10.0) {
            const double k = std::round(nominal / (2.0 * std::numbers::pi));
            const double omega = 2.0 * std::numbers::pi * k, period = 1.0 / k, T = 1.0;
            m.compiled.set_parameter(m.omega_parameter, omega);
            Reference ref;
            const bool feasible = nominal <= direct_max * 1.001;
            if (feasible) {
                ref = direct_reference(m, T, period);
                references[omega] = ref;
            } else if (m.kapitza) {
                ref = kapitza_averaged(omega, T);
                if (references.size() >= 2) { // the extrapolation beside it, as a check
                    const auto last = references.rbegin(), before = std::next(last);
                    std::fprintf(stderr, "  kapitza omega %g extrapolated in 1/omega: mean %.12g\n",
                                 omega,
                                 extrapolate(before->second.mean_T, before->first,
                                             last->second.mean_T, last->first, omega)[0]);
                }
            } else {
                const auto last = references.rbegin(), before = std::next(last);
                ref.mean_T = extrapolate(before->second.mean_T, before->first, last->second.mean_T,
                                         last->first, omega);
                ref.at_T = extrapolate(before->second.at_T, before->first, last->second.at_T,
                                       last->first, omega);
                ref.source = "extrapolated in 1/omega";
            }
            std::fprintf(stderr, "  %s omega %g (%s): mean %.12g, at T %.12g\n", m.name.c_str(),
                         omega, ref.source.c_str(), ref.mean_T[0], ref.at_T[0]);
            fixed_multiscale(m, omega, T, period, ref);
            controlled_multiscale(m, omega, T, ref);
            if (feasible) {
                direct(m, omega, T, period, ref);
            }
        }
    }
    return 0;
}
