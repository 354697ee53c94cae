// Kernel speed: the JIT kernels against hand-written C++ of the same function (handwritten.cpp,
// -O2, and -O2 -march=native for comparison) and against the reference DAG evaluator, on a table of
// inputs that changes every iteration (so no work can be hoisted out of the timing loop).
#include "bench.hpp"
#include "handwritten.hpp"

#include "check/checker.hpp"
#include "check/front_end.hpp"
#include "mdl/compiled_model.hpp"
#include "parse/parser.hpp"
#include "symbolic/equations_of_motion.hpp"
#include "symbolic/evaluate.hpp"

#include <algorithm>
#include <array>
#include <benchmark/benchmark.h>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <memory>
#include <numbers>
#include <optional>
#include <random>
#include <stdexcept>
#include <string_view>

namespace mdl::bench {

namespace {

// Inputs per table; a power of two, small enough that the table stays in L1.
constexpr std::size_t input_count = 64;
constexpr std::size_t input_mask = input_count - 1;
constexpr double tolerance = 1e-12; // relative, per output

// One point (t, q, v, theta) of a model's input table.
struct Point {
    double t = 0;
    std::vector<double> q, v, theta;
};
using PointGenerator = std::function<Point(std::mt19937_64&, const CompiledModel&)>;

struct ModelFixture {
    std::string stem;
    std::optional<CompiledModel> model;
    std::optional<symbolic::System> system; // for the reference evaluator
    std::string ir;                         // the JIT's optimized LLVM IR (same options)
    std::vector<double> parameters;         // the model's defaults
    std::vector<Point> points;
    std::vector<mdl_kernel_args> args;            // points[i] for the native kernels
    std::vector<symbolic::VariableValues> values; // points[i] for the evaluator
};

struct KernelCase {
    const ModelFixture* fixture = nullptr;
    std::string kernel;
    symbolic::Kernel which = symbolic::Kernel::force;
    mdl_kernel jit = nullptr;
    mdl_kernel handwritten = nullptr;        // -O2, generic x86-64
    mdl_kernel handwritten_native = nullptr; // -O2 -march=native
    std::size_t outputs = 0;
};

// Lives until the process exits: the registered benchmarks point into it.
struct Registry {
    std::vector<std::unique_ptr<ModelFixture>> fixtures;
    std::vector<std::unique_ptr<KernelCase>> cases;
    std::vector<KernelCaseName> names;
};
Registry& registry() {
    static Registry r;
    return r;
}

double uniform(std::mt19937_64& rng, double low, double high) {
    return std::uniform_real_distribution<double>(low, high)(rng);
}

std::unique_ptr<ModelFixture> make_fixture(const std::string& stem,
                                           const std::vector<std::string>& parameter_names,
                                           const std::vector<std::string>& position_names,
                                           const PointGenerator& generate) {
    auto f = std::make_unique<ModelFixture>();
    f->stem = stem;
    const std::string path = std::string(MDL_SOURCE_DIR) + "/models/" + stem + ".mdl";
    auto file = source::SourceFile::read(path);
    f->model.emplace(mdl::compile(file.text(), path));
    if (f->model->parameter_names() != parameter_names ||
        f->model->position_names() != position_names) {
        throw std::runtime_error(
            fmt::format("{}: parameters ({}) or positions ({}) are not in the order the "
                        "hand-written kernels assume ({}; {})",
                        path, fmt::join(f->model->parameter_names(), ", "),
                        fmt::join(f->model->position_names(), ", "),
                        fmt::join(parameter_names, ", "), fmt::join(position_names, ", ")));
    }
    source::Diagnostics diagnostics(file);
    std::optional<check::CheckedModel> checked = check::check_file(file, diagnostics);
    if (!checked) {
        throw std::runtime_error(diagnostics.render());
    }
    f->system.emplace(symbolic::equations_of_motion(*checked));
    CompileOptions keep_ir;
    keep_ir.keep_ir = true;
    f->ir = mdl::compile(file.text(), path, keep_ir).llvm_ir();

    const auto parameters = f->model->parameters();
    f->parameters.assign(parameters.begin(), parameters.end());
    std::mt19937_64 rng(20240601);
    for (std::size_t i = 0; i < input_count; ++i) {
        f->points.push_back(generate(rng, *f->model));
    }
    for (const Point& p : f->points) {
        f->args.push_back(mdl_kernel_args{p.t, p.q.data(), p.v.data(), nullptr,
                                          p.theta.empty() ? nullptr : p.theta.data(),
                                          f->parameters.data()});
        f->values.push_back(symbolic::VariableValues{p.t, p.q, p.v, {}, p.theta, f->parameters});
    }
    return f;
}

mdl_kernel jit_kernel(const CompiledModel& model, symbolic::Kernel which) {
    const mdl_kernels& k = model.kernels();
    switch (which) {
    case symbolic::Kernel::force:
        return k.force;
    case symbolic::Kernel::constraint_jacobian:
        return k.constraint_jacobian;
    case symbolic::Kernel::curvature:
        return k.curvature;
    case symbolic::Kernel::force_dq:
        return k.force_dq;
    default:
        throw std::logic_error("kernel_bench: kernel not benchmarked");
    }
}

// Lanes of the first vector type on an IR line ("<2 x double>"), 1 for scalars.
double lanes(std::string_view line) {
    const auto open = line.find('<');
    const auto x = line.find(" x double>");
    if (open == std::string_view::npos || x == std::string_view::npos || x < open) {
        return 1;
    }
    double n = 0;
    for (char c : line.substr(open + 1, x - open - 1)) {
        if (c < '0' || c > '9') {
            return 1;
        }
        n = 10 * n + (c - '0');
    }
    return n > 0 ? n : 1;
}

// Counts the floating-point work in one kernel's optimized IR, vector operations counted per
// lane: where a JIT kernel is slower than the hand-written one, this says why.
KernelIrOps count_ir_ops(const std::string& ir, symbolic::Kernel which) {
    KernelIrOps ops;
    const std::string head = "define void @mdl_" + std::string(symbolic::kernel_name(which)) + "(";
    auto pos = ir.find(head);
    if (pos == std::string::npos) {
        return ops;
    }
    const auto end = ir.find("\n}\n", pos);
    std::string_view body(ir.data() + pos, (end == std::string::npos ? ir.size() : end) - pos);
    ops.found = true;
    while (!body.empty()) {
        const auto eol = body.find('\n');
        const std::string_view line = body.substr(0, eol);
        body = eol == std::string_view::npos ? std::string_view{} : body.substr(eol + 1);
        const auto has = [&](std::string_view what) {
            return line.find(what) != std::string_view::npos;
        };
        if (has(" = fdiv ")) {
            ops.divisions += lanes(line);
        } else if (has(" = fmul ") || has(" = fadd ") || has(" = fsub ")) {
            ops.mul_add += lanes(line);
        } else if (has("call ") && has("@llvm.sqrt")) {
            ops.square_roots += lanes(line);
        } else if (has("call ") && !has("@llvm.memset") && !has("@llvm.fabs") &&
                   !has("@llvm.fma") && !has("@llvm.fmuladd")) {
            ops.calls += 1; // the C library: sin, cos, sincos, pow, ...
        }
    }
    return ops;
}

bool close(double a, double b) {
    return a == b || std::abs(a - b) <= tolerance * std::max(std::abs(a), std::abs(b));
}

// The hand-written kernel and the evaluator against the JIT on every point of the table.
bool verify(const KernelCase& c, std::ostream& err) {
    const ModelFixture& f = *c.fixture;
    symbolic::Evaluator evaluator(f.system->pool());
    std::vector<double> jit(c.outputs), hand(c.outputs), native(c.outputs), reference(c.outputs);
    for (std::size_t i = 0; i < input_count; ++i) {
        c.jit(&f.args[i], jit.data());
        c.handwritten(&f.args[i], hand.data());
        c.handwritten_native(&f.args[i], native.data());
        evaluator.evaluate(f.system->dense_outputs(c.which), f.values[i], reference);
        for (std::size_t j = 0; j < c.outputs; ++j) {
            if (!close(jit[j], hand[j]) || !close(jit[j], native[j]) ||
                !close(jit[j], reference[j])) {
                err << fmt::format("mdl_bench: {} {} output {} at input {} (q = {}): JIT {:.17g}, "
                                   "hand-written {:.17g} (-march=native {:.17g}), evaluator "
                                   "{:.17g}: they differ by more than {} relative; the "
                                   "benchmark would compare different functions\n",
                                   f.stem, c.kernel, j, i, fmt::join(f.points[i].q, ", "), jit[j],
                                   hand[j], native[j], reference[j], tolerance);
                return false;
            }
        }
    }
    return true;
}

// Not inlined: every variant of a kernel (JIT, hand-written, -march=native) runs through this one
// machine-code loop. Inlined into each benchmark's lambda, the loop would be a separate copy per
// variant, and for kernels of 1-2 ns the copies' code placement alone moved the time per call by
// up to 35% (measured: the same hand-written kernel against itself in two inlined copies).
[[gnu::noinline]] void time_native(benchmark::State& state, const KernelCase& c,
                                   mdl_kernel kernel) {
    const mdl_kernel_args* inputs = c.fixture->args.data();
    std::vector<double> out(c.outputs);
    double* result = out.data();
    benchmark::DoNotOptimize(kernel); // an opaque pointer: the same call for every variant
    std::size_t i = 0;
    for (auto _ : state) {
        kernel(&inputs[i & input_mask], result);
        ++i;
        benchmark::DoNotOptimize(result);
        benchmark::ClobberMemory();
    }
}

constexpr std::size_t paired_block = 256; // calls per timed block

// One timed block of calls; not inlined, so that every kernel in time_paired is timed by the
// same machine code (see time_native).
[[gnu::noinline]] double time_block(mdl_kernel kernel, const mdl_kernel_args* inputs,
                                    double* result) {
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    for (std::size_t i = 0; i < paired_block; ++i) {
        kernel(&inputs[i & input_mask], result);
        benchmark::DoNotOptimize(result);
        benchmark::ClobberMemory();
    }
    return std::chrono::duration<double, std::nano>(Clock::now() - start).count() /
           static_cast<double>(paired_block);
}

// The JIT and the hand-written kernel in alternating blocks of calls, each block timed: both
// see the same load from other processes, so the median of the per-pair time ratios is a
// steadier estimate of hand-written / JIT than the ratio of two separately timed benchmarks.
// A third block times the hand-written kernel again: hand / hand again is the harness's own
// bias (1.00 when the measurement favours neither position), reported beside the ratio. The
// three blocks run in a rotating order.
void time_paired(benchmark::State& state, const KernelCase& c) {
    const mdl_kernel_args* inputs = c.fixture->args.data();
    std::vector<double> out(c.outputs);
    double* result = out.data();
    const std::array<mdl_kernel, 3> kernels{c.jit, c.handwritten, c.handwritten};
    std::array<std::vector<double>, 3> ns;
    std::vector<double> ratios, self_ratios;
    std::size_t turn = 0;
    for (auto _ : state) {
        std::array<double, 3> t{};
        for (std::size_t k = 0; k < 3; ++k) {
            const std::size_t which = (turn + k) % 3;
            t[which] = time_block(kernels[which], inputs, result);
        }
        ++turn;
        for (std::size_t k = 0; k < 3; ++k) {
            ns[k].push_back(t[k]);
        }
        ratios.push_back(t[1] / t[0]);
        self_ratios.push_back(t[1] / t[2]);
    }
    const auto median = [](std::vector<double>& v) {
        if (v.empty()) {
            return 0.0;
        }
        std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
        return v[v.size() / 2];
    };
    state.counters["jit_ns"] = median(ns[0]);
    state.counters["hand_ns"] = median(ns[1]);
    state.counters["hand_over_jit"] = median(ratios);
    state.counters["hand_over_hand"] = median(self_ratios);
}

void time_evaluator(benchmark::State& state, const KernelCase& c) {
    const ModelFixture& f = *c.fixture;
    symbolic::Evaluator evaluator(f.system->pool());
    // the dense kernel's entries (a matrix's zeros are constants: no work)
    const std::vector<symbolic::ExprId> roots = f.system->dense_outputs(c.which);
    std::vector<double> out(c.outputs);
    std::size_t i = 0;
    for (auto _ : state) {
        evaluator.evaluate(roots, f.values[i & input_mask], out);
        ++i;
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
}

Point kapitza_point(std::mt19937_64& rng, const CompiledModel&) {
    Point p;
    p.t = uniform(rng, 0.0, 1.0);
    p.q = {uniform(rng, -1.5, 1.5)};
    p.v = {uniform(rng, -1.0, 1.0)};
    p.theta = {uniform(rng, 0.0, 2 * std::numbers::pi)};
    return p;
}

// Both rods at random angles (on the constraint manifold), random velocities.
Point double_pendulum_point(std::mt19937_64& rng, const CompiledModel& model) {
    const double l1 = model.parameter("l1"), l2 = model.parameter("l2");
    const double a1 = uniform(rng, -1.0, 1.0), a2 = uniform(rng, -1.0, 1.0);
    const double x1 = l1 * std::sin(a1), y1 = l1 * std::cos(a1);
    Point p;
    p.t = uniform(rng, 0.0, 1.0);
    p.q = {x1, y1, x1 + l2 * std::sin(a2), y1 + l2 * std::cos(a2)};
    for (int i = 0; i < 4; ++i) {
        p.v.push_back(uniform(rng, -1.0, 1.0));
    }
    p.theta = {uniform(rng, 0.0, 2 * std::numbers::pi)};
    return p;
}

// Near the initial data of case (i), both springs stretched or compressed at random.
Point stiff_springs_point(std::mt19937_64& rng, const CompiledModel& model) {
    const double w2 = model.parameter("w2");
    Point p;
    p.t = uniform(rng, 0.0, 10.0);
    p.q = {1.0 + uniform(rng, -0.1, 0.1), uniform(rng, -0.1, 0.1),
           2.0 + 1.0 / w2 + uniform(rng, -0.1, 0.1), uniform(rng, -0.1, 0.1)};
    for (int i = 0; i < 4; ++i) {
        p.v.push_back(uniform(rng, -1.0, 1.0));
    }
    return p;
}

} // namespace

const std::vector<KernelCaseName>& kernel_cases() {
    return registry().names;
}

bool register_kernel_benchmarks(std::ostream& err) {
    using symbolic::Kernel;
    namespace hw = handwritten;
    namespace hn = handwritten_native;
    struct Spec {
        std::string stem;
        std::vector<std::string> parameters, positions;
        PointGenerator generate;
        std::vector<std::tuple<std::string, Kernel, mdl_kernel, mdl_kernel>> kernels;
    };
    const std::vector<Spec> specs{
        {"kapitza",
         {"l", "g", "vmax", "omega", "theta0"},
         {"q"},
         kapitza_point,
         {{"force", Kernel::force, hw::kapitza_force, hn::kapitza_force}}},
        {"double_pendulum",
         {"m1", "m2", "l1", "l2", "g", "vmax", "omega", "theta0", "q10"},
         {"b1.x", "b1.y", "b2.x", "b2.y"},
         double_pendulum_point,
         {{"force", Kernel::force, hw::double_pendulum_force, hn::double_pendulum_force},
          {"constraint_jacobian", Kernel::constraint_jacobian,
           hw::double_pendulum_constraint_jacobian, hn::double_pendulum_constraint_jacobian},
          {"curvature", Kernel::curvature, hw::double_pendulum_curvature,
           hn::double_pendulum_curvature}}},
        {"stiff_springs",
         {"w1", "w2", "mass", "len"},
         {"b1.x", "b1.y", "b2.x", "b2.y"},
         stiff_springs_point,
         {{"force", Kernel::force, hw::stiff_springs_force, hn::stiff_springs_force},
          {"force_dq", Kernel::force_dq, hw::stiff_springs_force_dq, hn::stiff_springs_force_dq}}},
    };

    Registry& r = registry();
    try {
        for (const Spec& spec : specs) {
            r.fixtures.push_back(
                make_fixture(spec.stem, spec.parameters, spec.positions, spec.generate));
            const ModelFixture& f = *r.fixtures.back();
            for (const auto& [name, which, hand, native] : spec.kernels) {
                auto c = std::make_unique<KernelCase>();
                c->fixture = &f;
                c->kernel = name;
                c->which = which;
                c->jit = jit_kernel(*f.model, which);
                c->handwritten = hand;
                c->handwritten_native = native;
                c->outputs = f.system->dense_outputs(which).size();
                if (c->jit == nullptr || c->outputs == 0) {
                    err << "mdl_bench: " << spec.stem << " has no " << name << " kernel\n";
                    return false;
                }
                if (!verify(*c, err)) {
                    return false;
                }
                r.cases.push_back(std::move(c));
            }
        }
    } catch (const std::exception& e) {
        err << "mdl_bench: cannot set up the kernel benchmarks: " << e.what() << "\n";
        return false;
    }

    for (const auto& owned : r.cases) {
        const KernelCase* c = owned.get();
        const std::string prefix = "kernel/" + c->fixture->stem + "/" + c->kernel + "/";
        benchmark::RegisterBenchmark((prefix + "jit").c_str(), [c](benchmark::State& s) {
            time_native(s, *c, c->jit);
        })->Unit(benchmark::kNanosecond);
        benchmark::RegisterBenchmark((prefix + "handwritten").c_str(), [c](benchmark::State& s) {
            time_native(s, *c, c->handwritten);
        })->Unit(benchmark::kNanosecond);
        benchmark::RegisterBenchmark(
            (prefix + "handwritten_native").c_str(),
            [c](benchmark::State& s) { time_native(s, *c, c->handwritten_native); })
            ->Unit(benchmark::kNanosecond);
        benchmark::RegisterBenchmark((prefix + "paired").c_str(), [c](benchmark::State& s) {
            time_paired(s, *c);
        })->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark((prefix + "evaluator").c_str(), [c](benchmark::State& s) {
            time_evaluator(s, *c);
        })->Unit(benchmark::kNanosecond);
        r.names.push_back({c->fixture->stem, c->kernel, count_ir_ops(c->fixture->ir, c->which)});
    }
    return true;
}

} // namespace mdl::bench
