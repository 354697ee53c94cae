#include "reproduce/reproduce_strobo.hpp"

#include "runtime/integrate.hpp"
#include "runtime/integrators/dopri5.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

namespace mdl::runtime::multiscale {

namespace {

constexpr double pi = std::numbers::pi;
constexpr double none = std::numeric_limits<double>::quiet_NaN(); // the paper's ***

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::size_t grid_points(double t0, double dt, double t_end) {
    return static_cast<std::size_t>(std::floor((t_end - t0) / dt + 1e-9)) + 1;
}

// DOPRI5 from `start`, stopping exactly at t0 + k dt; record(k, state).
template <class Force, class Record>
void integrate_on_grid(Dopri5<Force>& dopri, const State& start, double dt, double t_end,
                       Record&& record) {
    State s = start;
    const std::size_t points = grid_points(start.t, dt, t_end);
    record(std::size_t{0}, s);
    for (std::size_t k = 1; k < points; ++k) {
        integrate_adaptive(dopri, s, start.t + static_cast<double>(k) * dt, [](const State&) {});
        record(k, s);
    }
}

// The first-order averaged pendulum as an acceleration field.
struct AveragedLimitField {
    double g_over_l, c; // c = vmax^2/(2 l^2)
    void acceleration(double, const Vector& q, const Vector&, const Vector&, Vector& a) const {
        a[0] = g_over_l * std::sin(q[0]) - c * std::sin(q[0]) * std::cos(q[0]);
    }
    bool velocity_dependent() const { return false; }
};

// H = (2 pi/50)/2^nu -> nu
int paper_nu(double H) {
    const double nu = std::log2((2.0 * pi / 50.0) / H);
    const double rounded = std::round(nu);
    if (std::abs(nu - rounded) > 1e-9 || rounded < 0) {
        throw std::invalid_argument("H is not (2 pi/50)/2^nu");
    }
    return static_cast<int>(rounded);
}

struct PaperTable {
    const char* table;
    int order;
    double H;
    std::size_t microsteps;
    double values[4]; // eps = 1/400, 1/800, 1/1600, 1/3200
};

constexpr double paper_eps[4] = {1.0 / 400, 1.0 / 800, 1.0 / 1600, 1.0 / 3200};

// Calvo, Chartier, Murua & Sanz-Serna, Springer LNCSE 82 (2012), Sect. IV(A): the three tables of
// the inverted pendulum.
const PaperTable paper_tables[] = {
    {"q4", 4, pi / 25, 1120, {1.10e-1, 1.09e-1, 1.08e-1, 1.08e-1}},
    {"q4", 4, pi / 50, 4800, {8.12e-3, 7.85e-3, 7.79e-3, 7.76e-3}},
    {"q4", 4, pi / 100, 19840, {7.06e-4, 5.16e-4, 5.01e-4, 4.99e-4}},
    {"q4", 4, pi / 200, 80640, {2.35e-4, 4.71e-5, 3.53e-5, 3.45e-5}},
    {"q4", 4, pi / 400, 325120, {none, 1.47e-5, 3.06e-6, 2.32e-6}},
    {"q4", 4, pi / 800, 1300480, {none, none, 9.20e-7, 1.92e-7}},
    {"q4", 4, pi / 1600, 5212160, {none, none, none, 6.08e-8}},
    {"p4", 4, pi / 25, 1120, {1.66, 1.66, 1.66, 1.66}},
    {"p4", 4, pi / 50, 4800, {1.60e-1, 1.59e-1, 1.58e-1, 1.58e-1}},
    {"p4", 4, pi / 100, 19840, {1.33e-2, 9.80e-3, 9.57e-3, 9.55e-3}},
    {"p4", 4, pi / 200, 80640, {4.45e-3, 9.07e-4, 6.96e-4, 6.83e-4}},
    {"p4", 4, pi / 400, 325120, {none, 2.79e-4, 5.96e-5, 4.66e-5}},
    {"p4", 4, pi / 800, 1300480, {none, none, 1.76e-5, 3.78e-6}},
    {"p4", 4, pi / 1600, 5212160, {none, none, none, 1.29e-6}},
    {"q2", 2, pi / 25, 560, {1.05e-1, 1.08e-1, 1.08e-1, 1.08e-1}},
    {"q2", 2, pi / 50, 2400, {3.00e-2, 1.25e-2, 8.94e-3, 8.05e-3}},
    {"q2", 2, pi / 100, 9920, {2.71e-2, 7.01e-3, 2.07e-3, 8.78e-4}},
    {"q2", 2, pi / 200, 40320, {2.67e-2, 6.61e-3, 1.67e-3, 4.41e-4}},
    {"q2", 2, pi / 400, 162560, {none, 6.58e-3, 1.64e-3, 4.10e-4}},
};

bool selected(const std::vector<double>& only, double value) {
    return only.empty() || std::any_of(only.begin(), only.end(), [&](double v) {
               return std::abs(v - value) <= 1e-12 * std::abs(value);
           });
}

} // namespace

GridSolution oscillatory_reference(Model& kapitza_eps, const State& start, double eps, double dt,
                                   double t_end, double rtol) {
    kapitza_eps.set_parameter("eps", eps);
    Dopri5Options options;
    options.rtol = rtol;
    options.atol = rtol / 10.0;
    options.max_steps = 0;
    Dopri5<ModelForce> dopri(kapitza_eps, options);
    GridSolution out;
    out.eps = eps;
    out.dt = dt;
    integrate_on_grid(dopri, start, dt, t_end, [&](std::size_t, const State& s) {
        out.t.push_back(s.t);
        out.q.push_back(s.q[0]);
        out.p.push_back(s.v[0]);
    });
    return out;
}

GridSolution averaged_limit_reference(const Model& kapitza_eps, const State& start, double dt,
                                      double t_end) {
    const double g = kapitza_eps.parameter("g"), l = kapitza_eps.parameter("l"),
                 vmax = kapitza_eps.parameter("vmax"), theta0 = kapitza_eps.parameter("theta0");
    const double shift = vmax / l * std::sin(theta0); // p - P = shift * sin q at phase theta0
    Dopri5Options options;
    options.rtol = 1e-13;
    options.atol = 1e-14;
    options.max_steps = 0;
    Dopri5<AveragedLimitField> dopri(kapitza_eps,
                                     AveragedLimitField{g / l, vmax * vmax / (2 * l * l)}, options);
    State Z = start;
    Z.v[0] = start.v[0] - shift * std::sin(start.q[0]);
    GridSolution out;
    out.eps = 0.0;
    out.dt = dt;
    integrate_on_grid(dopri, Z, dt, t_end, [&](std::size_t, const State& s) {
        out.t.push_back(s.t);
        out.q.push_back(s.q[0]);
        out.p.push_back(s.v[0] + shift * std::sin(s.q[0]));
    });
    return out;
}

std::size_t paper_micro_steps_per_period(double H) {
    return std::size_t{10} << paper_nu(H);
}

StroboRun stroboscopic_error(Model& kapitza_eps, const State& start, int order, double H,
                             double eps, const GridSolution& reference) {
    kapitza_eps.set_parameter("eps", eps);
    StroboscopicOptions options;
    options.order = order;
    options.macro_step = H;
    options.t_end = start.t + 1.0;
    options.micro_steps_per_period = paper_micro_steps_per_period(H);
    const double ratio = H / reference.dt;
    const auto stride = static_cast<std::size_t>(std::llround(ratio));
    if (std::abs(ratio - static_cast<double>(stride)) > 1e-9 * ratio || stride == 0) {
        throw std::invalid_argument("the reference grid does not contain the macro points");
    }
    StroboRun run;
    run.order = order;
    run.H = H;
    run.eps = eps;
    State s = start;
    std::size_t n = 0;
    const auto begin = std::chrono::steady_clock::now();
    run.stats = run_stroboscopic(kapitza_eps, s, options, [&](const State& y) {
        const std::size_t k = n * stride;
        if (k >= reference.q.size()) {
            throw std::invalid_argument("the reference grid is too short");
        }
        run.q_error = std::max(run.q_error, std::abs(y.q[0] - reference.q[k]));
        run.p_error = std::max(run.p_error, std::abs(y.v[0] - reference.p[k]));
        ++n;
    });
    run.seconds = seconds_since(begin);
    return run;
}

std::vector<StroboRow> reproduce_stroboscopic_tables(Model& kapitza_eps, const State& start,
                                                     const std::vector<std::string>& tables,
                                                     const std::vector<double>& only_H,
                                                     const std::vector<double>& only_eps) {
    const auto wanted = [&](const char* table) {
        return std::find(tables.begin(), tables.end(), table) != tables.end();
    };
    double finest = pi / 25;
    for (const PaperTable& t : paper_tables) {
        if (wanted(t.table) && selected(only_H, t.H)) {
            finest = std::min(finest, t.H);
        }
    }
    std::vector<StroboRow> rows;
    for (std::size_t e = 0; e < 4; ++e) {
        const double eps = paper_eps[e];
        if (!selected(only_eps, eps)) {
            continue;
        }
        const GridSolution reference = oscillatory_reference(kapitza_eps, start, eps, finest);
        for (const int order : {4, 2}) {
            for (const PaperTable& t : paper_tables) {
                if (t.order != order || !selected(only_H, t.H) || std::isnan(t.values[e])) {
                    continue;
                }
                const bool q = wanted(order == 4 ? "q4" : "q2");
                const bool p = order == 4 && wanted("p4");
                if (!(std::string(t.table) == "q4" || std::string(t.table) == "q2") || (!q && !p)) {
                    continue; // one run per (order, H) serves both q4 and p4
                }
                const StroboRun run =
                    stroboscopic_error(kapitza_eps, start, order, t.H, eps, reference);
                for (const PaperTable& u : paper_tables) {
                    if (u.order != order || std::abs(u.H - t.H) > 1e-15 || !wanted(u.table)) {
                        continue;
                    }
                    StroboRow row;
                    row.table = u.table;
                    row.H = t.H;
                    row.eps = eps;
                    row.paper = u.values[e];
                    row.ours = u.table[0] == 'q' ? run.q_error : run.p_error;
                    row.paper_microsteps = u.microsteps;
                    row.microsteps = run.stats.micro_steps;
                    row.force_evaluations = run.stats.force_evaluations;
                    row.seconds = run.seconds;
                    rows.push_back(row);
                }
            }
        }
    }
    return rows;
}

StroboRow tiny_eps_row(Model& kapitza_eps, const State& start, double H, double eps) {
    const GridSolution reference = averaged_limit_reference(kapitza_eps, start, H);
    const StroboRun run = stroboscopic_error(kapitza_eps, start, 4, H, eps, reference);
    StroboRow row;
    row.table = "q4-limit";
    row.H = H;
    row.eps = eps;
    row.paper = none;
    for (const PaperTable& t : paper_tables) {
        if (std::string(t.table) == "q4" && std::abs(t.H - H) <= 1e-15) {
            row.paper = t.values[3]; // eps = 1/3200: the eps^4 part is negligible there
            row.paper_microsteps = t.microsteps;
        }
    }
    row.ours = run.q_error;
    row.microsteps = run.stats.micro_steps;
    row.force_evaluations = run.stats.force_evaluations;
    row.seconds = run.seconds;
    return row;
}

namespace {

std::string sci(double v) {
    if (std::isnan(v)) {
        return "***";
    }
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.2e", v);
    return buffer;
}

std::string pi_fraction(double H) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "pi/%.0f", pi / H);
    return buffer;
}

std::string eps_text(double eps) {
    char buffer[32];
    if (eps >= 1e-4) {
        std::snprintf(buffer, sizeof buffer, "1/%.0f", 1.0 / eps);
    } else {
        std::snprintf(buffer, sizeof buffer, "%.0e", eps);
    }
    return buffer;
}

} // namespace

std::string stroboscopic_markdown(const std::vector<StroboRow>& rows) {
    std::string out;
    std::vector<std::string> kinds;
    for (const StroboRow& r : rows) {
        if (std::find(kinds.begin(), kinds.end(), r.table) == kinds.end()) {
            kinds.push_back(r.table);
        }
    }
    for (const std::string& kind : kinds) {
        std::vector<double> Hs, epss;
        for (const StroboRow& r : rows) {
            if (r.table != kind) {
                continue;
            }
            if (std::find(Hs.begin(), Hs.end(), r.H) == Hs.end()) {
                Hs.push_back(r.H);
            }
            if (std::find(epss.begin(), epss.end(), r.eps) == epss.end()) {
                epss.push_back(r.eps);
            }
        }
        std::sort(Hs.begin(), Hs.end(), std::greater<>());
        std::sort(epss.begin(), epss.end(), std::greater<>());
        out += "**" + kind + "** (paper / ours)\n\n| H | microsteps (paper / ours) |";
        for (double eps : epss) {
            out += " eps = " + eps_text(eps) + " |";
        }
        out += "\n|---|---|";
        for (std::size_t i = 0; i < epss.size(); ++i) {
            out += "---|";
        }
        out += "\n";
        for (double H : Hs) {
            std::string line = "| " + pi_fraction(H) + " | ";
            bool counts = false;
            std::string cells;
            for (double eps : epss) {
                const auto found = std::find_if(rows.begin(), rows.end(), [&](const StroboRow& r) {
                    return r.table == kind && r.H == H && r.eps == eps;
                });
                if (found == rows.end()) {
                    cells += " *** |";
                    continue;
                }
                if (!counts) {
                    line += std::to_string(found->paper_microsteps) + " / " +
                            std::to_string(found->microsteps) + " |";
                    counts = true;
                }
                cells += " " + sci(found->paper) + " / " + sci(found->ours) + " |";
            }
            out += line + cells + "\n";
        }
        out += "\n";
    }
    return out;
}

} // namespace mdl::runtime::multiscale
