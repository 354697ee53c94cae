#include "runtime/analysis/continuation.hpp"

#include "runtime/analysis/forcing_period.hpp"
#include "runtime/numerical_failure.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <complex>
#include <fmt/format.h>
#include <optional>

namespace mdl::runtime::analysis {

namespace {

constexpr const char* method_name = "continue";

// Test functions of the bifurcations (see continuation.hpp), the trivial multiplier left out.
double period_doubling_test(const FloquetMultipliers& f) {
    std::complex<double> p = 1.0;
    for (std::size_t i = 0; i < f.multipliers.size(); ++i) {
        if (static_cast<int>(i) != f.trivial) {
            p *= f.multipliers[i] + 1.0;
        }
    }
    return p.real();
}

double neimark_sacker_test(const FloquetMultipliers& f) {
    std::complex<double> p = 1.0;
    const std::size_t size = f.multipliers.size();
    for (std::size_t i = 0; i < size; ++i) {
        for (std::size_t j = i + 1; j < size; ++j) {
            if (static_cast<int>(i) != f.trivial && static_cast<int>(j) != f.trivial) {
                p *= f.multipliers[i] * f.multipliers[j] - 1.0;
            }
        }
    }
    return p.real();
}

bool has_multiplier_near(const FloquetMultipliers& f, bool complex_pair, double target) {
    for (std::size_t i = 0; i < f.multipliers.size(); ++i) {
        const std::complex<double> mu = f.multipliers[i];
        if (static_cast<int>(i) == f.trivial) {
            continue;
        }
        if (complex_pair ? std::abs(mu.imag()) > 1e-3 && std::abs(std::abs(mu) - 1.0) < 1e-3
                         : std::abs(mu - target) < 1e-3) {
            return true;
        }
    }
    return false;
}

class Continuer {
public:
    Continuer(const Model& model, const ContinuationOptions& options)
        : model_(model), options_(options), flow_(model_, {}, method_name) {
        n_ = model_.positions();
        m_ = 2 * n_;
        autonomous_ = !forced(model_);
        size_ = m_ + (autonomous_ ? 1 : 0) + 1;
        lambda_ = size_ - 1;
        model_.parameter(options_.parameter); // throws for an unknown name
    }

    Branch run(const Vector& q, const Vector& v);

private:
    struct Evaluation {
        Vector residual; // size_ - 1
        Matrix jacobian; // (size_ - 1) x size_
        Matrix phi;
    };
    struct Point {
        Vector z, tangent;
        Evaluation e;
        FloquetMultipliers floquet;
        int iterations = 0;
    };

    void set(double lambda) { model_.set_parameter(options_.parameter, lambda); }
    double period(const Vector& z) const {
        return autonomous_ ? z[m_] : forcing_period(model_, method_name, options_.period);
    }
    Vector shooting_residual(const Vector& z, const FlowEnd& end) const;
    Evaluation evaluate(const Vector& z);
    bool correct(const Vector& prediction, const Vector& row, Point& point);
    Vector tangent(const Matrix& jacobian, const Vector& row) const;
    Point start(const Vector& q, const Vector& v);
    BranchPoint branch_point(const Point& p, std::string label);
    std::optional<Point> locate(const Point& a, double ds, int test, double fa, double fb);
    double test_value(const Point& p, int test) const;
    void reference(const Vector& z);
    void add_peak(Branch& branch, const std::vector<Point>& path);

    Model model_;
    ContinuationOptions options_;
    Flow flow_;
    Eigen::Index n_ = 0, m_ = 0, size_ = 0, lambda_ = 0;
    bool autonomous_ = false;
    Vector y_ref_, f_ref_; // the phase condition of autonomous orbits
};

Vector Continuer::shooting_residual(const Vector& z, const FlowEnd& end) const {
    Vector r(size_ - 1);
    r.head(n_) = end.q - z.head(n_);
    r.segment(n_, n_) = end.v - z.segment(n_, n_);
    if (autonomous_) {
        r[m_] = f_ref_.dot(z.head(m_) - y_ref_);
    }
    return r;
}

Continuer::Evaluation Continuer::evaluate(const Vector& z) {
    set(z[lambda_]);
    const FlowEnd end = flow_.monodromy(0.0, z.head(n_), z.segment(n_, n_), period(z));
    Evaluation e;
    e.residual = shooting_residual(z, end);
    e.phi = end.phi;
    e.jacobian = Matrix::Zero(size_ - 1, size_);
    e.jacobian.topLeftCorner(m_, m_) = end.phi - Matrix::Identity(m_, m_);
    if (autonomous_) {
        e.jacobian.col(m_).head(m_) = end.rate;
        e.jacobian.row(m_).head(m_) = f_ref_.transpose();
    }
    // dR/dlambda: a forward difference of the end state (the period follows lambda)
    const double h = 1e-7 * (1.0 + std::abs(z[lambda_]));
    Vector shifted = z;
    shifted[lambda_] += h;
    set(shifted[lambda_]);
    const FlowEnd moved = flow_.state(0.0, z.head(n_), z.segment(n_, n_), period(shifted));
    e.jacobian.col(lambda_) = (shooting_residual(shifted, moved) - e.residual) / h;
    set(z[lambda_]);
    return e;
}

bool Continuer::correct(const Vector& prediction, const Vector& row, Point& point) {
    Vector z = prediction;
    const double tolerance = options_.shooting.tolerance;
    for (int iteration = 0; iteration <= 8; ++iteration) {
        Evaluation e;
        try {
            e = evaluate(z);
        } catch (const NumericalFailure&) {
            return false;
        }
        const double norm = e.residual.cwiseAbs().maxCoeff();
        if (!std::isfinite(norm)) {
            return false;
        }
        const double scale = std::max(1.0, z.head(m_).cwiseAbs().maxCoeff());
        Matrix A(size_, size_);
        A.topRows(size_ - 1) = e.jacobian;
        A.row(size_ - 1) = row.transpose();
        Vector r(size_);
        r << e.residual, row.dot(z - prediction);
        const Vector step = A.fullPivLu().solve(r);
        if (norm <= tolerance * scale) {
            // converged: the last Newton correction (already computed) squares the error,
            // which matters next to a fold, where the state at fixed lambda is sensitive
            point.z = z - step;
            point.e = std::move(e);
            point.iterations = iteration;
            point.floquet = floquet_multipliers(point.e.phi, autonomous_,
                                                options_.shooting.stability_tolerance);
            return point.z.allFinite();
        }
        z -= step;
        if (!z.allFinite() || (autonomous_ && !(z[m_] > 0.0))) {
            return false;
        }
    }
    return false;
}

Vector Continuer::tangent(const Matrix& jacobian, const Vector& row) const {
    Matrix A(size_, size_);
    A.topRows(size_ - 1) = jacobian;
    A.row(size_ - 1) = row.transpose();
    Vector rhs = Vector::Zero(size_);
    rhs[size_ - 1] = 1.0;
    Vector t = A.fullPivLu().solve(rhs);
    return t / t.norm();
}

void Continuer::reference(const Vector& z) {
    if (!autonomous_) {
        return;
    }
    set(z[lambda_]);
    y_ref_ = z.head(m_);
    flow_.vector_field(0.0, z.head(n_), z.segment(n_, n_), f_ref_);
    f_ref_ /= std::max(f_ref_.norm(), 1e-300);
}

Continuer::Point Continuer::start(const Vector& q, const Vector& v) {
    set(options_.from);
    PeriodicOrbit orbit;
    if (autonomous_) {
        double guess = options_.period > 0.0 ? options_.period : return_time(flow_, q, v);
        if (!(guess > 0.0)) {
            throw MethodNotApplicable(method_name,
                                      "the flow from the start values does not return near them; "
                                      "give a guess of the period (--period)");
        }
        orbit = shoot_autonomous(flow_, guess, q, v, options_.shooting);
    } else {
        const double T = forcing_period(model_, method_name, options_.period);
        try {
            orbit = shoot_forced(flow_, 0.0, T, q, v, options_.shooting);
        } catch (const NumericalFailure&) {
            // let the transient decay for 100 periods, then shoot again
            FlowEnd end = flow_.state(0.0, q, v, 100.0 * T);
            orbit = shoot_forced(flow_, 0.0, T, end.q, end.v, options_.shooting);
        }
    }
    Vector z(size_);
    if (autonomous_) {
        z << orbit.q, orbit.v, orbit.period, options_.from;
    } else {
        z << orbit.q, orbit.v, options_.from;
    }
    reference(z);
    Point p;
    Vector fix = Vector::Zero(size_);
    fix[lambda_] = 1.0;
    if (!correct(z, fix, p)) {
        throw NumericalFailure(FailureKind::newton_not_converged, method_name, 0.0,
                               options_.parameter,
                               "the first orbit found by shooting does not solve the bordered "
                               "system with " +
                                   parameter_values(model_));
    }
    p.tangent = tangent(p.e.jacobian, fix);
    if ((p.tangent[lambda_] < 0.0) != (options_.to < options_.from)) {
        p.tangent = -p.tangent;
    }
    return p;
}

double Continuer::test_value(const Point& p, int test) const {
    switch (test) {
    case 0:
        return p.tangent[lambda_];
    case 1:
        return period_doubling_test(p.floquet);
    default:
        return neimark_sacker_test(p.floquet);
    }
}

// The point between a and the next one where test function `test` vanishes, by the
// Illinois variant of regula falsi on the arclength s in (0, ds) from a along a's tangent.
std::optional<Continuer::Point> Continuer::locate(const Point& a, double ds, int test, double fa,
                                                  double fb) {
    double s0 = 0.0, s1 = ds, f0 = fa, f1 = fb;
    std::optional<Point> best;
    int side = 0;
    for (int iteration = 0; iteration < 30; ++iteration) {
        const double s = s1 - f1 * (s1 - s0) / (f1 - f0);
        Point p;
        if (!correct(a.z + s * a.tangent, a.tangent, p)) {
            return best;
        }
        p.tangent = tangent(p.e.jacobian, a.tangent);
        const double f = test_value(p, test);
        best = p;
        if (std::abs(s1 - s0) < 1e-11 * (1.0 + ds) || f == 0.0) {
            return best;
        }
        if ((f < 0.0) == (f1 < 0.0)) {
            s1 = s;
            f1 = f;
            if (side == -1) {
                f0 /= 2.0;
            }
            side = -1;
        } else {
            s0 = s;
            f0 = f;
            if (side == +1) {
                f1 /= 2.0;
            }
            side = +1;
        }
        if (std::abs(s1 - s0) < 1e-11 * (1.0 + ds)) {
            return best;
        }
    }
    return best;
}

BranchPoint Continuer::branch_point(const Point& p, std::string label) {
    BranchPoint b;
    b.parameter = p.z[lambda_];
    set(b.parameter);
    b.period = period(p.z);
    b.q = p.z.head(n_);
    b.v = p.z.segment(n_, n_);
    b.floquet = p.floquet;
    b.label = std::move(label);
    b.iterations = p.iterations;
    b.amplitude = amplitudes(flow_.rk4_samples(0.0, b.q, b.v, b.period, options_.samples), n_);
    return b;
}

void Continuer::add_peak(Branch& branch, const std::vector<Point>& path) {
    // the largest amplitude of the coordinate that moves most, among the regular points
    Eigen::Index coordinate = 0;
    double largest = -1.0;
    std::size_t at = 0;
    for (std::size_t i = 0; i < branch.points.size(); ++i) {
        Eigen::Index c = 0;
        const double a = branch.points[i].amplitude.maxCoeff(&c);
        if (a > largest) {
            largest = a;
            coordinate = c;
            at = i;
        }
    }
    // path[k] is the k-th regular point; find the regular neighbours of `at`
    std::vector<std::size_t> regular;
    for (std::size_t i = 0; i < branch.points.size(); ++i) {
        if (branch.points[i].label.empty() || branch.points[i].label == "start" ||
            branch.points[i].label == "end") {
            regular.push_back(i);
        }
    }
    const auto found = std::find(regular.begin(), regular.end(), at);
    if (found == regular.end() || found == regular.begin() || found + 1 == regular.end()) {
        return; // at an end or a located point: no interior maximum
    }
    const std::size_t k = static_cast<std::size_t>(found - regular.begin());
    const Point& p0 = path[k - 1];
    const Point& p1 = path[k];
    const Point& p2 = path[k + 1];
    const double s1 = (p1.z - p0.z).norm(), s2 = s1 + (p2.z - p1.z).norm();
    const double a0 = branch.points[regular[k - 1]].amplitude[coordinate];
    const double a1 = branch.points[regular[k]].amplitude[coordinate];
    const double a2 = branch.points[regular[k + 1]].amplitude[coordinate];
    // the parabola through (0, a0), (s1, a1), (s2, a2): its vertex
    const double d1 = (a1 - a0) / s1, d2 = (a2 - a1) / (s2 - s1), c2 = (d2 - d1) / s2;
    if (!(c2 < 0.0)) {
        return;
    }
    const double s = 0.5 * (s1 - d1 / c2);
    const Point& from = s < s1 ? p0 : p1;
    const double offset = s < s1 ? s : s - s1;
    Point p;
    if (!correct(from.z + offset * from.tangent, from.tangent, p)) {
        return;
    }
    p.tangent = tangent(p.e.jacobian, from.tangent);
    BranchPoint peak = branch_point(p, "peak");
    const std::size_t insert_at = s < s1 ? regular[k] : regular[k] + 1;
    branch.points.insert(branch.points.begin() + static_cast<std::ptrdiff_t>(insert_at),
                         std::move(peak));
}

Branch Continuer::run(const Vector& q, const Vector& v) {
    Branch branch;
    branch.autonomous = autonomous_;
    const double low = std::min(options_.from, options_.to);
    const double high = std::max(options_.from, options_.to);
    Point current = start(q, v);
    std::vector<Point> path{current};
    branch.points.push_back(branch_point(current, "start"));
    double ds = std::min(options_.ds, options_.ds_max);
    const char* names[] = {"fold", "period-doubling", "neimark-sacker"};
    while (true) {
        if (static_cast<int>(path.size()) >= options_.max_points) {
            branch.stop =
                fmt::format("stopped after {} points (--max-points) at {} = {}", path.size(),
                            options_.parameter, format_number(current.z[lambda_]));
            break;
        }
        Point next;
        const Vector prediction = current.z + ds * current.tangent;
        bool ok = correct(prediction, current.tangent, next);
        if (ok) {
            next.tangent = tangent(next.e.jacobian, current.tangent);
            ok = next.tangent.dot(current.tangent) > std::cos(3.14159265358979323846 / 6);
        }
        if (!ok) {
            ds /= 2.0;
            if (ds < options_.ds_min) {
                branch.stop = fmt::format(
                    "the corrector failed with the step size below {} at {} = {} (period {}): "
                    "the branch may end, turn too sharply or meet a branch point",
                    format_number(options_.ds_min), options_.parameter,
                    format_number(current.z[lambda_]), format_number(period(current.z)));
                break;
            }
            continue;
        }
        const double lambda = next.z[lambda_];
        if (lambda < low || lambda > high) {
            // the last point at the end of the range exactly
            const double bound = lambda < low ? low : high;
            const double fraction = (bound - current.z[lambda_]) / (lambda - current.z[lambda_]);
            Vector fix = Vector::Zero(size_);
            fix[lambda_] = 1.0;
            Vector guess = current.z + fraction * (next.z - current.z);
            guess[lambda_] = bound;
            Point end;
            if (correct(guess, fix, end)) {
                end.tangent = tangent(end.e.jacobian, current.tangent);
                branch.points.push_back(branch_point(end, "end"));
                path.push_back(end);
            }
            branch.stop = fmt::format("reached {} = {}", options_.parameter, format_number(bound));
            break;
        }
        // bifurcations between current and next
        for (int test = 0; test < 3; ++test) {
            if (test == 2 && model_.conservative()) {
                continue;
            }
            const double fa = test_value(current, test), fb = test_value(next, test);
            const double floor = test == 0 ? 0.0 : 1e-9;
            if (!((fa < 0.0) != (fb < 0.0)) || std::abs(fa) <= floor || std::abs(fb) <= floor) {
                continue;
            }
            std::optional<Point> located = locate(current, ds, test, fa, fb);
            if (!located) {
                continue;
            }
            const bool genuine =
                test == 0 || has_multiplier_near(located->floquet, test == 2, -1.0);
            if (genuine) {
                branch.points.push_back(branch_point(*located, names[test]));
            }
        }
        branch.points.push_back(branch_point(next, ""));
        path.push_back(next);
        reference(next.z);
        current = std::move(next);
        if (current.iterations <= 3) {
            ds = std::min(1.5 * ds, options_.ds_max);
        } else if (current.iterations >= 6) {
            ds /= 1.5;
        }
    }
    if (!autonomous_) {
        add_peak(branch, path);
    }
    branch.evaluations = flow_.evaluations();
    return branch;
}

} // namespace

Vector amplitudes(const Matrix& samples, Eigen::Index positions) {
    const Eigen::Index N = samples.rows() - 1; // the last row repeats the first (one period)
    Vector a(positions);
    for (Eigen::Index i = 0; i < positions; ++i) {
        const auto column = samples.col(1 + i);
        const auto refined = [&](bool maximum) {
            Eigen::Index at = 0;
            double value = maximum ? column.head(N).maxCoeff(&at) : column.head(N).minCoeff(&at);
            const double left = column[(at + N - 1) % N], right = column[(at + 1) % N];
            const double curvature = left - 2.0 * value + right;
            if (curvature != 0.0) {
                value -= (right - left) * (right - left) / (8.0 * curvature);
            }
            return value;
        };
        a[i] = 0.5 * (refined(true) - refined(false));
    }
    return a;
}

Branch continue_orbits(const Model& model, const Vector& q, const Vector& v,
                       const ContinuationOptions& options) {
    if (!(options.from != options.to) || !std::isfinite(options.from) ||
        !std::isfinite(options.to)) {
        throw MethodNotApplicable(method_name,
                                  "the parameter range must have two different finite ends");
    }
    if (!(options.ds > 0.0 && options.ds_min > 0.0 && options.ds_max >= options.ds_min)) {
        throw MethodNotApplicable(method_name, "the step sizes must satisfy 0 < ds_min <= ds_max "
                                               "and ds > 0");
    }
    Continuer continuer(model, options);
    return continuer.run(q, v);
}

} // namespace mdl::runtime::analysis
