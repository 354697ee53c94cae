#include "reproduce/reproduce_hmm.hpp"

#include "runtime/integrate.hpp"
#include "runtime/integrators/dopri5.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>

namespace mdl::runtime::multiscale {

namespace {

Eigen::Index position(const Model& model, const std::string& name) {
    for (Eigen::Index i = 0; i < model.positions(); ++i) {
        if (model.position_name(i) == name) {
            return i;
        }
    }
    throw std::invalid_argument("the model has no position '" + name + "'");
}

// The averaged force of eq. (2.6) as an acceleration field for our integrators.
struct AveragedPendulumField {
    double g_over_l, vibration; // g/l, vmax^2/(2 l^2)
    void acceleration(double, const Vector& q, const Vector&, const Vector&, Vector& a) const {
        a[0] = (g_over_l - vibration * std::cos(q[0])) * std::sin(q[0]);
    }
    bool velocity_dependent() const { return false; }
};

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct PaperRow {
    double H;
    std::size_t microsteps;
    std::vector<double> omegas, errors;
};

const std::vector<PaperRow>& paper_table(const std::string& table) {
    static const std::map<std::string, std::vector<PaperRow>> tables = {
        {"2.1",
         {{1.0 / 10, 4000, {1e4, 1e6, 1e8}, {4.04e-1, 4.08e-1, 4.04e-1}},
          {1.0 / 20, 16000, {1e4, 1e6, 1e8}, {1.05e-1, 1.07e-1, 1.08e-1}},
          {1.0 / 40, 64000, {1e4, 1e6, 1e8}, {2.51e-2, 2.70e-2, 2.61e-2}},
          {1.0 / 80, 256000, {1e4, 1e6, 1e8}, {4.76e-3, 6.72e-3, 6.69e-3}}}},
        {"2.2",
         {{1.0 / 10, 2000, {1e4, 1e6, 1e8}, {4.10e-1, 4.08e-1, 4.05e-1}},
          {1.0 / 20, 8000, {1e4, 1e6, 1e8}, {1.10e-1, 1.07e-1, 1.05e-1}},
          {1.0 / 40, 32000, {1e4, 1e6, 1e8}, {2.95e-2, 2.71e-2, 2.51e-2}},
          {1.0 / 80, 128000, {1e4, 1e6, 1e8}, {9.11e-3, 6.74e-3, 4.81e-3}}}},
        {"2.3",
         {{1.0 / 10, 50, {1e3, 1e4, 1e6, 1e8}, {3.86e-1, 4.05e-1, 4.07e-1, 4.07e-1}},
          {1.0 / 20, 200, {1e3, 1e4, 1e6, 1e8}, {9.11e-2, 1.05e-1, 1.07e-1, 1.07e-1}},
          {1.0 / 40, 800, {1e3, 1e4, 1e6, 1e8}, {1.15e-2, 2.55e-2, 2.70e-2, 2.70e-2}},
          {1.0 / 80, 3200, {1e3, 1e4, 1e6, 1e8}, {8.67e-3, 5.20e-3, 6.70e-3, 6.71e-3}}}},
    };
    return tables.at(table);
}

std::vector<TableRow> reproduce(const std::string& table, Model& kapitza, const State& start,
                                const HmmOptions& base, const std::vector<double>& only_H) {
    std::vector<TableRow> rows;
    for (const PaperRow& paper : paper_table(table)) {
        if (!only_H.empty() && std::none_of(only_H.begin(), only_H.end(), [&](double H) {
                return std::abs(H - paper.H) < 1e-12;
            })) {
            continue;
        }
        const AveragedSolution reference =
            averaged_pendulum_solution(kapitza, start, paper.H, base.t_end);
        HmmOptions options = base;
        options.macro_step = paper.H;
        for (std::size_t i = 0; i < paper.omegas.size(); ++i) {
            TableRow row = kapitza_error(kapitza, start, options, paper.omegas[i], reference);
            row.table = table;
            row.paper = paper.errors[i];
            row.paper_microsteps = paper.microsteps;
            rows.push_back(row);
        }
    }
    return rows;
}

HmmOptions table_options(HmmAlgorithm algorithm, FilterKind filter, bool force_even) {
    HmmOptions o;
    o.macro = HmmMacro::verlet;
    o.algorithm = algorithm;
    o.filter = filter;
    o.window_periods = filter == FilterKind::exponential ? 40.0 : 1.0;
    o.t_end = 1.0;
    o.macro_time_scale = 1.0;
    o.force_even_in_phase = force_even;
    o.final_velocity = false;    // the paper's count: F_0..F_{N-1}
    o.offset_correction = false; // the paper's algorithms, micro-runs from q = Q_n
    return o;
}

std::string format_e(double x, int digits = 3) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*e", digits - 1, x);
    return buffer;
}

std::string format_omega(double omega) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "1e%d", static_cast<int>(std::lround(std::log10(omega))));
    return buffer;
}

std::string format_H(double H) {
    return "1/" + std::to_string(std::lround(1.0 / H));
}

} // namespace

AveragedSolution averaged_pendulum_solution(const Model& kapitza, const State& start, double H,
                                            double t_end) {
    const double l = kapitza.parameter("l");
    const double g = kapitza.parameter("g");
    const double vmax = kapitza.parameter("vmax");
    Dopri5Options options;
    options.rtol = 1e-13;
    options.atol = 1e-15;
    Dopri5<AveragedPendulumField> dopri(
        kapitza, AveragedPendulumField{g / l, vmax * vmax / (2.0 * l * l)}, options);
    State s = start;
    AveragedSolution out;
    integrate_adaptive(
        dopri, s, t_end,
        [&](const State& x) {
            out.t.push_back(x.t);
            out.Q.push_back(x.q[0]);
        },
        H);
    return out;
}

TableRow kapitza_error(Model& kapitza, const State& start, const HmmOptions& options, double omega,
                       const AveragedSolution& reference) {
    kapitza.set_parameter("omega", omega);
    const auto begin = std::chrono::steady_clock::now();
    State s = start;
    double error = 0.0;
    std::size_t n = 0;
    const HmmStats stats = run_hmm(kapitza, s, options, [&](const State& x) {
        if (n >= reference.t.size() || std::abs(reference.t[n] - x.t) > 1e-9) {
            throw std::logic_error("reference and HMM step points differ");
        }
        error = std::max(error, std::abs(x.q[0] - reference.Q[n]));
        ++n;
    });
    TableRow row;
    row.H = options.macro_step;
    row.omega = omega;
    row.ours = error;
    row.microsteps = stats.micro_steps;
    row.force_evaluations = stats.force_evaluations;
    row.seconds = seconds_since(begin);
    return row;
}

std::vector<TableRow> reproduce_table_2_1(Model& kapitza, const State& start, bool force_even,
                                          const std::vector<double>& only_H) {
    return reproduce("2.1", kapitza, start,
                     table_options(HmmAlgorithm::synchronous, FilterKind::exponential, force_even),
                     only_H);
}

std::vector<TableRow> reproduce_table_2_2(Model& kapitza, const State& start, bool force_even,
                                          const std::vector<double>& only_H) {
    return reproduce("2.2", kapitza, start,
                     table_options(HmmAlgorithm::asynchronous, FilterKind::exponential, force_even),
                     only_H);
}

std::vector<TableRow> reproduce_table_2_3(Model& kapitza, const State& start, bool force_even,
                                          const std::vector<double>& only_H) {
    return reproduce("2.3", kapitza, start,
                     table_options(HmmAlgorithm::asynchronous, FilterKind::simple, force_even),
                     only_H);
}

PendulumRun run_double_pendulum(Model& pendulum, const State& start, HmmMacro macro, double H,
                                double omega, bool force_even) {
    pendulum.set_parameter("omega", omega);
    const Eigen::Index x1 = position(pendulum, "b1.x"), y1 = position(pendulum, "b1.y");
    const Eigen::Index x2 = position(pendulum, "b2.x"), y2 = position(pendulum, "b2.y");
    HmmOptions o;
    o.macro = macro;
    o.algorithm = HmmAlgorithm::asynchronous;
    o.filter = FilterKind::simple;
    o.t_end = 1.0;
    o.macro_step = H;
    o.macro_time_scale = 0.4;
    o.force_even_in_phase = force_even;
    o.final_velocity = false; // the paper's count
    PendulumRun run;
    run.H = H;
    run.omega = omega;
    Vector g(pendulum.constraints());
    const auto begin = std::chrono::steady_clock::now();
    State s = start;
    run.stats = run_hmm(pendulum, s, o, [&](const State& x) {
        run.t.push_back(x.t);
        run.q1.push_back(std::atan(x.q[x1] / x.q[y1]));
        run.q2.push_back(std::atan((x.q[x2] - x.q[x1]) / (x.q[y2] - x.q[y1])));
        run.lambda1.push_back(x.lambda[0]);
        run.lambda2.push_back(x.lambda[1]);
        pendulum.constraint(x.q, g);
        run.max_residual = std::max(run.max_residual, g.cwiseAbs().maxCoeff());
    });
    run.seconds = seconds_since(begin);
    return run;
}

std::string table_markdown(const std::vector<TableRow>& rows) {
    std::string out;
    std::string current;
    for (const TableRow& r : rows) {
        if (r.table != current) {
            current = r.table;
            out += "\n| Table | H | omega | microsteps (paper) | microsteps (ours) | "
                   "force evaluations | error (paper) | error (ours) | ours/paper |\n"
                   "|---|---|---|---|---|---|---|---|---|\n";
        }
        out += "| " + r.table + " | " + format_H(r.H) + " | " + format_omega(r.omega) + " | " +
               std::to_string(r.paper_microsteps) + " | " + std::to_string(r.microsteps) + " | " +
               std::to_string(r.force_evaluations) + " | " + format_e(r.paper) + " | " +
               format_e(r.ours) + " | " + format_e(r.ours / r.paper, 3) + " |\n";
    }
    return out;
}

std::string pendulum_markdown(const std::vector<PendulumRun>& runs) {
    std::string out = "\n| H | omega | microsteps | force evaluations | q1(0) | min q1 | q1(1) | "
                      "max constraint residual |\n|---|---|---|---|---|---|---|---|\n";
    for (const PendulumRun& r : runs) {
        out += "| " + format_H(r.H) + " | " + format_omega(r.omega) + " | " +
               std::to_string(r.stats.micro_steps) + " | " +
               std::to_string(r.stats.force_evaluations) + " | " + format_e(r.q1.front(), 4) +
               " | " + format_e(*std::min_element(r.q1.begin(), r.q1.end()), 4) + " | " +
               format_e(r.q1.back(), 4) + " | " + format_e(r.max_residual, 2) + " |\n";
    }
    return out;
}

} // namespace mdl::runtime::multiscale
