#include "runtime/multiscale/stroboscopic.hpp"

#include "runtime/integrators/lagrange_multipliers.hpp"
#include "runtime/integrators/rk4.hpp"
#include "runtime/integrators/verlet.hpp"
#include "runtime/model_force.hpp"
#include "runtime/multiscale/applicability.hpp"
#include "runtime/multiscale/common_period.hpp"
#include "runtime/multiscale/half_explicit_rk.hpp"
#include "runtime/numerical_failure.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <variant>

namespace mdl::runtime::multiscale {

std::string_view to_string(StroboscopicMacro macro) {
    return macro == StroboscopicMacro::rk4 ? "rk4" : "dopri5";
}

std::string_view to_string(StroboscopicMicro micro) {
    switch (micro) {
    case StroboscopicMicro::rk4:
        return "rk4";
    case StroboscopicMicro::verlet:
        return "verlet";
    case StroboscopicMicro::half_explicit_rk3:
        return "herk3";
    case StroboscopicMicro::automatic:
        break;
    }
    return "auto";
}

StroboscopicMacro parse_stroboscopic_macro(std::string_view name) {
    if (name == "rk4") {
        return StroboscopicMacro::rk4;
    }
    if (name == "dopri5") {
        return StroboscopicMacro::dopri5;
    }
    throw std::invalid_argument("unknown stroboscopic macro-integrator '" + std::string(name) +
                                "' (rk4 or dopri5)");
}

StroboscopicMicro parse_stroboscopic_micro(std::string_view name) {
    if (name == "rk4") {
        return StroboscopicMicro::rk4;
    }
    if (name == "verlet") {
        return StroboscopicMicro::verlet;
    }
    if (name == "herk3") {
        return StroboscopicMicro::half_explicit_rk3;
    }
    if (name == "auto") {
        return StroboscopicMicro::automatic;
    }
    throw std::invalid_argument("unknown stroboscopic micro-integrator '" + std::string(name) +
                                "' (rk4, verlet, herk3 or auto)");
}

StroboscopicMicro resolve_stroboscopic_micro(const Model& model, StroboscopicMicro micro) {
    if (micro == StroboscopicMicro::automatic) {
        return model.constrained() ? StroboscopicMicro::half_explicit_rk3 : StroboscopicMicro::rk4;
    }
    if (model.constrained() && micro != StroboscopicMicro::half_explicit_rk3) {
        throw MethodNotApplicable(
            "strobo", "the micro-integrator " + std::string(to_string(micro)) +
                          " cannot enforce the model's " + std::to_string(model.constraints()) +
                          " constraint(s) (" + model.constraint_name(0) +
                          ", ...); use herk3, the half-explicit Runge-Kutta method of the DAE "
                          "variant (the default for constrained models)");
    }
    return micro;
}

namespace {

constexpr std::string_view method_name = "strobo";

double fast_period(const Model& model, const StroboscopicOptions& options) {
    const Applicability verdict = strobo_applicability(model, options);
    if (!verdict.applies) {
        throw MethodNotApplicable(method_name, verdict.reason);
    }
    if (model.vibrations() == 0) {
        if (!std::isfinite(options.period)) {
            throw std::invalid_argument("strobo: the period must be finite");
        }
        return options.period; // an explicit period of a forcing in t
    }
    return common_period(model, method_name, options.period).period;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// The field

struct StroboscopicField::Impl {
    using Micro = std::variant<RungeKutta4<ModelForce>, VelocityVerlet<ModelForce>,
                               HalfExplicitRK3<ModelForce>>;

    Impl(const Model& m, const StroboscopicOptions& options, double origin)
        : model(&m), order(options.order), t_origin(origin), delta(fast_period(m, options)),
          per_period(options.micro_steps_per_period),
          kind(resolve_stroboscopic_micro(m, options.micro)), micro(make_micro(m, kind, options)),
          solver(options.solver), macro_step(options.macro_step), out_force(m), gram(m), newton(m) {
        if (order != 2 && order != 4) {
            throw std::invalid_argument("strobo: the differencing order must be 2 or 4, not " +
                                        std::to_string(order));
        }
        if (per_period == 0) {
            throw std::invalid_argument("strobo: micro_steps_per_period must be positive");
        }
        h = delta / static_cast<double>(per_period);
        n = m.positions();
        k = m.states();
        s = m.zero_state(origin);
        for (Vector* v : {&phi_p1, &phi_p2, &phi_m1, &phi_m2}) {
            *v = Vector::Zero(2 * n + k);
        }
        const Eigen::Index c = m.constraints();
        G = Matrix::Zero(c, n);
        D = Matrix::Zero(n, c);
        g = Vector::Zero(c);
        Gv = Vector::Zero(c);
        nu = Vector::Zero(c);
        kappa = Vector::Zero(c);
        a = Vector::Zero(n);
        q_new = Vector::Zero(n);
        w = Vector::Zero(n);
        theta = Vector::Zero(m.vibrations());
        slow_time = m.time_dependent();
        origin_phase = Vector::Zero(m.vibrations());
        if (m.vibrations() > 0) {
            m.phases(origin, origin_phase);
        }
    }

    static Micro make_micro(const Model& m, StroboscopicMicro kind,
                            const StroboscopicOptions& options) {
        if (kind == StroboscopicMicro::verlet) {
            return Micro(std::in_place_index<1>, m);
        }
        if (kind == StroboscopicMicro::half_explicit_rk3) {
            return Micro(std::in_place_index<2>, m, options.solver);
        }
        return Micro(std::in_place_index<0>, m);
    }

    void pack(const State& st, Vector& Y) const {
        Y.resize(2 * n + k);
        Y.segment(0, n) = st.q;
        Y.segment(n, n) = st.v;
        Y.segment(2 * n, k) = st.x;
    }
    void unpack(const Vector& Y, State& st) const {
        st.q = Y.segment(0, n);
        st.v = Y.segment(n, n);
        st.x = Y.segment(2 * n, k);
    }

    // From Y at the stroboscopic phase theta(t_origin), `periods` periods in direction
    // `sign`: phi(sign delta) into first, and (periods == 2) phi(2 sign delta) into second,
    // continuing the same integration. A model without explicit time is integrated from
    // t_origin with its own phases; one with slow time in micro time tau from 0, the phase
    // origin and the slow time set by evaluate().
    void period_map(const Vector& Y, double sign, int periods, Vector& first, Vector& second) {
        const double t_start = slow_time ? 0.0 : t_origin;
        s.t = t_start;
        unpack(Y, s);
        std::visit(
            [&](auto& stepper) {
                for (int p = 1; p <= periods; ++p) {
                    for (std::size_t i = 1; i <= per_period; ++i) {
                        const double target = t_start + sign * delta *
                                                            (static_cast<double>(p - 1) +
                                                             static_cast<double>(i) /
                                                                 static_cast<double>(per_period));
                        stepper.step(s, target - s.t);
                        if (track_amplitude && p == 1 && sign > 0.0) {
                            path.col(static_cast<Eigen::Index>(i - 1)) = s.q;
                        }
                    }
                    if (track_amplitude && p == 1 && sign > 0.0 && n > 0) {
                        chord_deviation(Y.segment(0, n));
                    }
                    micro_steps += per_period;
                    s.t = t_start + sign * delta * static_cast<double>(p);
                    pack(s, p == 1 ? first : second);
                }
            },
            micro);
    }

    // The fast oscillation's amplitude over the first forward period: the largest distance of
    // the micro positions from the chord between q(0) and q(delta) (the slow motion's part).
    void chord_deviation(const Eigen::Ref<const Vector>& q0) {
        const auto N = static_cast<Eigen::Index>(per_period);
        const Vector end = path.col(N - 1);
        for (Eigen::Index i = 0; i < N; ++i) {
            const double f = static_cast<double>(i + 1) / static_cast<double>(N);
            amplitude =
                std::max(amplitude, (path.col(i) - q0 - f * (end - q0)).cwiseAbs().maxCoeff());
        }
    }

    void evaluate(double t, const Vector& Y, Vector& F) {
        const int periods = order == 4 ? 2 : 1;
        amplitude = 0.0;
        if (track_amplitude && path.cols() != static_cast<Eigen::Index>(per_period)) {
            path = Matrix::Zero(n, static_cast<Eigen::Index>(per_period));
        }
        if (slow_time) {
            // micro time tau from 0, slow time t + tau, phases theta(t_origin) + omega tau: the
            // field of the stroboscopic averaged equation Y' = F(Y, t) at the stroboscopic phase
            std::visit(
                [&](auto& stepper) { stepper.force().set_phase_origin(0.0, origin_phase, t); },
                micro);
        }
        // Constrained models: F(Y) = F(P(Y)), the micro-integrations start from the projection
        // of Y onto the manifold (the macro stages lie off it by O(H^2)). Started off the
        // manifold, the forward and backward half-explicit integrations would project Y
        // differently, by O(dist), and the difference quotient would amplify that by 1/delta.
        const Vector* start = &Y;
        if (model->constrained()) {
            Y_projected = Y;
            project(Y_projected, t_origin, macro_step);
            start = &Y_projected;
        }
        period_map(*start, 1.0, periods, phi_p1, phi_p2);
        period_map(*start, -1.0, periods, phi_m1, phi_m2);
        if (order == 2) {
            F = (phi_p1 - phi_m1) / (2.0 * delta);
        } else {
            F = (8.0 * (phi_p1 - phi_m1) - (phi_p2 - phi_m2)) / (12.0 * delta);
        }
        ++evaluations;
    }

    void differencing_error(double& dq, double& dv) const {
        dq = dv = 0.0;
        if (order != 4) {
            return;
        }
        const auto part = [&](Eigen::Index begin, Eigen::Index size) {
            if (size == 0) {
                return 0.0;
            }
            const auto d1 = phi_p1.segment(begin, size) - phi_m1.segment(begin, size);
            const auto d2 = phi_p2.segment(begin, size) - phi_m2.segment(begin, size);
            const Vector f2 = d1 / (2.0 * delta);
            const Vector f4 = (8.0 * d1 - d2) / (12.0 * delta);
            const double diff = (f2 - f4).cwiseAbs().maxCoeff();
            const double size4 = f4.cwiseAbs().maxCoeff();
            return size4 > 0.0 ? std::min(diff, 1.2 * diff * diff / size4) : diff;
        };
        dq = part(0, n);
        dv = part(n, n);
    }

    std::size_t force_evaluations() const {
        return std::visit([](auto& stepper) { return stepper.force().evaluations(); }, micro) +
               out_force.evaluations();
    }

    // The time at which the constraints hold for the stroboscopic states: rheonomic
    // constraints are periodic with the fast period (the averaged state is sampled at the
    // stroboscopic phase, t_origin + k delta), so at t_origin; otherwise t (unused).
    double constraint_time(double t) const { return model->rheonomic() ? t_origin : t; }

    // q + M^-1 G(q)^T mu with g = 0, then v + M^-1 G^T nu with G v + g_t = 0 (mass metric)
    double project(Vector& Y, double t, double H) {
        if (!model->constrained()) {
            return 0.0;
        }
        const double tc = constraint_time(t);
        auto q = Y.segment(0, n);
        auto v = Y.segment(n, n);
        w = q;
        model->constraint_jacobian(tc, w, G);
        scaled_constraint_directions(*model, G, 1.0, D);
        nu.setZero();
        newton.solve(w, D, solver, tc, H, "strobo (projection)", nu, q_new);
        double change = (q_new - w).cwiseAbs().maxCoeff();
        q = q_new;
        model->constraint_jacobian(tc, q_new, G);
        gram.factorize(G, t, "strobo (projection)");
        w = v;
        nu.noalias() = G * w;
        if (model->rheonomic()) {
            model->constraint_rate(tc, q_new, g);
            nu += g;
        }
        nu = -nu;
        gram.solve_in_place(nu);
        a.noalias() = G.transpose() * nu;
        w = model->inverse_mass().cwiseProduct(a);
        change = std::max(change, w.cwiseAbs().maxCoeff());
        v += w;
        return change;
    }

    void multipliers(double t, const Vector& Y, Vector& lambda) {
        lambda.resize(model->constraints());
        if (!model->constrained()) {
            return;
        }
        w = Y.segment(0, n);
        q_new = Y.segment(n, n);
        model->constraint_jacobian(constraint_time(t), w, G);
        gram.factorize(G, t_origin, "strobo");
        model->curvature(constraint_time(t), w, q_new, kappa);
        if (slow_time) {
            out_force.set_phase_origin(0.0, origin_phase, t); // slow time t, stroboscopic phase
        }
        out_force.acceleration(slow_time ? 0.0 : t_origin, w, q_new, Y.segment(2 * n, k), a);
        acceleration_multipliers(gram, G, a, kappa, lambda);
    }

    void residuals(const Vector& Y, double& position, double& velocity) {
        position = velocity = 0.0;
        if (!model->constrained()) {
            return;
        }
        w = Y.segment(0, n);
        model->constraint(t_origin, w, g);
        model->constraint_jacobian(t_origin, w, G);
        Gv.noalias() = G * Y.segment(n, n);
        if (model->rheonomic()) {
            model->constraint_rate(t_origin, w, nu);
            Gv += nu;
        }
        position = g.cwiseAbs().maxCoeff();
        velocity = Gv.cwiseAbs().maxCoeff();
    }

    const Model* model;
    int order;
    double t_origin;
    double delta;
    std::size_t per_period;
    double h = 0.0;
    Eigen::Index n = 0, k = 0;
    StroboscopicMicro kind;
    mutable Micro micro; // force() is not const
    SolverOptions solver;
    double macro_step; // named in the projection's failures
    // constrained models: projection, output multipliers, residuals
    ModelForce out_force;
    ConstraintGram gram;
    PositionConstraintNewton newton;
    Matrix G, D;
    Vector g, Gv, nu, kappa, a, q_new, w, theta;
    bool slow_time = false; // the model depends on t besides the phases
    Vector origin_phase;    // theta(t_origin), the stroboscopic phase
    State s;
    Vector phi_p1, phi_p2, phi_m1, phi_m2, Y_projected;
    std::size_t evaluations = 0;
    std::size_t micro_steps = 0;
    // the largest |q(tau) - q(0)| over the first forward period of the last evaluation
    bool track_amplitude = false;
    double amplitude = 0.0;
    Matrix path; // the micro positions over that period (n x per_period)
};

StroboscopicField::StroboscopicField(const Model& model, const StroboscopicOptions& options,
                                     double t_origin)
    : impl_(std::make_unique<Impl>(model, options, t_origin)) {}
StroboscopicField::~StroboscopicField() = default;
StroboscopicField::StroboscopicField(StroboscopicField&&) noexcept = default;

void StroboscopicField::evaluate(double t, const Vector& Y, Vector& F) {
    impl_->evaluate(t, Y, F);
}
Eigen::Index StroboscopicField::size() const {
    return 2 * impl_->n + impl_->k;
}
void StroboscopicField::pack(const State& s, Vector& Y) const {
    impl_->pack(s, Y);
}
void StroboscopicField::unpack(const Vector& Y, State& s) const {
    impl_->unpack(Y, s);
}
double StroboscopicField::period() const {
    return impl_->delta;
}
double StroboscopicField::micro_step() const {
    return impl_->h;
}
std::size_t StroboscopicField::steps_per_evaluation() const {
    return impl_->per_period * (impl_->order == 4 ? 4u : 2u);
}
std::size_t StroboscopicField::evaluations() const {
    return impl_->evaluations;
}
std::size_t StroboscopicField::micro_steps() const {
    return impl_->micro_steps;
}
std::size_t StroboscopicField::force_evaluations() const {
    return impl_->force_evaluations();
}
double StroboscopicField::project(Vector& Y, double t, double H) {
    return impl_->project(Y, t, H);
}
void StroboscopicField::multipliers(double t, const Vector& Y, Vector& lambda) {
    impl_->multipliers(t, Y, lambda);
}
void StroboscopicField::residuals(const Vector& Y, double& position, double& velocity) {
    impl_->residuals(Y, position, velocity);
}
StroboscopicMicro StroboscopicField::micro() const {
    return impl_->kind;
}
int StroboscopicField::micro_order() const {
    switch (impl_->kind) {
    case StroboscopicMicro::verlet:
        return 2;
    case StroboscopicMicro::half_explicit_rk3:
        return 3;
    default:
        return 4;
    }
}
void StroboscopicField::track_amplitude() {
    impl_->track_amplitude = true;
}
double StroboscopicField::amplitude() const {
    return impl_->amplitude;
}
void StroboscopicField::differencing_error(double& dq, double& dv) const {
    impl_->differencing_error(dq, dv);
}

// ---------------------------------------------------------------------------------------------
// The macro-integrators

StroboscopicIntegrator::StroboscopicIntegrator(const Model& model,
                                               const StroboscopicOptions& options)
    : model_(&model), options_(options) {
    options_.micro = resolve_stroboscopic_micro(model, options.micro);
    if (!std::isfinite(options.t_end)) {
        throw std::invalid_argument("strobo: t_end must be finite");
    }
    if (options.macro == StroboscopicMacro::rk4 &&
        (!(options.macro_step > 0.0) || !std::isfinite(options.macro_step))) {
        throw std::invalid_argument("strobo: the macro step H must be positive and finite");
    }
    if (options.macro == StroboscopicMacro::dopri5 &&
        (!(options.macro_step >= 0.0) || !std::isfinite(options.macro_step) ||
         !(options.rtol > 0.0) || !(options.atol >= 0.0))) {
        throw std::invalid_argument("strobo: dopri5 needs rtol > 0, atol >= 0 and an output "
                                    "interval >= 0");
    }
}

bool StroboscopicIntegrator::on_stroboscope(double t) const {
    const double periods = (t - t0_) / field_->period();
    return std::abs(periods - std::round(periods)) <= 1e-9 * std::max(1.0, std::abs(periods));
}

void StroboscopicIntegrator::start(State& state) {
    require_state_shape(*model_, state, name());
    t0_ = state.t;
    t_ = t0_;
    t_end_ = options_.t_end;
    if (!(t_end_ > t0_)) {
        throw std::invalid_argument("strobo: t_end (" + format_number(t_end_) +
                                    ") must lie after the start time (" + format_number(t0_) + ")");
    }
    field_ = std::make_unique<StroboscopicField>(*model_, options_, t0_);
    field_->pack(state, Y_);
    for (Vector* v : {&Y1_, &Ytmp_, &k1_, &k2_, &k3_, &k4_, &k5_, &k6_, &k7_}) {
        *v = Vector::Zero(Y_.size());
    }
    if (options_.estimate_error) {
        StroboscopicOptions fine = options_;
        fine.micro_steps_per_period = 2 * options_.micro_steps_per_period;
        fine_ = std::make_unique<StroboscopicField>(*model_, fine, t0_);
        fine_->track_amplitude();
        amplitude_ = 0.0;
        StroboscopicOptions shadow = options_;
        shadow.order = 4; // step doubling at the run's order; order 2 also needs F4
        shadow_ = std::make_unique<StroboscopicField>(*model_, shadow, t0_);
        for (Vector* v : {&Y2H_, &F_fine_, &k_shadow_}) {
            *v = Vector::Zero(Y_.size());
        }
        error_ = ErrorAccumulator{};
        doubling_ = Rk4DoublingError{};
        sampled_step_ = 0;
    }
    outputs_ = 1;
    rejected_ = 0;
    stroboscopic_ = true;
    max_g_ = max_Gv_ = max_projection_ = 0.0;
    finish_step(); // the initial state onto the manifold
    output(state);
    done_ = false;
    if (options_.macro == StroboscopicMacro::rk4) {
        const double count = (t_end_ - t0_) / options_.macro_step;
        if (options_.whole_steps) {
            steps_ = static_cast<std::size_t>(std::floor(count + 1e-9));
        } else {
            const double rounded = std::round(count);
            steps_ = static_cast<std::size_t>(
                std::abs(count - rounded) <= 1e-9 * count ? rounded : std::ceil(count));
        }
        if (steps_ == 0) {
            throw std::invalid_argument(
                "strobo: the macro step H = " + format_number(options_.macro_step) +
                " is longer than the interval");
        }
        step_ = 0;
    } else {
        next_output_ = 1;
        k1_valid_ = false;
        err_previous_ = 1e-4;
        rejected_last_ = false;
        h_ = initial_step();
    }
}

void StroboscopicIntegrator::advance(State& s) {
    if (done_) {
        return;
    }
    try {
        if (options_.macro == StroboscopicMacro::rk4) {
            rk4_advance(s);
        } else {
            dopri5_advance(s);
        }
    } catch (const NumericalFailure& e) {
        if (e.method() == name()) {
            throw;
        }
        // a micro-integration (at micro times near t0) failed: report the macro time
        throw NumericalFailure(e.kind(), name(), t_, e.where(),
                               "in the macro step from t = " + format_number(t_) +
                                   ", evaluating the averaged field (" + e.method() +
                                   " at micro time " + format_number(e.time()) +
                                   "): " + e.detail() +
                                   (e.method() == "strobo (projection)"
                                        ? " (a macro stage left the constraint manifold too far "
                                          "to be projected back: reduce the macro step)"
                                        : ""));
    }
    stroboscopic_ = stroboscopic_ && on_stroboscope(s.t);
    ++outputs_;
}

void StroboscopicIntegrator::finish_step() {
    if (model_->constrained() && options_.project) {
        const double H = options_.macro == StroboscopicMacro::rk4 ? options_.macro_step : h_;
        max_projection_ = std::max(max_projection_, field_->project(Y_, t_, H));
    }
}

void StroboscopicIntegrator::output(State& s) {
    field_->unpack(Y_, s);
    s.t = t_;
    field_->multipliers(t_, Y_, s.lambda);
    double g = 0.0, Gv = 0.0;
    field_->residuals(Y_, g, Gv);
    max_g_ = std::max(max_g_, g);
    max_Gv_ = std::max(max_Gv_, Gv);
}

StroboscopicStats StroboscopicIntegrator::stats() const {
    StroboscopicStats st;
    st.macro_steps = step_;
    st.rejected_steps = rejected_;
    st.outputs = outputs_;
    st.stroboscopic_outputs = stroboscopic_;
    if (field_) {
        st.field_evaluations = field_->evaluations();
        st.micro_steps = field_->micro_steps();
        st.force_evaluations = field_->force_evaluations();
        st.micro_steps_per_field = field_->steps_per_evaluation();
        st.period = field_->period();
        st.micro_step = field_->micro_step();
        st.micro = field_->micro();
    }
    st.max_position_residual = max_g_;
    st.max_velocity_residual = max_Gv_;
    st.max_projection = max_projection_;
    st.micro_steps_per_period = options_.micro_steps_per_period;
    st.error = error();
    return st;
}

ErrorParts StroboscopicIntegrator::error() const {
    if (!options_.estimate_error || !fine_) {
        return {};
    }
    ErrorParts parts = error_.parts();
    // away from the stroboscopic times the output is the smooth interpolant: it misses the
    // fast oscillation, whose amplitude the last micro sample measured
    if (!on_stroboscope(t_)) {
        parts.averaging += amplitude_;
    }
    parts.micro_steps = fine_->micro_steps() + shadow_->micro_steps();
    parts.force_evaluations = fine_->force_evaluations() + shadow_->force_evaluations();
    return parts;
}

// At Y_ with k1_ = F(Y_) (`fresh`: the field's last evaluation, whose period maps give the
// differencing error): the micro error from the field at 2N (Richardson with the micro
// method's order) and the differencing error, held as rates until the next sample.
void StroboscopicIntegrator::sample_error(double t, bool fresh) {
    const Eigen::Index n = model_->positions();
    fine_->evaluate(t, Y_, F_fine_);
    amplitude_ = fine_->amplitude();
    const double factor = richardson_factor(field_->micro_order());
    const auto norm = [&](const Vector& v, Eigen::Index begin) {
        return n == 0 ? 0.0 : v.segment(begin, n).cwiseAbs().maxCoeff();
    };
    k_shadow_ = k1_ - F_fine_;
    error_.set_rates(ErrorAccumulator::micro, factor * norm(k_shadow_, 0),
                     factor * norm(k_shadow_, n));
    double dq = 0.0, dv = 0.0;
    if (options_.order == 4 && fresh) {
        field_->differencing_error(dq, dv);
    } else {
        shadow_->evaluate(t, Y_, k_shadow_); // order 4 at N
        if (options_.order == 4) {
            shadow_->differencing_error(dq, dv);
        } else {
            k_shadow_ -= k1_; // F4 - F2: the error of F2
            dq = norm(k_shadow_, 0);
            dv = norm(k_shadow_, n);
        }
    }
    error_.set_rates(ErrorAccumulator::averaging, dq, dv);
}

// One RK4 step of 2H from Y_ (k1_ = F(Y_)) by the shadow field (order 4 if the run's is 2:
// then the doubling compares the two formulas too, a conservative estimate), projected like
// the run's steps; compared with Y_ two steps later (account_step).
void StroboscopicIntegrator::start_doubling(double H) {
    StroboscopicField& F = *shadow_;
    const double H2 = 2.0 * H;
    Vector k2 = k1_, k3 = k1_, k4 = k1_;
    Y2H_ = Y_ + (0.5 * H2) * k1_;
    F.evaluate(t_ + H, Y2H_, k2);
    Y2H_ = Y_ + (0.5 * H2) * k2;
    F.evaluate(t_ + H, Y2H_, k3);
    Y2H_ = Y_ + H2 * k3;
    F.evaluate(t_ + H2, Y2H_, k4);
    Y2H_ = Y_ + (H2 / 6.0) * (k1_ + 2.0 * k2 + 2.0 * k3 + k4);
    if (model_->constrained() && options_.project) {
        shadow_->project(Y2H_, t_ + H2, H2);
    }
    doubling_.start(step_); // step_ counts the step being taken
}

// After a macro step of H: every part propagated; the macro part by the step's local error:
// rk4, |Y_HH - Y_2H|/30 in the positions from the last doubling (two steps of H against one of
// 2H differ by 2^5 - 2 local errors), held until the next; dopri5, its embedded error.
void StroboscopicIntegrator::account_step(double H) {
    error_.advance(H);
    const Eigen::Index n = model_->positions();
    const auto part = [&](const Vector& v, Eigen::Index begin) {
        return n == 0 ? 0.0 : v.segment(begin, n).cwiseAbs().maxCoeff();
    };
    if (options_.macro == StroboscopicMacro::dopri5) {
        error_.add_position(ErrorAccumulator::macro, part(Ytmp_, 0));
        error_.add_velocity(ErrorAccumulator::macro, part(Ytmp_, n));
        return;
    }
    doubling_.account(error_, step_, [&] {
        Y2H_ -= Y_;
        return std::pair{part(Y2H_, 0), part(Y2H_, n)};
    });
}

void StroboscopicIntegrator::rk4_advance(State& s) {
    const double H_nominal = options_.macro_step;
    ++step_;
    double t_next = t0_ + static_cast<double>(step_) * H_nominal;
    if (step_ == steps_ && !options_.whole_steps) {
        t_next = t_end_;
    }
    const double H = t_next - t_;
    StroboscopicField& F = *field_;
    F.evaluate(t_, Y_, k1_);
    if (options_.estimate_error && (step_ - 1) % rk4_sample_every() == 0) {
        sample_error(t_, true);
        if (step_ + 1 < steps_) {
            start_doubling(H);
        }
    }
    Ytmp_ = Y_ + (0.5 * H) * k1_;
    F.evaluate(t_ + 0.5 * H, Ytmp_, k2_);
    Ytmp_ = Y_ + (0.5 * H) * k2_;
    F.evaluate(t_ + 0.5 * H, Ytmp_, k3_);
    Ytmp_ = Y_ + H * k3_;
    F.evaluate(t_next, Ytmp_, k4_);
    Y_ += (H / 6.0) * (k1_ + 2.0 * k2_ + 2.0 * k3_ + k4_);
    t_ = t_next;
    finish_step();
    if (options_.estimate_error) {
        account_step(H);
    }
    output(s);
    done_ = step_ >= steps_;
}

// The rk4 macro's sampling of the estimate: every `estimate_every` steps, but at least 8 samples
// a run (a short run's few samples missed where its local errors grow: a double pendulum in
// joint angles with 16 steps of pi/50 sampled at steps 1 and 9 estimated 4.2e-4 for an error of
// 0.09; sampled every step, 6.3e-3).
std::size_t StroboscopicIntegrator::rk4_sample_every() const {
    return std::clamp<std::size_t>(steps_ / 8, 1,
                                   std::max<std::size_t>(1, options_.estimate_every));
}

// Dormand-Prince 5(4) (Hairer's dopri5.f coefficients), on Y' = F(Y).
namespace {
constexpr double a21 = 0.2, a31 = 3.0 / 40.0, a32 = 9.0 / 40.0, a41 = 44.0 / 45.0,
                 a42 = -56.0 / 15.0, a43 = 32.0 / 9.0, a51 = 19372.0 / 6561.0,
                 a52 = -25360.0 / 2187.0, a53 = 64448.0 / 6561.0, a54 = -212.0 / 729.0,
                 a61 = 9017.0 / 3168.0, a62 = -355.0 / 33.0, a63 = 46732.0 / 5247.0,
                 a64 = 49.0 / 176.0, a65 = -5103.0 / 18656.0, a71 = 35.0 / 384.0,
                 a73 = 500.0 / 1113.0, a74 = 125.0 / 192.0, a75 = -2187.0 / 6784.0,
                 a76 = 11.0 / 84.0;
constexpr double e1 = 71.0 / 57600.0, e3 = -71.0 / 16695.0, e4 = 71.0 / 1920.0,
                 e5 = -17253.0 / 339200.0, e6 = 22.0 / 525.0, e7 = -1.0 / 40.0;
} // namespace

double StroboscopicIntegrator::dopri5_attempt(double h) {
    StroboscopicField& F = *field_;
    Ytmp_ = Y_ + h * (a21 * k1_);
    F.evaluate(t_ + 0.2 * h, Ytmp_, k2_);
    Ytmp_ = Y_ + h * (a31 * k1_ + a32 * k2_);
    F.evaluate(t_ + 0.3 * h, Ytmp_, k3_);
    Ytmp_ = Y_ + h * (a41 * k1_ + a42 * k2_ + a43 * k3_);
    F.evaluate(t_ + 0.8 * h, Ytmp_, k4_);
    Ytmp_ = Y_ + h * (a51 * k1_ + a52 * k2_ + a53 * k3_ + a54 * k4_);
    F.evaluate(t_ + (8.0 / 9.0) * h, Ytmp_, k5_);
    Ytmp_ = Y_ + h * (a61 * k1_ + a62 * k2_ + a63 * k3_ + a64 * k4_ + a65 * k5_);
    F.evaluate(t_ + h, Ytmp_, k6_);
    Y1_ = Y_ + h * (a71 * k1_ + a73 * k3_ + a74 * k4_ + a75 * k5_ + a76 * k6_);
    F.evaluate(t_ + h, Y1_, k7_);
    Ytmp_ = h * (e1 * k1_ + e3 * k3_ + e4 * k4_ + e5 * k5_ + e6 * k6_ + e7 * k7_);
    double sum = 0.0;
    for (Eigen::Index i = 0; i < Y_.size(); ++i) {
        const double sk =
            options_.atol + options_.rtol * std::max(std::abs(Y_[i]), std::abs(Y1_[i]));
        sum += (Ytmp_[i] / sk) * (Ytmp_[i] / sk);
    }
    return Y_.size() > 0 ? std::sqrt(sum / static_cast<double>(Y_.size())) : 0.0;
}

// Hairer's starting step (Solving ODEs I, Sect. II.4), in the tolerance-weighted norm.
double StroboscopicIntegrator::initial_step() {
    if (options_.initial_step > 0.0) {
        return std::min(options_.initial_step, options_.max_step);
    }
    StroboscopicField& F = *field_;
    F.evaluate(t_, Y_, k1_);
    k1_valid_ = true;
    const auto norm = [&](const Vector& v) {
        double sum = 0.0;
        for (Eigen::Index i = 0; i < Y_.size(); ++i) {
            const double sk = options_.atol + options_.rtol * std::abs(Y_[i]);
            sum += (v[i] / sk) * (v[i] / sk);
        }
        return std::sqrt(sum / static_cast<double>(std::max<Eigen::Index>(1, Y_.size())));
    };
    const double d0 = norm(Y_), d1 = norm(k1_);
    double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
    h0 = std::min({h0, options_.max_step, t_end_ - t0_});
    Ytmp_ = Y_ + h0 * k1_;
    F.evaluate(t_ + h0, Ytmp_, k2_);
    const double d2 = norm(Vector(k2_ - k1_)) / h0;
    const double d12 = std::max(d1, d2);
    const double h1 = d12 <= 1e-15 ? std::max(1e-6, h0 * 1e-3) : std::pow(0.01 / d12, 0.2);
    return std::min({100.0 * h0, h1, options_.max_step});
}

void StroboscopicIntegrator::check_step_budget() const {
    if (options_.max_steps > 0 && step_ + rejected_ >= options_.max_steps && t_ < t_end_) {
        throw NumericalFailure(FailureKind::too_many_steps, name(), t_, "",
                               std::to_string(options_.max_steps) +
                                   " macro steps taken without reaching t = " +
                                   format_number(t_end_) + "; loosen the tolerances");
    }
}

void StroboscopicIntegrator::dopri5_advance(State& s) {
    StroboscopicField& F = *field_;
    const double interval = options_.macro_step;
    for (;;) {
        bool fresh = false;
        if (!k1_valid_) {
            F.evaluate(t_, Y_, k1_);
            k1_valid_ = true;
            fresh = true;
        }
        if (options_.estimate_error && step_ >= sampled_step_) {
            sample_error(t_, fresh);
            sampled_step_ = step_ + std::max<std::size_t>(1, options_.estimate_every);
        }
        // the next stop: an output time or t_end (steps are cut to land there exactly)
        double stop = t_end_;
        if (interval > 0.0) {
            const double t_out = t0_ + static_cast<double>(next_output_) * interval;
            if (t_out < t_end_ - 1e-12 * (t_end_ - t0_)) {
                stop = t_out;
            }
        }
        double attempt = h_;
        bool lands = false;
        if (1.01 * attempt >= stop - t_) {
            attempt = stop - t_;
            lands = true;
        }
        if (!(attempt > 10.0 * std::numeric_limits<double>::epsilon() * std::abs(t_))) {
            throw NumericalFailure(FailureKind::step_size_underflow, name(), t_, "",
                                   "the macro step of the stroboscopic dopri5 became negligible");
        }
        const double err = dopri5_attempt(attempt);
        // the controller state lives here (err_previous_, rejected_last_) so that it survives
        // between advance() calls
        const double exponent = 1.0 / 5.0 - 0.75 * 0.04;
        if (std::isfinite(err) && err <= 1.0) {
            const double fac11 = std::pow(err, exponent);
            double factor = fac11 / std::pow(err_previous_, 0.04) / 0.9;
            factor = std::clamp(factor, 0.1, 5.0);
            double next = attempt / factor;
            if (rejected_last_) {
                next = std::min(next, attempt);
            }
            err_previous_ = std::max(err, 1e-4);
            rejected_last_ = false;
            Y_.swap(Y1_);
            k1_.swap(k7_); // FSAL
            t_ = lands ? stop : t_ + attempt;
            ++step_;
            if (options_.estimate_error) {
                account_step(attempt);
            }
            // constrained models: onto the manifold; k1 stays F at the unprojected point,
            // which differs by O(drift) = O(tolerance) (the micro-integration itself maps
            // both points onto the manifold)
            finish_step();
            // a step cut to land on an output keeps the proposal of the uncut one
            h_ = std::min(lands ? std::max(next, h_) : next, options_.max_step);
            if (lands && stop < t_end_) {
                ++next_output_;
            }
            check_step_budget();
            if (interval > 0.0 && !lands) {
                continue; // not an output point
            }
            output(s);
            done_ = lands && stop >= t_end_;
            return;
        }
        ++rejected_;
        rejected_last_ = true;
        h_ = std::isfinite(err) ? attempt / std::min(5.0, std::pow(err, exponent) / 0.9)
                                : attempt * 0.2;
        check_step_budget();
    }
}

} // namespace mdl::runtime::multiscale
