#include "runtime/analysis/stability_chart.hpp"
#include "runtime/output/csv_writer.hpp"
#include "runtime/worker_threads.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <exception>
#include <stdexcept>
#include <thread>

namespace mdl::runtime::analysis {

namespace {

std::string number(double value) {
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

// A pair of neighbouring grid points with different verdicts, and its bisection.
struct Bracket {
    bool along_x = true;
    std::size_t i = 0, j = 0;
};

class ChartEvaluation {
public:
    ChartEvaluation(StabilityChart& chart, const VerdictFunction& verdict,
                    const ChartOptions& options)
        : chart_(chart), verdict_(verdict), options_(options) {}

    Verdict evaluate(double x, double y) {
        if (stop_.load()) {
            return Verdict::failure("stopped");
        }
        Verdict v;
        try {
            v = verdict_(x, y);
        } catch (const std::exception& e) {
            v = Verdict::failure(e.what());
        }
        const std::size_t done = ++evaluations_;
        if (options_.progress && !options_.progress(done, planned_.load())) {
            stop_.store(true);
        }
        return v;
    }

    void grid(std::size_t threads) {
        const std::size_t ny = chart_.y.points;
        const std::size_t size = chart_.x.points * ny;
        planned_.store(size);
        chart_.verdicts.assign(size, Verdict{});
        run_concurrently(size, threads, [&](std::size_t k) {
            chart_.verdicts[k] = evaluate(chart_.x.value(k / ny), chart_.y.value(k % ny));
        });
    }

    void refine(std::size_t threads) {
        std::vector<Bracket> brackets;
        const std::size_t nx = chart_.x.points, ny = chart_.y.points;
        auto differ = [&](std::size_t i0, std::size_t j0, std::size_t i1, std::size_t j1) {
            const Verdict::Kind a = chart_.at(i0, j0).kind, b = chart_.at(i1, j1).kind;
            return a != b && a != Verdict::Kind::failed && b != Verdict::Kind::failed;
        };
        for (std::size_t i = 0; i + 1 < nx; ++i) {
            for (std::size_t j = 0; j < ny; ++j) {
                if (differ(i, j, i + 1, j)) {
                    brackets.push_back({true, i, j});
                }
            }
        }
        for (std::size_t i = 0; i < nx; ++i) {
            for (std::size_t j = 0; j + 1 < ny; ++j) {
                if (differ(i, j, i, j + 1)) {
                    brackets.push_back({false, i, j});
                }
            }
        }
        const double halvings = std::ceil(std::log2(1.0 / chart_.tolerance));
        planned_ += brackets.size() * static_cast<std::size_t>(halvings);
        chart_.boundary.assign(brackets.size(), BoundaryPoint{});
        run_concurrently(brackets.size(), threads,
                         [&](std::size_t k) { chart_.boundary[k] = bisect(brackets[k]); });
    }

    std::size_t evaluations() const { return evaluations_.load(); }
    bool stopped() const { return stop_.load(); }

private:
    BoundaryPoint bisect(const Bracket& bracket) {
        const std::size_t i = bracket.i, j = bracket.j;
        const ChartAxis& axis = bracket.along_x ? chart_.x : chart_.y;
        const std::size_t i1 = bracket.along_x ? i + 1 : i, j1 = bracket.along_x ? j : j + 1;
        const Verdict& first = chart_.at(i, j);
        const Verdict& second = chart_.at(i1, j1);
        double lo = bracket.along_x ? chart_.x.value(i) : chart_.y.value(j);
        double hi = bracket.along_x ? chart_.x.value(i1) : chart_.y.value(j1);
        double lo_multiplier = first.max_multiplier, hi_multiplier = second.max_multiplier;
        const double fixed = bracket.along_x ? chart_.y.value(j) : chart_.x.value(i);
        const double target = chart_.tolerance * axis.span();
        bool converged = axis.distance(lo, hi) <= target;
        while (!converged) {
            const double middle = axis.between(lo, hi, 0.5);
            if (middle == lo || middle == hi) {
                break; // the bracket is as narrow as doubles allow
            }
            const Verdict v = bracket.along_x ? evaluate(middle, fixed) : evaluate(fixed, middle);
            if (v.kind == Verdict::Kind::failed) {
                break;
            }
            if (v.kind == first.kind) {
                lo = middle;
                lo_multiplier = v.max_multiplier;
            } else {
                hi = middle;
                hi_multiplier = v.max_multiplier;
            }
            converged = axis.distance(lo, hi) <= target;
        }
        BoundaryPoint p;
        p.along_x = bracket.along_x;
        p.i = i;
        p.j = j;
        const double middle = axis.between(lo, hi, 0.5);
        p.x = bracket.along_x ? middle : fixed;
        p.y = bracket.along_x ? fixed : middle;
        p.width = axis.distance(lo, hi);
        p.converged = converged;
        p.stable_first = first.kind == Verdict::Kind::stable;
        p.stable_multiplier = p.stable_first ? lo_multiplier : hi_multiplier;
        p.unstable_multiplier = p.stable_first ? hi_multiplier : lo_multiplier;
        return p;
    }

    StabilityChart& chart_;
    const VerdictFunction& verdict_;
    const ChartOptions& options_;
    std::atomic<std::size_t> evaluations_{0}, planned_{0};
    std::atomic<bool> stop_{false};
};

} // namespace

double ChartAxis::value(std::size_t i) const {
    if (i == 0) {
        return lo;
    }
    if (i + 1 >= points) {
        return hi;
    }
    return between(lo, hi, static_cast<double>(i) / static_cast<double>(points - 1));
}

double ChartAxis::between(double a, double b, double s) const {
    if (log) {
        return std::pow(10.0, std::log10(a) + s * (std::log10(b) - std::log10(a)));
    }
    return a + s * (b - a);
}

double ChartAxis::span() const {
    return distance(lo, hi);
}

double ChartAxis::distance(double a, double b) const {
    return log ? std::abs(std::log10(b) - std::log10(a)) : std::abs(b - a);
}

void check_axis(const ChartAxis& axis) {
    auto bad = [&](const std::string& why) {
        throw std::invalid_argument("parameter '" + axis.name + "': " + why);
    };
    if (axis.points < 2) {
        bad("a chart needs at least 2 points along each parameter");
    }
    if (!std::isfinite(axis.lo) || !std::isfinite(axis.hi)) {
        bad("the range's bounds must be finite numbers");
    }
    if (axis.lo == axis.hi) {
        bad("the range is empty (lo == hi)");
    }
    if (axis.log && (axis.lo <= 0 || axis.hi <= 0)) {
        bad("a logarithmic range needs positive bounds");
    }
}

const char* to_string(Verdict::Kind kind) {
    switch (kind) {
    case Verdict::Kind::stable:
        return "stable";
    case Verdict::Kind::unstable:
        return "unstable";
    case Verdict::Kind::failed:
        break;
    }
    return "failed";
}

std::size_t StabilityChart::count(Verdict::Kind kind) const {
    return static_cast<std::size_t>(std::count_if(
        verdicts.begin(), verdicts.end(), [&](const Verdict& v) { return v.kind == kind; }));
}

StabilityChart stability_chart(const ChartAxis& x, const ChartAxis& y,
                               const VerdictFunction& verdict, const ChartOptions& options) {
    check_axis(x);
    check_axis(y);
    if (x.name == y.name) {
        throw std::invalid_argument("parameter '" + x.name + "' is given twice");
    }
    if (!(options.tolerance > 0.0 && options.tolerance < 1.0)) {
        throw std::invalid_argument("the boundaries' tolerance must be in (0, 1), not " +
                                    number(options.tolerance));
    }
    StabilityChart chart;
    chart.x = x;
    chart.y = y;
    chart.tolerance = options.tolerance;
    std::size_t threads = options.threads;
    if (threads == 0) {
        threads = std::max(1u, std::thread::hardware_concurrency());
    }
    ChartEvaluation evaluation(chart, verdict, options);
    evaluation.grid(threads);
    if (options.refine && !evaluation.stopped()) {
        evaluation.refine(threads);
    }
    chart.evaluations = evaluation.evaluations();
    chart.stopped = evaluation.stopped();
    return chart;
}

void write_grid_csv(std::ostream& out, const StabilityChart& chart) {
    out << csv_field(chart.x.name) << ',' << csv_field(chart.y.name)
        << ",verdict,max_multiplier,message\n";
    for (std::size_t i = 0; i < chart.x.points; ++i) {
        for (std::size_t j = 0; j < chart.y.points; ++j) {
            const Verdict& v = chart.at(i, j);
            out << number(chart.x.value(i)) << ',' << number(chart.y.value(j)) << ','
                << to_string(v.kind) << ',' << number(v.max_multiplier) << ','
                << csv_field(v.message) << '\n';
        }
    }
}

void write_boundary_csv(std::ostream& out, const StabilityChart& chart) {
    out << csv_field(chart.x.name) << ',' << csv_field(chart.y.name)
        << ",along,i,j,width,converged,stable_side,stable_multiplier,unstable_multiplier\n";
    for (const BoundaryPoint& p : chart.boundary) {
        out << number(p.x) << ',' << number(p.y) << ','
            << csv_field(p.along_x ? chart.x.name : chart.y.name) << ',' << p.i << ',' << p.j << ','
            << number(p.width) << ',' << (p.converged ? 1 : 0) << ','
            << (p.stable_first ==
                        ((p.along_x ? chart.x : chart.y).lo < (p.along_x ? chart.x : chart.y).hi)
                    ? "lower"
                    : "upper")
            << ',' << number(p.stable_multiplier) << ',' << number(p.unstable_multiplier) << '\n';
    }
}

} // namespace mdl::runtime::analysis
