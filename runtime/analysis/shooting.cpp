#include "runtime/analysis/shooting.hpp"

#include "runtime/numerical_failure.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace mdl::runtime::analysis {

namespace {

// The unknowns' components' names for messages: positions, velocities, then "period".
std::string unknown_name(const Model& model, Eigen::Index i) {
    const Eigen::Index n = model.positions();
    if (i < n) {
        return model.position_name(i);
    }
    if (i < 2 * n) {
        return model.velocity_name(i - n);
    }
    return "period";
}

struct Evaluation {
    Vector residual;
    Matrix jacobian;
    FlowEnd end;
};

// Residual and Jacobian at z = (y0[, T]).
Evaluation evaluate(Flow& flow, double t0, const Vector& z, double fixed_period, bool autonomous,
                    const Vector& y_ref, const Vector& f_ref) {
    const Eigen::Index n = flow.positions(), m = 2 * n;
    const double T = autonomous ? z[m] : fixed_period;
    Evaluation e;
    e.end = flow.monodromy(t0, z.head(n), z.segment(n, n), T);
    const Eigen::Index size = autonomous ? m + 1 : m;
    e.residual.resize(size);
    e.residual.head(n) = e.end.q - z.head(n);
    e.residual.segment(n, n) = e.end.v - z.segment(n, n);
    e.jacobian = Matrix::Zero(size, size);
    e.jacobian.topLeftCorner(m, m) = e.end.phi - Matrix::Identity(m, m);
    if (autonomous) {
        e.residual[m] = f_ref.dot(z.head(m) - y_ref);
        e.jacobian.col(m).head(m) = e.end.rate;
        e.jacobian.row(m).head(m) = f_ref.transpose();
    }
    return e;
}

PeriodicOrbit newton(Flow& flow, double t0, Vector z, double fixed_period, bool autonomous,
                     const ShootingOptions& options) {
    const Model& model = flow.model();
    const Eigen::Index n = flow.positions(), m = 2 * n;
    const Vector y_ref = z.head(m);
    Vector f_ref = Vector::Zero(m);
    if (autonomous) {
        flow.vector_field(t0, y_ref.head(n), y_ref.tail(n), f_ref);
        if (f_ref.norm() == 0.0) {
            throw NumericalFailure(FailureKind::newton_not_converged, "periodic", t0, "period",
                                   "the first guess is an equilibrium (the flow vanishes there): "
                                   "start from a point on or near the orbit");
        }
        f_ref /= f_ref.norm();
    }
    const auto scale = [&](const Vector& zz) {
        return std::max(1.0, zz.head(m).cwiseAbs().maxCoeff());
    };
    Evaluation e;
    try {
        e = evaluate(flow, t0, z, fixed_period, autonomous, y_ref, f_ref);
    } catch (const NumericalFailure& failure) {
        throw NumericalFailure(failure.kind(), failure.method(), failure.time(), failure.where(),
                               failure.detail() + fmt::format(", from the first guess with {}",
                                                              parameter_values(model)));
    }
    double norm = e.residual.cwiseAbs().maxCoeff();
    int iteration = 0;
    while (!(norm <= options.tolerance * scale(z))) {
        if (iteration == options.max_iterations || !std::isfinite(norm)) {
            Eigen::Index at = 0;
            e.residual.cwiseAbs().maxCoeff(&at);
            throw NumericalFailure(
                FailureKind::newton_not_converged, "periodic", t0, unknown_name(model, at),
                fmt::format("single shooting: Newton did not converge in {} iterations: residual "
                            "{:.3g} (tolerance {:.3g}) with {}{}; start closer to the orbit "
                            "(start values, a run's end state){}",
                            iteration, norm, options.tolerance * scale(z), parameter_values(model),
                            autonomous ? fmt::format(", period {}", format_number(z[m])) : "",
                            autonomous ? " or give a better guess of the period" : ""));
        }
        ++iteration;
        const Vector step = -e.jacobian.fullPivLu().solve(e.residual);
        double lambda = 1.0;
        for (int halving = 0;; ++halving, lambda /= 2) {
            const bool last = halving == 10;
            const Vector trial = z + lambda * step;
            if (autonomous && !(trial[m] > 0.0) && !last) {
                continue; // a period <= 0
            }
            try {
                Evaluation candidate =
                    evaluate(flow, t0, trial, fixed_period, autonomous, y_ref, f_ref);
                const double candidate_norm = candidate.residual.cwiseAbs().maxCoeff();
                if (candidate_norm < norm || last) {
                    z = trial;
                    e = std::move(candidate);
                    norm = candidate_norm;
                    break;
                }
            } catch (const NumericalFailure&) {
                if (last) {
                    throw;
                }
            }
        }
    }
    // the last Newton correction squares the error (the orbit next to a fold is sensitive)
    const Vector last = e.jacobian.fullPivLu().solve(e.residual);
    if (last.allFinite()) {
        z -= last;
    }
    PeriodicOrbit orbit;
    orbit.t0 = t0;
    orbit.autonomous = autonomous;
    orbit.period = autonomous ? z[m] : fixed_period;
    orbit.q = z.head(n);
    orbit.v = z.segment(n, n);
    orbit.phi = e.end.phi;
    orbit.floquet = floquet_multipliers(orbit.phi, autonomous, options.stability_tolerance);
    orbit.iterations = iteration;
    orbit.residual = norm;
    return orbit;
}

} // namespace

std::string parameter_values(const Model& model) {
    std::string text;
    const auto& names = model.parameter_names();
    for (std::size_t i = 0; i < model.parameters().size(); ++i) {
        text += fmt::format("{}{} = {}", i ? ", " : "", i < names.size() ? names[i] : "p",
                            format_number(model.parameters()[i]));
    }
    return text.empty() ? "no parameters" : text;
}

PeriodicOrbit shoot_forced(Flow& flow, double t0, double period, const Vector& q, const Vector& v,
                           const ShootingOptions& options) {
    const Eigen::Index n = flow.positions();
    Vector z(2 * n);
    z << q, v;
    return newton(flow, t0, z, period, false, options);
}

PeriodicOrbit shoot_autonomous(Flow& flow, double period, const Vector& q, const Vector& v,
                               const ShootingOptions& options) {
    const Eigen::Index n = flow.positions();
    Vector z(2 * n + 1);
    z << q, v, period;
    return newton(flow, 0.0, z, 0.0, true, options);
}

double return_time(Flow& flow, const Vector& q, const Vector& v, double horizon) {
    const Model& model = flow.model();
    const Eigen::Index n = flow.positions();
    Vector y0(2 * n), f0;
    y0 << q, v;
    flow.vector_field(0.0, q, v, f0);
    if (f0.norm() == 0.0) {
        return 0.0;
    }
    // the time scale: the fastest frequency of the linearization at the start
    Matrix f_q(n, n), f_v(n, n);
    Vector theta(model.vibrations()), x;
    model.force_jacobians(0.0, q, v, x, theta, f_q, f_v);
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(2 * n, 2 * n);
    A.topRightCorner(n, n).setIdentity();
    for (Eigen::Index i = 0; i < n; ++i) {
        const double inverse_mass = model.mass_constant_diagonal() ? model.inverse_mass()[i] : 1.0;
        A.row(n + i).head(n) = inverse_mass * f_q.row(i);
        A.row(n + i).tail(n) = inverse_mass * f_v.row(i);
    }
    double rate = Eigen::EigenSolver<Eigen::MatrixXd>(A, false).eigenvalues().cwiseAbs().maxCoeff();
    if (!(rate > 0.0) || !std::isfinite(rate)) {
        rate = 1.0;
    }
    const double dt = 2.0 * 3.14159265358979323846 / rate / 50.0;
    if (!(horizon > 0.0)) {
        horizon = 200.0 * 50.0 * dt;
    }
    Vector qq = q, vv = v, y(2 * n);
    double previous = 0.0;
    bool left = false; // the flow has left the start's neighbourhood
    for (double t = 0.0; t < horizon; t += dt) {
        const FlowEnd end = flow.state(t, qq, vv, dt);
        qq = end.q;
        vv = end.v;
        y << qq, vv;
        const double side = f0.dot(y - y0);
        left = left || side < 0.0;
        if (left && previous < 0.0 && side >= 0.0) {
            return t + dt * (-previous) / (side - previous); // linear interpolation
        }
        previous = side;
    }
    return 0.0;
}

} // namespace mdl::runtime::analysis
