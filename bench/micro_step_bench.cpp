// The multiscale inner loop (issue 9, "make it fast"): what one micro step of a force estimate
// costs, as a ratio to one evaluation of the model's JIT force kernel, measured in the same run.
//
// micro_step/<case>/paired alternates, per iteration, three timed blocks in a rotating order:
//  - one force estimate by the runtime's estimator (HmmForceEstimator, StiffForceEstimator),
//    whose micro-integration is the fused loop of runtime/multiscale/micro_verlet.hpp;
//  - the same micro-integration written the generic way, as the estimators did before the fused
//    loop: runtime::VelocityVerlet<ModelForce>::step from the start state and the filter's sum
//    in Eigen (the "generic" column);
//  - as many calls of the JIT force kernel through its pointer as the estimate makes micro
//    steps, on the inputs (t, q, v, theta) the micro-integration actually visits (recorded
//    beforehand), cycled through.
// Counters: ns per micro step (estimate time / micro steps per estimate, so the start
// evaluation and the filter's bookkeeping are included), ns per force call, and the medians of
// the per-iteration ratios. The target is micro step / force < 1.5.
#include "bench.hpp"
#include "compiler/api/runtime_view.hpp"

#include "mdl/compiled_model.hpp"
#include "runtime/integrators/verlet.hpp"
#include "runtime/multiscale/filters.hpp"
#include "runtime/multiscale/hmm.hpp"
#include "runtime/multiscale/stiff_hmm.hpp"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

namespace mdl::bench {

namespace {

namespace rt = mdl::runtime;
namespace ms = mdl::runtime::multiscale;

struct MicroCase {
    std::string name;        // micro_step/<name>/paired
    std::string description; // for the table
    std::shared_ptr<CompiledModel> compiled;
    std::unique_ptr<rt::Model> model;
    rt::State start;
    // one force estimate by the runtime's estimator
    std::function<void()> estimate;
    // the same micro-integration with VelocityVerlet<ModelForce> (the generic loop)
    std::function<void()> generic;
    std::size_t micro_steps = 0;           // per estimate
    std::vector<mdl_kernel_args> inputs;   // the micro trajectory's points
    std::vector<std::vector<double>> data; // storage of the inputs' q, v, theta
};

std::vector<std::unique_ptr<MicroCase>>& cases() {
    static std::vector<std::unique_ptr<MicroCase>> all;
    return all;
}

// Records the points (t, q, v, theta(t)) of a Verlet micro-integration of `steps` steps of h
// from `start` with phases theta0 + omega t (phase origin 0 at t = 0 when `origin`).
void record_inputs(MicroCase& c, double h, std::size_t steps, bool origin) {
    const rt::Model& m = *c.model;
    rt::VelocityVerlet<rt::ModelForce> verlet(m);
    if (origin) {
        verlet.force().set_phase_origin(0.0, rt::Vector::Zero(m.vibrations()));
    }
    rt::State s = c.start;
    const std::size_t count = std::min<std::size_t>(steps, 4096);
    c.data.reserve(3 * count);
    for (std::size_t k = 0; k < count; ++k) {
        verlet.step(s, h);
        const rt::Vector& theta = verlet.force().phases_at(s.t);
        c.data.emplace_back(s.q.begin(), s.q.end());
        c.data.emplace_back(s.v.begin(), s.v.end());
        c.data.emplace_back(theta.begin(), theta.end());
    }
    for (std::size_t k = 0; k < count; ++k) {
        const double t = c.start.t + static_cast<double>(k + 1) * h;
        c.inputs.push_back({t, c.data[3 * k].data(), c.data[3 * k + 1].data(), nullptr,
                            m.vibrations() > 0 ? c.data[3 * k + 2].data() : nullptr,
                            m.parameters().empty() ? nullptr : m.parameters().data()});
    }
}

// HMM, asynchronous, on the Kapitza pendulum at omega = 1e6 with `micro_per_period` micro steps
// per fast period (the paper's tables: 1/H).
void add_hmm_case(const std::string& name, const std::string& description, ms::FilterKind filter,
                  std::size_t micro_per_period) {
    auto c = std::make_unique<MicroCase>();
    c->name = name;
    c->description = description;
    c->compiled = std::make_shared<CompiledModel>(
        compile_file(std::string(MDL_SOURCE_DIR) + "/models/kapitza.mdl"));
    c->model = std::make_unique<rt::Model>(mdl::runtime_model(*c->compiled));
    c->model->set_parameter("omega", 1e6);
    c->start = mdl::initial_state(*c->compiled, *c->model, 0.0);
    ms::HmmOptions o;
    o.filter = filter;
    o.macro_step = 1.0 / static_cast<double>(micro_per_period);
    o.force_even_in_phase = c->compiled->force_even_in_phase(0);
    auto estimator = std::make_shared<ms::HmmForceEstimator>(*c->model, o);
    c->micro_steps = estimator->steps_per_window();
    const double h = estimator->micro_step();
    const bool half = estimator->half_window();
    MicroCase* raw = c.get();
    auto F = std::make_shared<rt::Vector>(rt::Vector::Zero(1));
    c->estimate = [estimator, raw, F] {
        estimator->estimate(0.0, raw->start.q, raw->start.v, *F);
        benchmark::DoNotOptimize(F->data());
    };
    // the generic loop: VelocityVerlet from the start, the filter's weights, Eigen sums
    const ms::Filter f = ms::Filter::make(filter, o.window_periods);
    const std::size_t n = half ? c->micro_steps : c->micro_steps / 2;
    auto weights = std::make_shared<std::vector<double>>(half ? f.half_window_weights(n)
                                                              : f.full_window_weights(n));
    auto verlet = std::make_shared<rt::VelocityVerlet<rt::ModelForce>>(*c->model);
    verlet->force().set_phase_origin(0.0, rt::Vector::Zero(1));
    auto s = std::make_shared<rt::State>(c->start);
    auto a = std::make_shared<rt::Vector>(rt::Vector::Zero(1));
    c->generic = [=] {
        verlet->force().acceleration(0.0, raw->start.q, raw->start.v, raw->start.x, *a);
        *F = (*weights)[half ? 0 : n] * *a;
        for (const double direction : {1.0, -1.0}) {
            if (direction < 0.0 && half) {
                break;
            }
            *s = raw->start;
            for (std::size_t k = 1; k <= n; ++k) {
                verlet->step(*s, direction * h);
                const std::size_t i = half ? k : (direction > 0.0 ? n + k : n - k);
                *F += (*weights)[i] * verlet->acceleration();
            }
        }
        benchmark::DoNotOptimize(F->data());
    };
    record_inputs(*c, h, c->micro_steps, true);
    cases().push_back(std::move(c));
}

// The stiff-spring HMM on models/stiff_springs.mdl at w2 = 1000 (the paper's settings: 6 micro
// steps per fast period, exponential kernel over 20 periods, both directions).
void add_stiff_case() {
    auto c = std::make_unique<MicroCase>();
    c->name = "stiff_springs/hmm-stiff";
    c->description = "stiff springs, w2 = 1000: hmm-stiff, 20 periods x 6 steps, both directions";
    c->compiled = std::make_shared<CompiledModel>(
        compile_file(std::string(MDL_SOURCE_DIR) + "/models/stiff_springs.mdl"));
    c->model = std::make_unique<rt::Model>(mdl::runtime_model(*c->compiled));
    c->start = mdl::initial_state(*c->compiled, *c->model, 0.0);
    ms::StiffHmmOptions o;
    o.omega = 1000.0;
    auto estimator = std::make_shared<ms::StiffForceEstimator>(*c->model, o);
    c->micro_steps = estimator->steps_per_window();
    const double h = estimator->micro_step();
    const std::size_t n = c->micro_steps / 2;
    MicroCase* raw = c.get();
    const Eigen::Index dim = c->model->positions();
    auto F = std::make_shared<rt::Vector>(rt::Vector::Zero(dim));
    c->estimate = [estimator, raw, F] {
        estimator->estimate(0.0, raw->start.q, raw->start.v, *F);
        benchmark::DoNotOptimize(F->data());
    };
    auto weights = std::make_shared<std::vector<double>>(
        ms::Filter::exponential(o.window_periods).full_window_weights(n));
    auto verlet = std::make_shared<rt::VelocityVerlet<rt::ModelForce>>(*c->model);
    auto s = std::make_shared<rt::State>(c->start);
    auto a = std::make_shared<rt::Vector>(rt::Vector::Zero(dim));
    c->generic = [=] {
        verlet->force().acceleration(raw->start.t, raw->start.q, raw->start.v, raw->start.x, *a);
        *F = (*weights)[n] * *a;
        for (const double direction : {1.0, -1.0}) {
            *s = raw->start;
            for (std::size_t k = 1; k <= n; ++k) {
                verlet->step(*s, direction * h);
                *F += (*weights)[direction > 0.0 ? n + k : n - k] * verlet->acceleration();
            }
        }
        benchmark::DoNotOptimize(F->data());
    };
    record_inputs(*c, h, n, false);
    cases().push_back(std::move(c));
}

double median(std::vector<double> v) {
    if (v.empty()) {
        return 0.0;
    }
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
}

void time_paired(benchmark::State& state, MicroCase& c) {
    using Clock = std::chrono::steady_clock;
    const auto elapsed = [](auto start) {
        return std::chrono::duration<double, std::nano>(Clock::now() - start).count();
    };
    // (not through benchmark::DoNotOptimize: GCC 12 miscompiled this function with it; a
    // pointer into JIT memory is opaque to the compiler anyway)
    const mdl_kernel force = c.model->kernels().force;
    std::vector<double> out(static_cast<std::size_t>(c.model->positions()));
    double* result = out.data();
    const std::size_t count = c.inputs.size();
    const mdl_kernel_args* inputs = c.inputs.data();
    const auto time_estimate = [&] {
        const auto start = Clock::now();
        c.estimate();
        return elapsed(start);
    };
    const auto time_generic = [&] {
        const auto start = Clock::now();
        c.generic();
        return elapsed(start);
    };
    const auto time_force = [&] {
        const auto start = Clock::now();
        std::size_t j = 0;
        for (std::size_t k = 0; k < c.micro_steps; ++k) {
            force(&inputs[j], result);
            benchmark::DoNotOptimize(result);
            benchmark::ClobberMemory();
            j = j + 1 == count ? 0 : j + 1;
        }
        return elapsed(start);
    };
    // The same calls, each input depending on the previous call's output (q + 0 * f: the same
    // values, but the processor cannot start a call before the previous one has finished), as
    // in an integration, where q_{k+1} needs f(q_k). The dependency adds one multiply and one
    // add per call to the chain.
    const auto n_pos = static_cast<std::size_t>(c.model->positions());
    std::vector<double> chained_q(n_pos);
    const auto time_force_chain = [&] {
        const auto start = Clock::now();
        std::size_t j = 0;
        mdl_kernel_args args{};
        for (std::size_t k = 0; k < c.micro_steps; ++k) {
            args = inputs[j];
            for (std::size_t i = 0; i < n_pos; ++i) {
                chained_q[i] = args.q[i] + 0.0 * result[i];
            }
            args.q = chained_q.data();
            force(&args, result);
            benchmark::DoNotOptimize(result);
            j = j + 1 == count ? 0 : j + 1;
        }
        return elapsed(start);
    };
    const double steps = static_cast<double>(c.micro_steps);
    std::vector<double> micro_ns, generic_ns, force_ns, chain_ns, ratio, generic_ratio, chain_ratio;
    std::size_t turn = 0;
    for (auto _ : state) {
        double te = 0, tg = 0, tf = 0;
        switch (turn++ % 3) {
        case 0:
            te = time_estimate();
            tg = time_generic();
            tf = time_force();
            break;
        case 1:
            tg = time_generic();
            tf = time_force();
            te = time_estimate();
            break;
        default:
            tf = time_force();
            te = time_estimate();
            tg = time_generic();
            break;
        }
        const double tc = time_force_chain();
        micro_ns.push_back(te / steps);
        chain_ns.push_back(tc / steps);
        chain_ratio.push_back(te / tc);
        generic_ns.push_back(tg / steps);
        force_ns.push_back(tf / steps);
        ratio.push_back(te / tf);
        generic_ratio.push_back(tg / tf);
    }
    state.counters["micro_step_ns"] = median(micro_ns);
    state.counters["generic_step_ns"] = median(generic_ns);
    state.counters["force_ns"] = median(force_ns);
    state.counters["micro_over_force"] = median(ratio);
    state.counters["force_chain_ns"] = median(chain_ns);
    state.counters["micro_over_force_chain"] = median(chain_ratio);
    state.counters["generic_over_force"] = median(generic_ratio);
    state.counters["micro_steps"] = steps;
}

} // namespace

void register_micro_step_benchmarks() {
    add_hmm_case("kapitza/hmm-simple",
                 "Kapitza, omega = 1e6: HMM async, simple filter (1 period, half window), 80 "
                 "steps per period",
                 ms::FilterKind::simple, 80);
    add_hmm_case("kapitza/hmm-exp",
                 "Kapitza, omega = 1e6: HMM async, exponential filter (40 periods, half window), "
                 "80 steps per period",
                 ms::FilterKind::exponential, 80);
    add_stiff_case();
    for (const auto& c : cases()) {
        MicroCase* raw = c.get();
        benchmark::RegisterBenchmark(("micro_step/" + c->name + "/paired").c_str(),
                                     [raw](benchmark::State& s) { time_paired(s, *raw); })
            ->Unit(benchmark::kMicrosecond);
    }
}

std::vector<MicroStepCaseName> micro_step_cases() {
    std::vector<MicroStepCaseName> names;
    for (const auto& c : cases()) {
        names.push_back({"micro_step/" + c->name + "/paired", c->description});
    }
    return names;
}

} // namespace mdl::bench
