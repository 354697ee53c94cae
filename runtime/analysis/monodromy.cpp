#include "runtime/analysis/monodromy.hpp"

#include "runtime/numerical_failure.hpp"

#include <fmt/format.h>
#include <utility>

namespace mdl::runtime::analysis {

void require_variational_form(const Model& model, std::string_view method) {
    const auto refuse = [&](const std::string& why) {
        throw MethodNotApplicable(method, why);
    };
    if (model.positions() == 0) {
        refuse("the model has no positions");
    }
    if (model.constrained()) {
        refuse("the model has constraints; periodic orbits and monodromy matrices of "
               "constrained models are not supported yet");
    }
    if (model.states() > 0) {
        refuse("the model has first-order states, whose rates have no Jacobian kernel");
    }
    if (model.mass_depends_on_positions()) {
        refuse("the mass matrix depends on the positions (a kinetic energy with M(q)): the "
               "variational equations would need d(M(q) a)/dq, which no kernel gives yet");
    }
    if (model.has_events()) {
        refuse("the model has events (when-clauses): the flow is not differentiable across "
               "them");
    }
    if (!model.has_force_jacobians()) {
        refuse("the model has no force Jacobian kernels (df/dq, df/dv)");
    }
}

Flow::Flow(const Model& model, FlowOptions options, std::string method)
    : model_(&model), options_(options), method_(std::move(method)), n_(model.positions()) {
    require_variational_form(model, method_);
    q_.resize(n_);
    v_.resize(n_);
    theta_.resize(model.vibrations());
    f_.resize(n_);
    f_q_.resize(n_, n_);
    f_v_.resize(n_, n_);
}

void Flow::factor_mass() {
    if (!model_->mass_constant_diagonal()) {
        Matrix M;
        model_->mass_matrix(Vector::Zero(n_), M);
        mass_llt_.compute(M);
    }
}

void Flow::accelerate(Vector& f) const {
    if (model_->mass_constant_diagonal()) {
        f.array() *= model_->inverse_mass().array();
    } else {
        f = mass_llt_.solve(f);
    }
}

void Flow::vector_field(double t, const Vector& q, const Vector& v, Vector& rate) {
    factor_mass();
    rate.resize(2 * n_);
    model_->phases(t, theta_);
    model_->force(t, q, v, x_, theta_, f_);
    accelerate(f_);
    rate.head(n_) = v;
    rate.tail(n_) = f_;
}

void Flow::field(double t, const Vector& y, Vector& dydt, bool variational) {
    ++evaluations_;
    q_ = y.head(n_);
    v_ = y.segment(n_, n_);
    model_->phases(t, theta_);
    model_->force(t, q_, v_, x_, theta_, f_);
    accelerate(f_);
    dydt.head(n_) = v_;
    dydt.segment(n_, n_) = f_;
    if (!variational) {
        return;
    }
    model_->force_jacobians(t, q_, v_, x_, theta_, f_q_, f_v_);
    if (model_->mass_constant_diagonal()) {
        f_q_ = model_->inverse_mass().asDiagonal() * f_q_;
        f_v_ = model_->inverse_mass().asDiagonal() * f_v_;
    } else {
        f_q_ = mass_llt_.solve(f_q_);
        f_v_ = mass_llt_.solve(f_v_);
    }
    const Eigen::Index m = 2 * n_;
    const Eigen::Map<const Matrix> phi(y.data() + m, m, m);
    Eigen::Map<Matrix> dphi(dydt.data() + m, m, m);
    dphi.topRows(n_) = phi.bottomRows(n_);
    dphi.bottomRows(n_).noalias() = f_q_ * phi.topRows(n_);
    dphi.bottomRows(n_).noalias() += f_v_ * phi.bottomRows(n_);
}

std::string Flow::component_name(Eigen::Index i) const {
    if (i < n_) {
        return model_->position_name(i);
    }
    if (i < 2 * n_) {
        return model_->velocity_name(i - n_);
    }
    const Eigen::Index k = i - 2 * n_;
    return fmt::format("monodromy entry ({}, {})", k / (2 * n_) + 1, k % (2 * n_) + 1);
}

FlowEnd Flow::run(double t0, const Vector& q, const Vector& v, double T, bool variational) {
    factor_mass();
    const Eigen::Index m = 2 * n_;
    Vector y(variational ? m + m * m : m);
    y.head(n_) = q;
    y.segment(n_, n_) = v;
    if (variational) {
        Eigen::Map<Matrix>(y.data() + m, m, m).setIdentity();
    }
    Extrapolation gbs(y.size(), {options_.rtol, options_.atol, options_.max_steps});
    const VectorField f = [&](double t, const Vector& yy, Vector& dy) {
        field(t, yy, dy, variational);
    };
    double& h = variational ? h_variational_ : h_;
    if (h > T) {
        h = T;
    }
    FlowEnd end;
    try {
        end.steps = gbs.integrate(f, t0, t0 + T, y, h,
                                  [this](Eigen::Index i) { return component_name(i); });
    } catch (const NumericalFailure& e) {
        throw NumericalFailure(e.kind(), method_, e.time(), e.where(),
                               e.detail() + " (Gragg–Bulirsch–Stoer extrapolation)");
    }
    end.q = y.head(n_);
    end.v = y.segment(n_, n_);
    if (variational) {
        end.phi = Eigen::Map<const Matrix>(y.data() + m, m, m);
    }
    Vector dy(y.size());
    field(t0 + T, y, dy, false);
    end.rate = dy.head(m);
    return end;
}

FlowEnd Flow::state(double t0, const Vector& q, const Vector& v, double T) {
    return run(t0, q, v, T, false);
}

FlowEnd Flow::monodromy(double t0, const Vector& q, const Vector& v, double T) {
    return run(t0, q, v, T, true);
}

Matrix Flow::samples(double t0, const Vector& q, const Vector& v, double T, Eigen::Index N) {
    Matrix rows(N + 1, 1 + 2 * n_);
    Vector qq = q, vv = v;
    for (Eigen::Index i = 0; i <= N; ++i) {
        const double t = t0 + T * static_cast<double>(i) / static_cast<double>(N);
        if (i > 0) {
            const double t_previous = t0 + T * static_cast<double>(i - 1) / static_cast<double>(N);
            const FlowEnd end = run(t_previous, qq, vv, t - t_previous, false);
            qq = end.q;
            vv = end.v;
        }
        rows(i, 0) = t;
        rows.row(i).segment(1, n_) = qq.transpose();
        rows.row(i).segment(1 + n_, n_) = vv.transpose();
    }
    return rows;
}

Matrix Flow::rk4_samples(double t0, const Vector& q, const Vector& v, double T, Eigen::Index N) {
    factor_mass();
    Matrix rows(N + 1, 1 + 2 * n_);
    Vector y(2 * n_), k1(2 * n_), k2(2 * n_), k3(2 * n_), k4(2 * n_), stage(2 * n_);
    y << q, v;
    const double h = T / static_cast<double>(N);
    for (Eigen::Index i = 0;; ++i) {
        const double t = t0 + h * static_cast<double>(i);
        rows(i, 0) = t;
        rows.row(i).tail(2 * n_) = y.transpose();
        if (i == N) {
            break;
        }
        field(t, y, k1, false);
        stage = y + 0.5 * h * k1;
        field(t + 0.5 * h, stage, k2, false);
        stage = y + 0.5 * h * k2;
        field(t + 0.5 * h, stage, k3, false);
        stage = y + h * k3;
        field(t + h, stage, k4, false);
        y += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
    }
    return rows;
}

FlowEnd monodromy(const Model& model, double t0, const Vector& q, const Vector& v, double T,
                  const FlowOptions& options) {
    Flow flow(model, options);
    return flow.monodromy(t0, q, v, T);
}

} // namespace mdl::runtime::analysis
