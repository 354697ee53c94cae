#include "reproduce/reproduce_stiff.hpp"

#include "runtime/integrators/dopri5.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace mdl::runtime::multiscale {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

constexpr double paper_t_end = 10.0;
constexpr double paper_H = 1.0 / 32.0;

struct PaperTable1Row {
    double w2, rk4_32, ode45;
};
// Table 1: the H = 1/32 and ode45 columns.
const std::vector<PaperTable1Row> paper_table_1 = {
    {200, 4.8e-2, 4.9e-2},   {500, 7.9e-3, 9.9e-3},  {1000, 2.1e-3, 4.1e-3},
    {2000, 5.9e-4, 2.7e-3},  {5000, 1.6e-4, 2.2e-3}, {10000, 6.9e-5, 1.9e-3},
    {20000, 3.1e-5, 1.6e-3},
};

struct PaperTable2Row {
    double w2;
    std::size_t direct_accepted, direct_rejected, hmm_accepted, hmm_rejected;
};
const std::vector<PaperTable2Row> paper_table_2 = {
    {200, 3563, 802, 22, 0},       {500, 8880, 2040, 22, 0},    {1000, 17796, 4012, 22, 0},
    {2000, 35589, 7914, 22, 0},    {5000, 88898, 19125, 22, 0}, {10000, 178496, 38840, 22, 1},
    {20000, 350740, 80250, 23, 1},
};

bool selected(const std::vector<double>& only, double w2) {
    return only.empty() || std::any_of(only.begin(), only.end(),
                                       [&](double w) { return std::abs(w - w2) <= 1e-9 * w2; });
}

void set_frequencies(Model& model, double w1, double w2) {
    model.set_parameter("w1", w1);
    model.set_parameter("w2", w2);
}

// The sorted union of the runs' output times.
std::vector<double> union_times(const std::vector<const StiffRun*>& runs) {
    std::vector<double> times;
    for (const StiffRun* r : runs) {
        times.insert(times.end(), r->t.begin(), r->t.end());
    }
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end(),
                            [](double a, double b) { return std::abs(a - b) <= 1e-12; }),
                times.end());
    return times;
}

std::string format_e(double x, int digits = 2) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*e", digits - 1, x);
    return buffer;
}

std::string format_f(double x, int decimals) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, x);
    return buffer;
}

std::string format_g(double x) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%g", x);
    return buffer;
}

} // namespace

StiffReference stiff_reference(const Model& model, const State& start,
                               const std::vector<double>& times, double rtol, double atol) {
    const auto begin = std::chrono::steady_clock::now();
    StiffReference out;
    if (times.empty()) {
        return out;
    }
    Dopri5Options options;
    options.rtol = rtol;
    options.atol = atol;
    Dopri5<ModelForce> dopri(model, options);
    State s = start;
    State dense = s;
    const double t_end = times.back();
    const double tol = 1e-12 * std::max(1.0, std::abs(t_end - start.t));
    std::size_t next = 0;
    const auto record = [&](const State& x) {
        out.t.push_back(times[next]);
        out.q.push_back(x.q);
        out.v.push_back(x.v);
        ++next;
    };
    while (next < times.size() && times[next] <= s.t + tol) {
        record(s);
    }
    double h = next < times.size() ? dopri.initial_step(s, t_end) : 0.0;
    while (next < times.size()) {
        double attempt = h;
        bool last = false;
        if (1.01 * std::abs(attempt) >= std::abs(t_end - s.t)) {
            attempt = t_end - s.t;
            last = true;
        }
        double proposed = attempt;
        if (!dopri.try_step(s, proposed)) {
            ++out.stats.rejected;
            h = proposed;
            continue;
        }
        ++out.stats.steps;
        h = proposed;
        if (last) {
            s.t = t_end;
        }
        require_finite(model, s, "dopri5");
        while (next < times.size() && times[next] <= s.t + tol) {
            if (std::abs(times[next] - s.t) <= tol) {
                record(s);
            } else {
                dopri.interpolate(times[next], dense);
                record(dense);
            }
        }
    }
    out.stats.force_evaluations = dopri.force().evaluations();
    out.seconds = seconds_since(begin);
    return out;
}

StiffRun run_stiff(const Model& model, const State& start, const StiffHmmOptions& options) {
    StiffRun run;
    State s = start;
    run.stats = run_stiff_hmm(model, s, options, [&](const State& x) {
        run.t.push_back(x.t);
        run.q.push_back(x.q);
        run.v.push_back(x.v);
    });
    return run;
}

double max_position_error(const StiffRun& run, const StiffReference& reference, double from,
                          double to) {
    double error = 0.0;
    for (std::size_t i = 0; i < run.t.size(); ++i) {
        const double t = run.t[i];
        if (t < from || t > to) {
            continue;
        }
        const auto it = std::lower_bound(reference.t.begin(), reference.t.end(), t - 1e-9);
        if (it == reference.t.end() || std::abs(*it - t) > 1e-9) {
            throw std::logic_error("the reference has no value at t = " + format_number(t));
        }
        const auto k = static_cast<std::size_t>(it - reference.t.begin());
        error = std::max(error, (run.q[i] - reference.q[k]).cwiseAbs().maxCoeff());
    }
    return error;
}

StiffHmmOptions paper_options(const Model& model, StiffMacro macro, double H_or_output) {
    StiffHmmOptions o;
    o.macro = macro;
    o.t_end = paper_t_end;
    o.macro_step = H_or_output;
    o.omega = std::max(model.parameter("w1"), model.parameter("w2"));
    o.window_periods = 20.0;
    o.micro_steps_per_period = 6;
    o.project_initial = true;
    o.rtol = 1e-3;
    o.atol = 1e-6;
    o.max_step = 0.0; // ode45's MaxStep: a tenth of the interval
    o.refine = 4;     // ode45's output: 4 points per accepted step
    return o;
}

std::vector<StiffTableRow> reproduce_stiff_table_1(Model& model, const StiffStart& start,
                                                   const std::vector<double>& only_w2,
                                                   bool with_dopri5) {
    std::vector<StiffTableRow> rows;
    for (const PaperTable1Row& paper : paper_table_1) {
        if (!selected(only_w2, paper.w2)) {
            continue;
        }
        const double w1 = 1.0;
        set_frequencies(model, w1, paper.w2);
        const State s0 = start(w1, paper.w2);
        const StiffRun rk4 = run_stiff(model, s0, paper_options(model, StiffMacro::rk4, paper_H));
        std::vector<const StiffRun*> runs = {&rk4};
        StiffRun dopri5;
        if (with_dopri5) {
            dopri5 = run_stiff(model, s0, paper_options(model, StiffMacro::dopri5, 0.0));
            runs.push_back(&dopri5);
        }
        const StiffReference reference = stiff_reference(model, s0, union_times(runs));
        StiffTableRow row;
        row.experiment = "Table 1";
        row.macro = "rk4 H = 1/32";
        row.w1 = w1;
        row.w2 = paper.w2;
        row.paper = paper.rk4_32;
        row.ours = max_position_error(rk4, reference);
        row.stats = rk4.stats;
        rows.push_back(row);
        if (with_dopri5) {
            row.macro = "dopri5";
            row.paper = paper.ode45;
            row.ours = max_position_error(dopri5, reference);
            row.asserted = false;
            row.stats = dopri5.stats;
            rows.push_back(row);
        }
    }
    return rows;
}

std::vector<StiffCostRow> reproduce_stiff_table_2(Model& model, const StiffStart& start,
                                                  const std::vector<double>& only_w2) {
    std::vector<StiffCostRow> rows;
    for (const PaperTable2Row& paper : paper_table_2) {
        if (!selected(only_w2, paper.w2)) {
            continue;
        }
        const double w1 = 1.0;
        set_frequencies(model, w1, paper.w2);
        const State s0 = start(w1, paper.w2);
        StiffCostRow row;
        row.w2 = paper.w2;
        row.paper_direct_accepted = paper.direct_accepted;
        row.paper_direct_rejected = paper.direct_rejected;
        row.paper_hmm_accepted = paper.hmm_accepted;
        row.paper_hmm_rejected = paper.hmm_rejected;
        Dopri5Options options;
        options.rtol = 1e-3;
        options.atol = 1e-6;
        Dopri5<ModelForce> direct(model, options);
        State s = s0;
        const auto begin = std::chrono::steady_clock::now();
        row.direct = integrate_adaptive(direct, s, paper_t_end, [](const State&) {});
        row.direct_seconds = seconds_since(begin);
        row.direct.force_evaluations = direct.force().evaluations();
        row.hmm = run_stiff(model, s0, paper_options(model, StiffMacro::dopri5, 0.0)).stats;
        rows.push_back(row);
    }
    return rows;
}

StiffTableRow reproduce_stiff_case_ii(const Model& model, const State& start) {
    const StiffRun run = run_stiff(model, start, paper_options(model, StiffMacro::dopri5, 0.0));
    const StiffReference reference = stiff_reference(model, start, run.t);
    StiffTableRow row;
    row.experiment = "case (ii)";
    row.macro = "dopri5";
    row.w1 = model.parameter("w1");
    row.w2 = model.parameter("w2");
    row.paper = 0.041;
    row.ours = max_position_error(run, reference);
    row.stats = run.stats;
    return row;
}

StiffTableRow reproduce_stiff_case_iii(const Model& model, const State& start, bool reproject) {
    StiffHmmOptions o = paper_options(model, StiffMacro::dopri5, 0.0);
    o.reproject_every = reproject ? 1.0 : 0.0;
    const StiffRun run = run_stiff(model, start, o);
    const StiffReference reference = stiff_reference(model, start, run.t);
    StiffTableRow row;
    row.experiment = reproject ? "case (iii), re-projected at t = 1, ..., 9" : "case (iii)";
    row.macro = "dopri5";
    row.w1 = model.parameter("w1");
    row.w2 = model.parameter("w2");
    row.paper = reproject ? 0.0359 : 1.0; // without: "completely wrong at t ~ 2", O(1)
    row.ours = max_position_error(run, reference);
    row.asserted = reproject;
    row.stats = run.stats;
    return row;
}

std::string stiff_figure_csv(const Model& model, const State& start,
                             const StiffHmmOptions& options) {
    const StiffRun run = run_stiff(model, start, options);
    const StiffReference ref = stiff_reference(model, start, run.t);
    if (model.positions() != 4) {
        throw std::invalid_argument("stiff_figure_csv: expects the two-mass model (x1 y1 x2 y2)");
    }
    const auto lengths = [](const Vector& q, double& r1, double& r12) {
        r1 = std::hypot(q[0], q[1]);
        r12 = std::hypot(q[2] - q[0], q[3] - q[1]);
    };
    std::string out =
        "t,hmm_x1,hmm_y1,hmm_x2,hmm_y2,ref_x1,ref_y1,ref_x2,ref_y2,hmm_r1,hmm_r12,"
        "ref_r1,ref_r12,hmm_vx_center,hmm_vx1,hmm_vx2,ref_vx_center,ref_vx1,ref_vx2\n";
    for (std::size_t i = 0; i < run.t.size(); ++i) {
        const Vector& q = run.q[i];
        const Vector& v = run.v[i];
        const Vector& rq = ref.q[i];
        const Vector& rv = ref.v[i];
        double r1 = 0, r12 = 0, rr1 = 0, rr12 = 0;
        lengths(q, r1, r12);
        lengths(rq, rr1, rr12);
        const double values[] = {run.t[i],
                                 q[0],
                                 q[1],
                                 q[2],
                                 q[3],
                                 rq[0],
                                 rq[1],
                                 rq[2],
                                 rq[3],
                                 r1,
                                 r12,
                                 rr1,
                                 rr12,
                                 0.5 * (v[0] + v[2]),
                                 v[0],
                                 v[2],
                                 0.5 * (rv[0] + rv[2]),
                                 rv[0],
                                 rv[2]};
        bool first = true;
        for (double x : values) {
            if (!first) {
                out += ','; // (not "," + number: GCC 12 -O3 -Wrestrict false alarm)
            }
            out += format_number(x);
            first = false;
        }
        out += "\n";
    }
    return out;
}

std::string stiff_table_markdown(const std::vector<StiffTableRow>& rows) {
    std::string out =
        "\n| experiment | macro-integrator | w1 | w2 | error (paper) | error (ours) | "
        "ours/paper | macro steps (accepted/rejected) | force estimates | "
        "micro steps |\n|---|---|---|---|---|---|---|---|---|---|\n";
    for (const StiffTableRow& r : rows) {
        out += "| " + r.experiment + " | " + r.macro + " | " + format_g(r.w1) + " | " +
               format_g(r.w2) + " | " + format_e(r.paper) + " | " + format_e(r.ours, 3) + " | " +
               (r.asserted ? format_f(r.ours / r.paper, 2) : format_f(r.ours / r.paper, 2) + "*") +
               " | " + std::to_string(r.stats.macro_steps) + "/" +
               std::to_string(r.stats.rejected_steps) + " | " +
               std::to_string(r.stats.force_estimates) + " | " +
               std::to_string(r.stats.micro_steps) + " |\n";
    }
    return out;
}

std::string stiff_cost_markdown(const std::vector<StiffCostRow>& rows, bool wall_times) {
    std::string out =
        "\n| w2 | direct accepted (paper) | direct accepted (ours) | direct rejected (paper) | "
        "direct rejected (ours) | direct force evaluations | HMM accepted (paper) | "
        "HMM accepted (ours) | HMM rejected (paper) | HMM rejected (ours) | HMM micro steps |";
    out += wall_times
               ? " direct s | HMM s |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
               : "\n|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const StiffCostRow& r : rows) {
        out += "| " + format_g(r.w2) + " | " + std::to_string(r.paper_direct_accepted) + " | " +
               std::to_string(r.direct.steps) + " | " + std::to_string(r.paper_direct_rejected) +
               " | " + std::to_string(r.direct.rejected) + " | " +
               std::to_string(r.direct.force_evaluations) + " | " +
               std::to_string(r.paper_hmm_accepted) + " | " + std::to_string(r.hmm.macro_steps) +
               " | " + std::to_string(r.paper_hmm_rejected) + " | " +
               std::to_string(r.hmm.rejected_steps) + " | " + std::to_string(r.hmm.micro_steps) +
               " |";
        out += wall_times ? " " + format_f(r.direct_seconds, 3) + " | " +
                                format_f(r.hmm.seconds, 3) + " |\n"
                          : "\n";
    }
    return out;
}

} // namespace mdl::runtime::multiscale
