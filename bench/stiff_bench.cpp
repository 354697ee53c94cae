// Stiff springs: HMM against CVODE (issue 9). The two-mass system of models/stiff_springs.mdl
// (hmm-stiff-constrained, section 4, case (i): w1 = 1, x2(0) = 2 + 1/w2, T = 10) at the w2 of
// the paper's Table 2, 200 ... 20000, integrated
//  - by the stiff HMM (run_stiff_hmm) with the DOPRI5 macro-integrator at the paper's Table 2
//    settings (paper_options: rtol 1e-3, atol 1e-6, Verlet micro steps (2 pi/w2)/6, exponential
//    kernel over 20 periods), the same for every w2;
//  - directly, through runtime::run as `mdl run` does, by SUNDIALS CVODE BDF (cvode-bdf,
//    Newton with the model's Jacobian), CVODE Adams (cvode-adams, functional iteration) and
//    our DOPRI5, each at the loosest rtol = atol of a ladder that reaches the HMM's error at
//    that w2.
// and timed (stiff/<method>/w2:<value>).
//
// Error, the same for every method: max over the checkpoints t_j = j/4 (j = 1..40, the output
// interval of the paper's figures) of the infinity norm of the position error against the
// reference solution of the stiff system, DOPRI5 at rtol 1e-10, atol 1e-12 read from its dense
// output (reproduce_stiff's stiff_reference, the reference of Tables 1 and 2). The HMM writes
// its macro state at the checkpoints by dense output (macro_step = 1/4; the step sequence is
// that of the paper's refine-4 outputs); its error at those outputs, Table 1's definition, is
// reported beside it.
//
// Ladder (direct methods): rtol = atol = 1e-1, 3e-2, 1e-2, ..., 1e-10; the chosen setting is
// the loosest that reaches the HMM's error and whose next tighter neighbour does too (at loose
// tolerances the errors of these runs are not monotone: some blow up, some land near the
// reference by chance). The search at each w2 starts one rung looser than the previous w2's
// choice. A run whose estimated time (the time measured at the previous w2 times the ratio of
// the w2: the steps grow in proportion to w2) exceeds the cap is not run; the table gives the
// estimate, labelled as such.
#include "bench.hpp"
#include "compiler/api/runtime_view.hpp"
#include "mdl/compiled_model.hpp"
#include "reproduce/reproduce_stiff.hpp"
#include "runtime/integrators/cvode.hpp"
#include "runtime/methods.hpp"
#include "runtime/multiscale/stiff_hmm.hpp"
#include "runtime/numerical_failure.hpp"
#include "runtime/run.hpp"
#include "study.hpp"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>

namespace mdl::bench {

namespace {

using runtime::Model;
using runtime::State;
using runtime::Vector;
namespace ms = runtime::multiscale;

const std::vector<double> w2_values{200, 500, 1000, 2000, 5000, 10000, 20000};
constexpr double t_end = 10.0;
constexpr double checkpoint_spacing = 0.25;
constexpr int checkpoints = 40; // t_j = j/4, j = 1..40
// The reference (DOPRI5 rtol 1e-10, atol 1e-12) is checked against DOPRI5 at rtol 1e-12,
// atol 1e-14 up to this w2.
constexpr double reference_check_max_w2 = 1000;
// A direct run taking more than this many steps per unit of w2 is stopped (a run blowing up).
constexpr double max_steps_per_w2 = 2000;

// cvode_bdf_projected, cvode_bdf_manifold: BDF on the same system from other initial data
// (Start below), against the stiff solution from those data.
enum class Kind { hmm, dopri5, cvode_adams, cvode_bdf, cvode_bdf_projected, cvode_bdf_manifold };

struct MethodDescription {
    Kind kind;
    std::string name;  // in benchmark names and CSV columns
    std::string label; // in the tables
};

const std::vector<MethodDescription>& method_list() {
    static const std::vector<MethodDescription> list = [] {
        std::vector<MethodDescription> l{{Kind::hmm, "hmm-stiff", "hmm-stiff"}};
        if (runtime::cvode_available()) {
            l.push_back({Kind::cvode_bdf, "cvode-bdf", "cvode-bdf"});
            l.push_back({Kind::cvode_adams, "cvode-adams", "cvode-adams"});
        }
        l.push_back({Kind::dopri5, "dopri5", "dopri5"});
        if (runtime::cvode_available()) {
            l.push_back({Kind::cvode_bdf_projected, "cvode-bdf-projected-start",
                         "cvode-bdf from the HMM's projected start (other initial data)"});
            l.push_back({Kind::cvode_bdf_manifold, "cvode-bdf-manifold-start",
                         "cvode-bdf from the slow manifold (other initial data)"});
        }
        return l;
    }();
    return list;
}

std::vector<double> ladder() {
    std::vector<double> out;
    for (int j = 0; j <= 18; ++j) {
        out.push_back(std::pow(10.0, -1.0 - 0.5 * j));
    }
    return out;
}

std::string tolerance_text(double tol) {
    const double exponent = std::log10(tol);
    const double mantissa = tol / std::pow(10.0, std::floor(exponent + 1e-9));
    return fmt::format("{:.0f}e{}", mantissa, static_cast<int>(std::floor(exponent + 1e-9)));
}

std::string w2_text(double w2) {
    return fmt::format("{:.0f}", w2);
}

// The Jacobian evaluations of cvode-bdf: the model's df/dq kernel, called once per Jacobian
// (with df/dv), counted by a shim in a copy of the kernel table (calibration runs only; the
// timed runs use the compiled table as it is).
mdl_kernel original_force_dq = nullptr;
std::size_t force_dq_calls = 0;
void counting_force_dq(const mdl_kernel_args* args, double* out) {
    ++force_dq_calls;
    original_force_dq(args, out);
}

struct Springs {
    std::shared_ptr<CompiledModel> compiled;
    std::optional<Model> model;    // as `mdl run` builds it
    std::optional<Model> counting; // the same with the df/dq shim
    double w2 = 0.0;

    void set_w2(double value) {
        w2 = value;
        compiled->set_parameter("w2", value);
        model->set_parameter("w2", value);
        counting->set_parameter("w2", value);
    }
    // The start state for the current w2 (x2(0) = 2 + 1/w2).
    State start() const { return mdl::initial_state(*compiled, *model, 0.0); }
};

Springs& springs() {
    static Springs s = [] {
        Springs out;
        out.compiled = std::make_shared<CompiledModel>(
            compile_file(std::string(MDL_SOURCE_DIR) + "/models/stiff_springs.mdl"));
        out.model.emplace(mdl::runtime_model(*out.compiled));
        mdl_kernels kernels = out.compiled->kernels();
        if (kernels.force_dq == nullptr) {
            throw std::runtime_error("stiff_springs has no df/dq kernel");
        }
        original_force_dq = kernels.force_dq;
        kernels.force_dq = counting_force_dq;
        out.counting.emplace(kernels, out.model->parameters(), out.model->names());
        return out;
    }();
    return s;
}

// Initial data and the stiff solution from them at the checkpoints, q(t_j), j = 1..checkpoints.
struct Start {
    State state;
    std::vector<Vector> reference;
    // The velocity amplitude of the fast (radial) oscillation of the stiff spring they excite:
    // sqrt(v_r^2 + (sqrt(2) w2 (s - s_eq))^2), v_r the radial relative velocity, s = r12 - 1 the
    // stretch and s_eq the quasi-static one (quasi_static_stretch).
    double fast_velocity_amplitude = 0.0;
};

// The stretch s of spring 2 at which the radial relative acceleration vanishes (unit masses):
// r12 theta'^2 - 2 w2^2 s - a1.n = 0, a1 the acceleration of mass 1 by spring 1, n = d/|d|,
// d = q2 - q1, theta' the relative angular velocity; the mid-point of the masses fixed.
double quasi_static_stretch(const Vector& q, const Vector& v, double w1, double w2) {
    const Eigen::Vector2d q1(q[0], q[1]), d(q[2] - q[0], q[3] - q[1]);
    const Eigen::Vector2d vrel(v[2] - v[0], v[3] - v[1]);
    const double r = d.norm();
    const Eigen::Vector2d n = d / r;
    const double tangential = (vrel - vrel.dot(n) * n).norm();
    const double r1 = q1.norm();
    const Eigen::Vector2d a1 = -w1 * w1 * (r1 - 1.0) * q1 / r1;
    return (tangential * tangential / r - a1.dot(n)) / (2.0 * w2 * w2);
}

double fast_velocity_amplitude(const State& s, double w1, double w2) {
    const Vector& q = s.q; // x1 y1 x2 y2
    const Vector& v = s.v;
    const Eigen::Vector2d d(q[2] - q[0], q[3] - q[1]), vrel(v[2] - v[0], v[3] - v[1]);
    const double r = d.norm();
    const double radial = vrel.dot(d) / r;
    const double offset = r - 1.0 - quasi_static_stretch(q, v, w1, w2);
    return std::hypot(radial, std::sqrt(2.0) * w2 * offset);
}

// The given data moved onto the slow manifold: no radial relative velocity and spring 2 at its
// quasi-static stretch, the centre of mass and its velocity and the tangential relative
// velocity kept.
State on_slow_manifold(const State& given, double w1, double w2) {
    State s = given;
    Eigen::Vector2d q1(s.q[0], s.q[1]), q2(s.q[2], s.q[3]);
    Eigen::Vector2d v1(s.v[0], s.v[1]), v2(s.v[2], s.v[3]);
    const Eigen::Vector2d mid = 0.5 * (q1 + q2);
    const Eigen::Vector2d n = (q2 - q1).normalized();
    const double radial = (v2 - v1).dot(n);
    v1 += 0.5 * radial * n;
    v2 -= 0.5 * radial * n;
    for (int iteration = 0; iteration < 5; ++iteration) { // s_eq depends on q1
        Vector q(4), v(4);
        q << q1, q2;
        v << v1, v2;
        const double r = 1.0 + quasi_static_stretch(q, v, w1, w2);
        q1 = mid - 0.5 * r * n;
        q2 = mid + 0.5 * r * n;
    }
    s.q << q1, q2;
    s.v << v1, v2;
    return s;
}

// The reference data of one w2.
struct Point {
    double w2 = 0.0;
    Start given;     // the paper's initial data
    Start projected; // the HMM's projection of them (kernel averages of q and p, Sect. 3.2)
    Start manifold;  // on_slow_manifold of them
    double hmm_own_outputs_error = 0.0; // HMM at its refine-4 outputs: Table 1's error
    std::size_t hmm_own_outputs = 0;
    double reference_seconds = 0.0;
    double reference_check = std::numeric_limits<double>::quiet_NaN(); // vs rtol 1e-12

    const Start& start_of(Kind kind) const {
        return kind == Kind::cvode_bdf_projected  ? projected
               : kind == Kind::cvode_bdf_manifold ? manifold
                                                  : given;
    }
};

// Max over the checkpoints of the infinity norm of q - reference, fed with every output.
class CheckpointError {
public:
    explicit CheckpointError(const std::vector<Vector>& reference) : reference_(&reference) {}
    void operator()(const State& s) {
        const double j = std::round(s.t / checkpoint_spacing);
        if (j >= 1 && j <= checkpoints && std::abs(s.t - j * checkpoint_spacing) < 1e-9) {
            const Vector& r = (*reference_)[static_cast<std::size_t>(j) - 1];
            const double e = (s.q - r).cwiseAbs().maxCoeff();
            error_ = std::isfinite(e) ? std::max(error_, e) : std::numeric_limits<double>::max();
            ++seen_;
        }
    }
    double error() const {
        return seen_ == checkpoints ? error_ : std::numeric_limits<double>::infinity();
    }

private:
    const std::vector<Vector>* reference_;
    double error_ = 0.0;
    int seen_ = 0;
};

std::vector<double> checkpoint_times() {
    std::vector<double> t;
    for (int j = 0; j <= checkpoints; ++j) {
        t.push_back(j * checkpoint_spacing);
    }
    return t;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

ms::StiffHmmOptions hmm_options(const Model& model) {
    // The paper's Table 2 run (ode45 with default tolerances as the macro-integrator), its
    // outputs at the checkpoints by dense output instead of 4 per accepted step.
    ms::StiffHmmOptions o = ms::paper_options(model, ms::StiffMacro::dopri5, checkpoint_spacing);
    o.t_end = t_end;
    return o;
}

Point make_point(Springs& s, double w2) {
    s.set_w2(w2);
    Point p;
    p.w2 = w2;
    p.given.state = s.start();
    // The HMM's own outputs (4 per accepted macro step), for Table 1's error.
    const ms::StiffRun own = ms::run_stiff(
        *s.model, p.given.state, ms::paper_options(*s.model, ms::StiffMacro::dopri5, 0.0));
    std::vector<double> times = checkpoint_times();
    times.insert(times.end(), own.t.begin(), own.t.end());
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end(),
                            [](double a, double b) { return std::abs(a - b) <= 1e-12; }),
                times.end());
    const auto begin = std::chrono::steady_clock::now();
    const ms::StiffReference reference = ms::stiff_reference(*s.model, p.given.state, times);
    p.reference_seconds = seconds_since(begin);
    p.hmm_own_outputs_error = ms::max_position_error(own, reference);
    p.hmm_own_outputs = own.t.size();
    const auto at = [](const ms::StiffReference& r, double t) -> const Vector& {
        const auto it = std::lower_bound(r.t.begin(), r.t.end(), t - 1e-9);
        if (it == r.t.end() || std::abs(*it - t) > 1e-9) {
            throw std::logic_error("the reference has no value at t = " + std::to_string(t));
        }
        return r.q[static_cast<std::size_t>(it - r.t.begin())];
    };
    for (int j = 1; j <= checkpoints; ++j) {
        p.given.reference.push_back(at(reference, j * checkpoint_spacing));
    }
    // Other initial data, the fast oscillation less excited: the HMM's projection, and the
    // slow manifold.
    const double w1 = s.model->parameter("w1");
    p.projected.state = p.given.state;
    ms::StiffForceEstimator(*s.model, hmm_options(*s.model)).project(p.projected.state);
    p.manifold.state = on_slow_manifold(p.given.state, w1, w2);
    for (Start* other : {&p.projected, &p.manifold}) {
        const ms::StiffReference r =
            ms::stiff_reference(*s.model, other->state, checkpoint_times());
        for (int j = 1; j <= checkpoints; ++j) {
            other->reference.push_back(at(r, j * checkpoint_spacing));
        }
    }
    for (Start* start : {&p.given, &p.projected, &p.manifold}) {
        start->fast_velocity_amplitude = fast_velocity_amplitude(start->state, w1, w2);
    }
    if (w2 <= reference_check_max_w2) {
        const ms::StiffReference finer =
            ms::stiff_reference(*s.model, p.given.state, checkpoint_times(), 1e-12, 1e-14);
        double check = 0.0;
        for (int j = 1; j <= checkpoints; ++j) {
            check = std::max(check, (at(finer, j * checkpoint_spacing) -
                                     p.given.reference[static_cast<std::size_t>(j) - 1])
                                        .cwiseAbs()
                                        .maxCoeff());
        }
        p.reference_check = check;
    }
    return p;
}

struct Outcome {
    double error = std::numeric_limits<double>::infinity();
    std::string failure; // a NumericalFailure's message, or empty
    std::size_t steps = 0, rejected = 0, force_evaluations = 0, jacobian_evaluations = 0;
    std::size_t force_estimates = 0; // HMM
    double seconds = 0.0;
};

runtime::RunSettings direct_settings(Kind kind, double tol, double w2) {
    runtime::RunSettings settings;
    settings.method = kind == Kind::dopri5        ? runtime::Method::dopri5
                      : kind == Kind::cvode_adams ? runtime::Method::cvode_adams
                                                  : runtime::Method::cvode_bdf; // both BDF
    settings.stop_time = t_end;
    settings.step = checkpoint_spacing; // output interval: the checkpoints
    settings.adaptive.rtol = tol;
    settings.adaptive.atol = tol;
    settings.adaptive.max_steps = static_cast<std::size_t>(max_steps_per_w2 * w2);
    return settings;
}

// One run at the springs' current w2; `counted` uses the model with the df/dq shim.
Outcome run_case(Kind kind, double tol, const Point& p, Springs& s, bool counted) {
    const Model& model = counted ? *s.counting : *s.model;
    force_dq_calls = 0;
    Outcome out;
    const Start& start = p.start_of(kind);
    State state = start.state;
    CheckpointError check(start.reference);
    const auto begin = std::chrono::steady_clock::now();
    try {
        if (kind == Kind::hmm) {
            const ms::StiffHmmStats stats =
                ms::run_stiff_hmm(model, state, hmm_options(model), check);
            out.steps = stats.macro_steps;
            out.rejected = stats.rejected_steps;
            out.force_evaluations = stats.force_evaluations;
            out.force_estimates = stats.force_estimates;
        } else {
            const runtime::IntegrationStats stats =
                runtime::run(model, state, direct_settings(kind, tol, p.w2), check);
            out.steps = stats.steps;
            out.rejected = stats.rejected;
            out.force_evaluations = stats.force_evaluations;
        }
        out.error = check.error();
    } catch (const runtime::NumericalFailure& e) {
        out.failure = e.what();
    }
    out.seconds = seconds_since(begin);
    out.jacobian_evaluations = force_dq_calls;
    return out;
}

// One method at one w2, as calibrated.
struct Case {
    const MethodDescription* method = nullptr;
    double w2 = 0.0;
    bool run = false;
    double tol = 0.0;     // direct methods
    double target = 0.0;  // the HMM's error at this w2
    bool reached = false; // error <= target
    Outcome outcome;      // of the calibration run (counts and error are deterministic)
    // Of the calibration runs that did not fail, the one with the fewest steps (BDF: whether
    // some tolerance lets it step over the fast oscillation, and with what error).
    Outcome fewest;
    double fewest_tol = 0.0;
    Outcome fewest_reaching; // the same among those that reached the target
    double fewest_reaching_tol = 0.0;
    double estimate_seconds = 0.0; // not run: the estimate
    double estimate_from = 0.0;    // the w2 of the run it is estimated from
    std::string benchmark;
};

// The study's sweep variable, as the shared study code (study.hpp) names and reads it.
const Sweep<Case> sweep{"w2", w2_values, &Case::w2, w2_text, "w2 [rad/s]"};

struct Study {
    StiffSettings settings;
    std::vector<Point> points;
    std::vector<Case> cases;
    bool done = false;
};

Study& study() {
    static Study s;
    return s;
}

const Point& point(const Study& st, double w2) {
    for (const Point& p : st.points) {
        if (p.w2 == w2) {
            return p;
        }
    }
    throw std::logic_error("no such w2");
}

void calibrate(Study& st, std::ostream& log) {
    Springs& s = springs();
    for (double w2 : w2_values) {
        log << "stiff: reference at w2 = " << w2_text(w2) << std::endl;
        st.points.push_back(make_point(s, w2));
    }
    const MethodDescription& hmm = method_list().front();
    std::map<double, double> target;
    for (const Point& p : st.points) {
        s.set_w2(p.w2);
        Case c;
        c.method = &hmm;
        c.w2 = p.w2;
        c.run = true;
        c.outcome = run_case(Kind::hmm, 0.0, p, s, true);
        if (!c.outcome.failure.empty() || !std::isfinite(c.outcome.error)) {
            throw std::runtime_error("the HMM failed at w2 = " + w2_text(p.w2) + ": " +
                                     c.outcome.failure);
        }
        c.target = target[p.w2] = c.outcome.error;
        c.reached = true;
        log << "stiff: hmm-stiff w2 = " << w2_text(p.w2) << ": error " << c.outcome.error << ", "
            << c.outcome.steps << "/" << c.outcome.rejected << " macro steps, " << c.outcome.seconds
            << " s" << std::endl;
        st.cases.push_back(c);
    }
    const std::vector<double> tols = ladder();
    for (const MethodDescription& m : method_list()) {
        if (m.kind == Kind::hmm) {
            continue;
        }
        std::size_t start_index = 0;
        for (const Point& p : st.points) {
            s.set_w2(p.w2);
            Case c;
            c.method = &m;
            c.w2 = p.w2;
            c.target = target[p.w2];
            if (beyond_cap(c, st.cases, sweep, st.settings.cap_seconds)) {
                log << "stiff: " << m.name << " w2 = " << w2_text(p.w2) << ": not run (estimate "
                    << c.estimate_seconds << " s)" << std::endl;
                st.cases.push_back(c);
                continue;
            }
            std::map<std::size_t, Outcome> tried;
            const auto attempt = [&](std::size_t i) -> const Outcome& {
                auto it = tried.find(i);
                if (it == tried.end()) {
                    const Outcome o = run_case(m.kind, tols[i], p, s, true);
                    log << "stiff: " << m.name << " w2 = " << w2_text(p.w2)
                        << " rtol = atol = " << tolerance_text(tols[i]) << ": error " << o.error
                        << " (target " << c.target << "), " << o.steps << " steps, " << o.seconds
                        << " s" << (o.failure.empty() ? "" : " [" + o.failure + "]") << std::endl;
                    it = tried.emplace(i, o).first;
                }
                return it->second;
            };
            const auto good = [&](const Outcome& o) {
                return o.error <= c.target;
            };
            for (std::size_t i = start_index; i < tols.size(); ++i) {
                const Outcome& o = attempt(i);
                c.run = true;
                c.tol = tols[i];
                c.outcome = o;
                if (o.seconds > st.settings.cap_seconds) {
                    break;
                }
                if (good(o) &&
                    (i + 1 == tols.size() || attempt(i + 1).seconds > st.settings.cap_seconds ||
                     good(attempt(i + 1)))) {
                    start_index = i > 0 ? i - 1 : 0;
                    break;
                }
            }
            c.reached = good(c.outcome);
            for (const auto& [i, o] : tried) {
                if (o.failure.empty() && (c.fewest_tol == 0.0 || o.steps < c.fewest.steps)) {
                    c.fewest = o;
                    c.fewest_tol = tols[i];
                }
                if (good(o) &&
                    (c.fewest_reaching_tol == 0.0 || o.steps < c.fewest_reaching.steps)) {
                    c.fewest_reaching = o;
                    c.fewest_reaching_tol = tols[i];
                }
            }
            st.cases.push_back(c);
        }
    }
    st.done = true;
}

void time_case(benchmark::State& bench, const Case& c) {
    Springs& s = springs();
    const Point& p = point(study(), c.w2);
    s.set_w2(c.w2);
    Outcome last;
    for (auto _ : bench) {
        last = run_case(c.method->kind, c.tol, p, s, false);
        benchmark::DoNotOptimize(last.error);
    }
    bench.counters["force_evaluations"] = static_cast<double>(last.force_evaluations);
    bench.counters["steps"] = static_cast<double>(last.steps);
    bench.counters["max_error"] = last.error;
    bench.counters["w2"] = c.w2;
}

} // namespace

bool register_stiff_benchmarks(const StiffSettings& settings, std::ostream& log) {
    Study& st = study();
    st.settings = settings;
    try {
        calibrate(st, log);
    } catch (const std::exception& e) {
        log << "mdl_bench: the stiff-springs calibration failed: " << e.what() << "\n";
        return false;
    }
    register_study_runs(st.cases, "stiff", sweep, settings, time_case);
    return true;
}

std::string stiff_markdown(const Results& results, const std::string& csv_prefix) {
    const Study& st = study();
    if (!st.done) {
        return "";
    }
    const StudyResults<Case> runs(st.cases, sweep, results);
    const MethodDescription& hmm = method_list().front();
    const auto not_run = [](const Case& c) {
        return fmt::format("not run (≳ {:.0f} s, estimate from w2 = {})", c.estimate_seconds,
                           w2_text(c.estimate_from));
    };
    const TableHead head = sweep_table_head(sweep, "| method |", "|---|");
    std::string out;
    const auto begin_table = [&](const std::string& title, const std::string& extra_header) {
        out += title + "\n\n" + head.header + extra_header + "\n" + head.rule +
               (extra_header.empty() ? "" : "--:|") + "\n";
    };
    // A row of one method; `growth` adds the ratio of the values at the last and first w2.
    const auto row = [&](const std::string& label, const MethodDescription& m, auto&& cell,
                         auto&& value, bool growth) {
        std::string r = "| " + label + " |";
        for (double w2 : w2_values) {
            const Case* c = runs.find(m, w2);
            r += fmt::format(" {} |", c == nullptr ? std::string("-")
                                      : c->run     ? cell(*c)
                                                   : not_run(*c));
        }
        if (growth) {
            const Case* first = runs.find(m, w2_values.front());
            const Case* last = runs.find(m, w2_values.back());
            const double a = first != nullptr && first->run ? value(*first) : std::nan("");
            const double b = last != nullptr && last->run ? value(*last) : std::nan("");
            r += fmt::format(" {} |",
                             std::isfinite(a) && std::isfinite(b) && a > 0 ? sci(b / a) : "-");
        }
        out += r + "\n";
    };
    const auto no_value = [](const Case&) {
        return std::nan("");
    };

    begin_table("**Error**: max over t = 0.25, 0.5, ..., 10 of the infinity norm of the position "
                "error against the reference (DOPRI5 at rtol 1e-10, atol 1e-12). HMM at the "
                "paper's Table 2 settings, the same at every w2; each direct method at the "
                "loosest rtol = atol of the ladder (in brackets) that reaches the HMM's error "
                "at that w2, as does the next tighter one; * = not reached (cap or ladder "
                "exhausted), † = the run failed.",
                "");
    row(
        hmm.name, hmm, [](const Case& c) { return sci(c.outcome.error); }, no_value, false);
    {
        std::string r = "| hmm-stiff at its own outputs (4 per macro step: Table 1's error) |";
        for (const Point& p : st.points) {
            r += fmt::format(" {} |", sci(p.hmm_own_outputs_error));
        }
        out += r + "\n";
    }
    for (const MethodDescription& m : method_list()) {
        if (m.kind == Kind::hmm) {
            continue;
        }
        row(
            m.label, m,
            [](const Case& c) {
                return fmt::format("{}{} ({})",
                                   c.outcome.failure.empty() ? sci(c.outcome.error) : "†",
                                   c.reached ? "" : " *", tolerance_text(c.tol));
            },
            no_value, false);
    }
    out += "\n";

    begin_table("**Steps**: accepted/rejected macro steps of the HMM; accepted steps (rejected: "
                "error test and, for CVODE, nonlinear solver failures) of the direct methods",
                " w2 = 20000 / w2 = 200 |");
    for (const MethodDescription& m : method_list()) {
        row(
            m.label, m,
            [&](const Case& c) {
                return m.kind == Kind::hmm
                           ? fmt::format("{}/{}", c.outcome.steps, c.outcome.rejected)
                           : fmt::format("{:.2e} ({:.1e})", static_cast<double>(c.outcome.steps),
                                         static_cast<double>(c.outcome.rejected));
            },
            [](const Case& c) { return static_cast<double>(c.outcome.steps); }, true);
    }
    out += "\n";

    begin_table("**Force evaluations** per run (the model's force kernel: the HMM's "
                "micro-integrations, the direct methods' right-hand sides), and cvode-bdf's "
                "Jacobian evaluations (df/dq with df/dv, counted in the calibration run)",
                " w2 = 20000 / w2 = 200 |");
    for (const MethodDescription& m : method_list()) {
        row(
            m.label, m,
            [](const Case& c) { return sci(static_cast<double>(c.outcome.force_evaluations)); },
            [](const Case& c) { return static_cast<double>(c.outcome.force_evaluations); }, true);
        if (m.kind == Kind::cvode_bdf || m.kind == Kind::cvode_bdf_projected ||
            m.kind == Kind::cvode_bdf_manifold) {
            row(
                m.label + ": Jacobian evaluations", m,
                [](const Case& c) {
                    return sci(static_cast<double>(c.outcome.jacobian_evaluations));
                },
                [](const Case& c) { return static_cast<double>(c.outcome.jacobian_evaluations); },
                true);
        }
    }
    out += "\n";

    begin_table("**Wall time** per run [ms], median of the benchmark's repetitions",
                " w2 = 20000 / w2 = 200 |");
    for (const MethodDescription& m : method_list()) {
        row(
            m.label, m,
            [&](const Case& c) {
                const double ns = runs.time_ns(c);
                return std::isnan(ns) ? std::string("(filtered out)") : milliseconds(ns);
            },
            [&](const Case& c) { return runs.time_ns(c); }, true);
    }
    out += "\n";

    begin_table("**Cost ratio** direct / HMM at the same error (the direct run of the tables "
                "above against the HMM at the same w2): **wall time**, force evaluations; ≳ = "
                "from the estimate of a run not made (a lower bound on the time, no count)",
                "");
    for (const MethodDescription& m : method_list()) {
        if (m.kind == Kind::hmm) {
            continue;
        }
        std::string r = "| " + m.label + " |";
        for (double w2 : w2_values) {
            const Case* c = runs.find(m, w2);
            const Case* h = runs.find(hmm, w2);
            const double hmm_ns = h != nullptr ? runs.time_ns(*h) : std::nan("");
            if (c == nullptr || h == nullptr || std::isnan(hmm_ns)) {
                r += " - |";
            } else if (!c->run) {
                r += fmt::format(" ≳ {}, - |", sci(c->estimate_seconds * 1e9 / hmm_ns));
            } else if (std::isnan(runs.time_ns(*c))) {
                r += " - |";
            } else {
                r += fmt::format(" **{}**, {}{} |", sci(runs.time_ns(*c) / hmm_ns),
                                 sci(static_cast<double>(c->outcome.force_evaluations) /
                                     static_cast<double>(h->outcome.force_evaluations)),
                                 c->reached ? "" : " *");
            }
        }
        out += r + "\n";
    }
    out += "\n";

    begin_table("**BDF's fewest steps**: of the tolerances tried in the calibration above, the "
                "run with the fewest steps: steps, error (rtol = atol); and the one with the "
                "fewest steps among those that reached the HMM's error (none: -). Runs with "
                "far fewer steps than the chosen ones stepped over the fast oscillation",
                "");
    for (const MethodDescription& m : method_list()) {
        if (m.kind == Kind::cvode_bdf || m.kind == Kind::cvode_bdf_projected ||
            m.kind == Kind::cvode_bdf_manifold) {
            row(
                m.label, m,
                [](const Case& c) {
                    const auto text = [](const Outcome& o, double tol) {
                        return tol == 0.0
                                   ? std::string("-")
                                   : fmt::format("{:.1e}, {} ({})", static_cast<double>(o.steps),
                                                 sci(o.error), tolerance_text(tol));
                    };
                    return text(c.fewest, c.fewest_tol) + "; " +
                           text(c.fewest_reaching, c.fewest_reaching_tol);
                },
                no_value, false);
        }
    }
    out += "\n";

    out += "The reference (DOPRI5 at rtol 1e-10, atol 1e-12, dense output at the checkpoints "
           "and the HMM's own outputs): its time per run and its distance at the checkpoints "
           "from DOPRI5 at rtol 1e-12, atol 1e-14 (where run). And the initial data: the "
           "velocity amplitude of the fast oscillation of the stiff spring they excite, "
           "sqrt(v_r^2 + 2 w2^2 (s - s_eq)^2) (v_r: radial relative velocity, s: stretch, "
           "s_eq: quasi-static stretch; on the slow manifold zero by construction, up to "
           "rounding).\n\n";
    out += "| w2 | reference time [s] | reference vs rtol 1e-12 | fast velocity amplitude: given "
           "data | HMM's projection | slow manifold |\n|---|--:|--:|--:|--:|--:|\n";
    for (const Point& p : st.points) {
        out += fmt::format(
            "| {} | {:.2f} | {} | {} | {} | {} |\n", w2_text(p.w2), p.reference_seconds,
            std::isnan(p.reference_check) ? std::string("not run") : sci(p.reference_check),
            sci(p.given.fast_velocity_amplitude), sci(p.projected.fast_velocity_amplitude),
            sci(p.manifold.fast_velocity_amplitude));
    }

    // The plot data and the log-log plots of time and evaluations against w2.
    if (!csv_prefix.empty()) {
        runs.write_plots(csv_prefix, method_list(),
                         {"Stiff springs, same error as HMM: wall time per run",
                          "Stiff springs, same error as HMM: force evaluations per run"});
    }
    return out;
}

} // namespace mdl::bench
