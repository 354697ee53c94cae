#include "runtime/multiscale/hmm.hpp"

#include "runtime/multiscale/applicability.hpp"
#include "runtime/multiscale/common_period.hpp"
#include "runtime/multiscale/micro_verlet.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace mdl::runtime::multiscale {

std::string_view to_string(HmmAlgorithm algorithm) {
    return algorithm == HmmAlgorithm::synchronous ? "sync" : "async";
}

std::string_view to_string(HmmMacro macro) {
    switch (macro) {
    case HmmMacro::verlet:
        return "hmm";
    case HmmMacro::shake:
        return "hmm-shake";
    case HmmMacro::rattle:
        return "hmm-rattle";
    }
    return "hmm";
}

HmmAlgorithm parse_hmm_algorithm(std::string_view name) {
    if (name == "sync" || name == "synchronous") {
        return HmmAlgorithm::synchronous;
    }
    if (name == "async" || name == "asynchronous") {
        return HmmAlgorithm::asynchronous;
    }
    throw std::invalid_argument("unknown HMM algorithm '" + std::string(name) +
                                "' (expected sync or async)");
}

HmmMacro parse_hmm_method(std::string_view name) {
    if (name == "hmm") {
        return HmmMacro::verlet;
    }
    if (name == "hmm-shake") {
        return HmmMacro::shake;
    }
    if (name == "hmm-rattle") {
        return HmmMacro::rattle;
    }
    throw std::invalid_argument("unknown HMM method '" + std::string(name) +
                                "' (expected hmm, hmm-shake or hmm-rattle)");
}

namespace {

constexpr int enslaving_samples = 16; // per period of the fastest vibration

} // namespace

// ---------------------------------------------------------------------------------------
// The force estimator

struct HmmForceEstimator::Impl {
    Impl(const Model& m, const HmmOptions& o)
        : model(&m), options(o), filter(Filter::make(o.filter, o.window_periods)), gram(m),
          name(to_string(o.macro)) {
        const Eigen::Index n_pos = m.positions();
        const Applicability verdict = hmm_applicability(m, o);
        if (!verdict.applies) {
            throw MethodNotApplicable(name, verdict.reason);
        }
        const bool constrained = o.macro != HmmMacro::verlet;
        period = common_period(m, name, o.period);
        omega = period.omega;
        Vector rates(m.vibrations());
        m.phase_rates(rates);
        rates.cwiseAbs().maxCoeff(&fastest_vibration);
        fastest_rate = std::abs(rates[fastest_vibration]);
        if (!(o.macro_step > 0.0) || !(o.macro_time_scale > 0.0)) {
            throw std::invalid_argument(std::string(name) +
                                        ": the macro step and T_macro must be positive");
        }
        // micro steps per period of the fastest vibration, so per common period times its
        // multiple (one vibration: per_period)
        double per_period = static_cast<double>(o.micro_steps_per_period);
        if (o.micro_steps_per_period == 0) {
            per_period = std::round(o.macro_time_scale / o.macro_step);
        }
        resolved_per_period = static_cast<std::size_t>(std::max(1.0, per_period));
        per_period *= static_cast<double>(period.fastest);
        slow_time = m.time_dependent();
        from_macro_velocity = m.velocity_dependent();
        // Algorithm 2 starts at the joint phase 0 when that lies on the vibrations' orbit: there
        // an even force gives an even micro-solution (applicability.hpp)
        asynchronous_start_phase(m, start_phase);
        even_at_start = o.force_even_in_phase && start_phase.isZero(0.0);
        half = o.algorithm == HmmAlgorithm::asynchronous && o.allow_half_window && even_at_start &&
               !slow_time && !from_macro_velocity;
        // the simple filter's own O(1/omega) term (filters.hpp) would remain: it keeps the
        // paper's Algorithm 2 exactly
        correct_offset = o.offset_correction && !constrained && o.filter != FilterKind::simple;

        const double eta = filter.window_periods() * period.period;
        // the spline filter: a whole, even number of steps per period (its knots at +-T/2 and
        // its exact removal of the harmonics, filters.hpp), 3/2 periods either side
        const double side_steps =
            o.filter == FilterKind::spline
                ? 3.0 * std::max(1.0, std::round(per_period / 2.0))
                : std::max(1.0, std::round(per_period * filter.window_periods() / 2.0));
        n = static_cast<std::size_t>(side_steps);
        h = eta / (2.0 * side_steps);
        if (correct_offset && from_macro_velocity && filter.window_periods() >= 2.0) {
            mean_steps =
                static_cast<std::size_t>(std::lround(2.0 * side_steps / filter.window_periods()));
        }
        const auto fastest = static_cast<std::size_t>(fastest_vibration);
        vibration_name = fastest < m.names().vibrations.size()
                             ? m.names().vibrations[fastest]
                             : "number " + std::to_string(fastest + 1);
        weights = half ? filter.half_window_weights(n) : filter.full_window_weights(n);
        filter_residual = residual_of_filter();
        if (constrained) {
            shake = std::make_unique<Shake<ModelForce>>(m, o.solver);
        } else if (MicroVerlet::supported(m)) {
            fused = std::make_unique<MicroVerlet>(m);
        } else {
            // with M(q), a = M(q)^-1 f by ModelForce's Cholesky in every kick
            verlet = std::make_unique<VelocityVerlet<ModelForce>>(
                m, ModelForce(m), o.solver, VelocityVerlet<ModelForce>::MassMatrix::solve);
        }
        start = m.zero_state();
        s = start;
        a = Vector::Zero(n_pos);
        acc = a;
        sum = a;
        dv = a;
        dx = a;
        mean_q = a;
        mean_v = a;
        v_half = a;
        v_half_next = a;
        v_forward = a;
        v_backward = a;
        tmp = a;
        samples = enslaving_samples * static_cast<int>(period.fastest);
        harmonics = samples / 2 - 1;
        ck.assign(static_cast<std::size_t>(harmonics) + 1, Vector::Zero(n_pos));
        sk = ck;
        theta = Vector::Zero(m.vibrations());
        phase_base = theta;
        kappa = Vector::Zero(m.constraints());
        lambda = kappa;
        G = Matrix::Zero(m.constraints(), n_pos);
    }

    ModelForce& force() { return shake ? shake->force() : verlet->force(); }

    // Micro time tau from 0 at phases theta0 + omega tau; the model's explicit time is
    // slow_t + tau.
    void set_phase_origin(const Vector& theta0, double slow_t) {
        if (fused) {
            fused->set_phase_origin(0.0, theta0, slow_t);
        } else {
            force().set_phase_origin(0.0, theta0, slow_t);
        }
    }

    std::size_t weight_index(std::size_t k, double direction) const {
        if (half) {
            return k;
        }
        return direction > 0.0 ? n + k : n - k;
    }

    // acc <- a + M^-1 G(q)^T lambda
    void add_constraint_force(const Vector& q, const Vector& multipliers) {
        model->constraint_jacobian(q, G);
        tmp.noalias() = G.transpose() * multipliers;
        acc += model->inverse_mass().cwiseProduct(tmp);
    }

    // The micro-integration of velocity-independent forces: the fused loop (micro_verlet.hpp),
    // the filter's sum accumulated as the steps go.
    void sweep_fused() {
        fused->start(start.t, start.q, start.v);
        const auto n_pos = static_cast<std::size_t>(start.q.size());
        double* total = sum.data();
        const double w0 = weights[weight_index(0, 1.0)];
        const double* a0 = fused->start_acceleration();
        for (std::size_t i = 0; i < n_pos; ++i) {
            total[i] += w0 * a0[i];
        }
        if (half) {
            fused->sweep(h, n, [&](std::size_t k, const double*, const double*, const double* a_k) {
                const double w = weights[k];
                for (std::size_t i = 0; i < n_pos; ++i) {
                    total[i] += w * a_k[i];
                }
            });
            micro += n;
            return;
        }
        fused->sweep_both(
            h, n,
            [&](std::size_t k, double direction, const double*, const double*, const double* a_k) {
                const double w = weights[weight_index(k, direction)];
                for (std::size_t i = 0; i < n_pos; ++i) {
                    total[i] += w * a_k[i];
                }
            });
        micro += 2 * n;
    }

    // The micro-integration of velocity-dependent forces (VelocityVerlet's general partitioned
    // form). The filtered samples are the symmetric accelerations at q_k,
    // (v_{k+1/2} - v_{k-1/2})/h = (a(q_k, v_{k-1/2}) + a(q_k, v_{k+1/2}))/2, second order in h;
    // Verlet's a(q_k, v_{k-1/2}) alone would bias the average by O(h) (Lagrange's velocity
    // terms, dampers). The window's end point keeps the one-sided sample. Along the way, the
    // micro-solution's averaged position and velocity (mean_q, mean_v: period_mean()).
    // Returns v_{1/2} of the direction (the centre's symmetric sample needs both).
    Vector& sweep_unconstrained(double direction, Vector& first_half_velocity) {
        s = start;
        const double step = direction * h;
        for (std::size_t k = 1; k <= n; ++k) {
            verlet->step(s, step);
            // v_{k-1/2} along the direction: s.v = v_{k-1/2} + step/2 a(q_k, v_{k-1/2})
            v_half_next = s.v - (0.5 * step) * verlet->acceleration();
            if (k == 1) {
                first_half_velocity = v_half_next;
            } else {
                sum += (weights[weight_index(k - 1, direction)] / step) * (v_half_next - v_half);
            }
            if (k == n) {
                sum += weights[weight_index(n, direction)] * verlet->acceleration();
            }
            v_half.swap(v_half_next);
            add_to_period_means(k, s);
        }
        micro += n;
        return first_half_velocity;
    }

    // The averaged state of a micro-solution, to O(1/omega^2): its position's mean over the
    // central period (box weights), its velocity's mean over the central two periods with hat
    // weights (the box mean of v is the derivative of a moving mean, which keeps an O(1/omega)
    // oscillation; the hat mean is that of a twice-smoothed one). Needs a window of two periods
    // or more, i.e. mean_steps = steps per period <= n.
    void add_to_period_means(std::size_t k, const State& x) {
        if (mean_steps == 0 || k > mean_steps) {
            return;
        }
        const double N = static_cast<double>(mean_steps);
        const double kk = static_cast<double>(k);
        if (2 * k <= mean_steps) {
            mean_q += ((2 * k == mean_steps ? 0.5 : 1.0) / N) * x.q;
        }
        mean_v += ((1.0 - kk / N) / N) * x.v;
    }

    // One micro-integration of a velocity-dependent force from `start`, filtered into sum.
    void micro_velocity_dependent() {
        sum.setZero();
        const double N = static_cast<double>(mean_steps);
        mean_q = start.q / std::max(N, 1.0);
        mean_v = start.v / std::max(N, 1.0);
        sweep_unconstrained(1.0, v_forward);
        sweep_unconstrained(-1.0, v_backward);
        sum += (weights[weight_index(0, 1.0)] / h) * (v_forward - v_backward);
    }

    void sweep_constrained(double direction, double center_share) {
        s = start;
        for (std::size_t k = 0; k < n; ++k) {
            tmp_q = s.q;
            shake->step(s, direction * h);
            // after the step from t_k: a(t_k, q_k) and Lambda_k, the total micro-force at q_k
            acc = shake->acceleration();
            add_constraint_force(tmp_q, shake->multipliers());
            const double share = k == 0 ? center_share : 1.0;
            sum += (share * weights[weight_index(k, direction)]) * acc;
        }
        micro += n;
        // the end point: SHAKE's Lambda_n would need one more step; the multipliers of
        // consistent accelerations at (q_n, v_n) agree with it to O(h^2)
        force().acceleration(s.t, s.q, s.v, s.x, acc);
        model->constraint_jacobian(s.q, G);
        gram.factorize(G, s.t, name);
        model->curvature(s.q, s.v, kappa);
        acceleration_multipliers(gram, G, acc, kappa, lambda);
        add_constraint_force(s.q, lambda);
        sum += weights[weight_index(n, direction)] * acc;
    }

    // What the filter leaves of a unit oscillation cos(k omega_0 t) on the micro grid, the
    // largest over the harmonics k = 1 .. 2 K (K the fastest vibration's multiple). Simple
    // filtering removes it to round-off; the exponential kernel leaves |K^(k eta)|, which
    // decays fast with the window's length eta but not fast enough for short windows at large
    // omega (3.6e-5 for 10 periods, 4.4e-11 for 40: times an O(omega) force).
    double residual_of_filter() const {
        double worst = 0.0;
        for (long k = 1; k <= 2 * period.fastest; ++k) {
            double total = 0.0;
            const double rate = static_cast<double>(k) * omega * h;
            for (std::size_t j = 0; j <= n; ++j) {
                const double c = std::cos(rate * static_cast<double>(j));
                total += half ? weights[j] * c
                              : (j == 0 ? weights[n] : weights[n + j] + weights[n - j]) * c;
            }
            worst = std::max(worst, std::abs(total));
        }
        return worst;
    }

    // Refuses a filter that would leave more than 3e-3 of the acceleration's scale (1 + the
    // mean |a| over the phase) of the fast force unfiltered: the residual times the amplitude
    // of the oscillatory acceleration at the first estimate's (t, X, V), from the enslaving
    // samples' Fourier coefficients. Calibrated on both sides: Table 2.2's 40-period kernel at
    // omega = 1e8 leaves 0.042 of a mean 23.5 (1.8e-3; the paper's and our error there is
    // 5e-3), while 10-period kernels at omega = 1e4 on the cross-validation's random models
    // left 1e-2 and more, and erred by up to 3 times the test's tolerance (at omega = 1e6 on
    // models/forced_duffing.mdl: 73 of 2, x(10) = 7.06 for 0.41). Filters whose residual is
    // round-off (simple filtering) need no check and pay no samples.
    void require_filtered(double t, const Vector& X, const Vector& V) {
        filter_checked = true;
        if (filter_residual <= 1e-13) {
            return;
        }
        enslaved_oscillation(t, X, V, start_phase);
        double amplitude = 0.0;
        for (int k = 1; k <= harmonics; ++k) {
            const auto i = static_cast<std::size_t>(k);
            amplitude += (2.0 / samples) * std::sqrt(ck[i].squaredNorm() + sk[i].squaredNorm());
        }
        const double mean = ck[0].norm() / samples;
        const double unfiltered = filter_residual * amplitude;
        if (unfiltered > 3e-3 * (1.0 + mean)) {
            throw NumericalFailure(
                FailureKind::unfiltered_fast_force, name, t,
                "vibration '" + vibration_name + "' (omega = " + format_number(fastest_rate) +
                    " rad/s)",
                "the " + std::string(to_string(filter.kind())) + " filter over " +
                    format_number(filter.window_periods()) + " fast periods leaves " +
                    format_number(filter_residual) +
                    " of an oscillation, and the fast acceleration's amplitude is " +
                    format_number(amplitude) + ": an error of about " + format_number(unfiltered) +
                    " in the averaged acceleration (of size " + format_number(mean) +
                    "). Use a longer window (--window 40 or more) or --filter simple");
        }
    }

    // The acceleration at (t, X, V) and phases theta: with constraints, the consistent one
    // (M^-1 (f + G^T lambda) with G a + curvature = 0), whose oscillatory part is tangent.
    void sample_acceleration(double t, const Vector& X, const Vector& V) {
        model->acceleration(t, X, V, start.x, theta, a);
        ++extra_evaluations;
        if (model->constrained()) {
            model->constraint_jacobian(X, G);
            gram.factorize(G, t, name);
            model->curvature(X, V, kappa);
            acceleration_multipliers(gram, G, a, kappa, lambda);
            acc = a;
            add_constraint_force(X, lambda);
            a = acc;
        }
    }

    // The oscillation enslaved to (t, X, V) at the phases `base` (eq. 2.10, (3.4)-(3.8)): from
    // the oscillatory part of a(X, theta) along the vibrations' orbit theta_i = base_i + k_i phi,
    // phi over one common period, a(phi) ~ mean + sum_k A_k cos(k phi) + B_k sin(k phi), its
    // zero-mean antiderivative dv and second antiderivative dx at phi = 0 (the current phase):
    //   dv = sum_k (A_k sin - B_k cos)(k phi)/(k omega_0) = -sum_k B_k/(k omega_0),
    //   dx = -sum_k (A_k cos + B_k sin)(k phi)/(k omega_0)^2 = -sum_k A_k/(k omega_0)^2.
    // The true motion is x = X + dx, v = V + dv up to O(1/omega^2) and O(1/omega): dx is the
    // leading term of A = M^-1 s/omega of eq. (3.6), with M(q) too (the O(omega) part of the
    // acceleration is M(X)^-1 omega f1(X, theta); Lagrange's velocity terms are O(1)).
    void enslaved_oscillation(double t, const Vector& X, const Vector& V, const Vector& base) {
        for (Vector& c : ck) {
            c.setZero();
        }
        for (Vector& c : sk) {
            c.setZero();
        }
        for (int j = 0; j < samples; ++j) {
            const double phi = 2.0 * std::numbers::pi * j / samples;
            for (Eigen::Index i = 0; i < theta.size(); ++i) {
                theta[i] = base[i] +
                           static_cast<double>(period.multiples[static_cast<std::size_t>(i)]) * phi;
            }
            sample_acceleration(t, X, V);
            ck[0] += a; // the mean, for require_filtered()
            for (int k = 1; k <= harmonics; ++k) {
                ck[static_cast<std::size_t>(k)] += std::cos(k * phi) * a;
                sk[static_cast<std::size_t>(k)] += std::sin(k * phi) * a;
            }
        }
        dv.setZero();
        dx.setZero();
        for (int k = 1; k <= harmonics; ++k) {
            const double rate = k * omega;
            dv -= (2.0 / samples) * sk[static_cast<std::size_t>(k)] / rate;
            dx -= (2.0 / samples) * ck[static_cast<std::size_t>(k)] / (rate * rate);
        }
        theta = base;
    }

    // The averaged state (X, V) of a true state (t, x, v): v minus its enslaved velocity
    // oscillation at the model's phases theta(t), and with the offset correction x minus its
    // enslaved displacement (the macro initial value).
    void averaged_state(double t, const Vector& x, const Vector& v, Vector& X, Vector& V) {
        model->phases(t, phase_base);
        bool at_even_point = options.force_even_in_phase;
        for (Eigen::Index i = 0; i < phase_base.size(); ++i) {
            at_even_point = at_even_point &&
                            std::abs(std::remainder(phase_base[i], 2.0 * std::numbers::pi)) == 0.0;
        }
        X = x;
        if (at_even_point && !correct_offset) {
            V = v; // the oscillation of an even force's velocity is odd: zero at phase 0
            return;
        }
        enslaved_oscillation(t, x, v, phase_base);
        V = at_even_point ? v : Vector(v - dv);
        if (correct_offset) {
            X -= dx;
        }
    }

    // The averaging error's sources at (t, X, V): the fast displacement's amplitude and the
    // unfiltered acceleration, from the enslaving samples along the orbit from Algorithm 2's
    // start phase (the synchronous one's at t), counted apart from the method's evaluations.
    void averaging_error(double t, const Vector& X, const Vector& V, double& displacement,
                         double& unfiltered) {
        const std::size_t before = extra_evaluations;
        Vector base = start_phase;
        if (options.algorithm == HmmAlgorithm::synchronous) {
            model->phases(t, base);
        }
        enslaved_oscillation(t, X, V, base);
        displacement = 0.0;
        double amplitude = 0.0;
        for (int k = 1; k <= harmonics; ++k) {
            const auto i = static_cast<std::size_t>(k);
            const double a_k = (2.0 / samples) * std::sqrt(ck[i].cwiseAbs2().maxCoeff() +
                                                           sk[i].cwiseAbs2().maxCoeff());
            amplitude += a_k;
            displacement += a_k / ((k * omega) * (k * omega));
        }
        unfiltered = filter_residual * amplitude;
        estimate_evaluations += extra_evaluations - before;
        extra_evaluations = before;
    }

    void estimate(double t, const Vector& X, const Vector& V, Vector& F) {
        if (!filter_checked) {
            require_filtered(t, X, V);
        }
        start.q = X;
        if (options.algorithm == HmmAlgorithm::asynchronous) {
            // Algorithm 2: the phases start at the orbit's phase 0 whatever t_n; slow time
            // does not (the force's explicit t is t_n + tau). Velocity-independent forces start
            // from rest (eq. 2.14); velocity-dependent ones from the macro velocity plus its
            // enslaved oscillation, so that the micro-solution is the one with averaged
            // velocity V. With the offset correction, from X plus its enslaved displacement,
            // so that the micro-solution oscillates about X.
            if (from_macro_velocity || correct_offset) {
                enslaved_oscillation(t, X, V, start_phase);
            }
            if (from_macro_velocity) {
                start.v = V + dv;
            } else {
                start.v.setZero();
            }
        } else {
            model->phases(t, phase_base);
            enslaved_oscillation(t, X, V, phase_base); // theta = the model's phases at t
            start.v = V + dv;
        }
        if (correct_offset) {
            start.q += dx;
        }
        // micro time tau measured from 0: phases theta_start + omega tau with tau small keep
        // their precision when omega t_n is large (omega = 1e8); the explicit slow time is
        // t_n + tau (Algorithm 2's freedom to restart the phase does not apply to it)
        start.t = 0.0;
        set_phase_origin(options.algorithm == HmmAlgorithm::asynchronous ? start_phase : phase_base,
                         slow_time ? t : 0.0);
        sum.setZero();
        if (fused) {
            sweep_fused();
        } else if (!shake) {
            micro_velocity_dependent();
            if (mean_steps > 0) {
                // Newton-free correction of the start: shift it by the distance between (X, V)
                // and the micro-solution's averaged state, and integrate again. The enslaved
                // start is O(1/omega) off in velocity (the O(1) forces along the oscillation,
                // the displacement's drift with V); the second micro-solution's averaged
                // state is (X, V) to O(1/omega^2), so is the averaged force.
                start.q += X - mean_q;
                start.v += V - mean_v;
                micro_velocity_dependent();
            }
        } else {
            sweep_constrained(1.0, half ? 1.0 : 0.5);
            if (!half) {
                sweep_constrained(-1.0, 0.5);
            }
        }
        F = sum;
        ++estimates;
    }

    const Model* model;
    HmmOptions options;
    Filter filter;
    ConstraintGram gram;
    std::string_view name;
    CommonPeriod period;
    double omega = 0.0, h = 0.0; // the common period's rate omega_0; the micro step
    Eigen::Index fastest_vibration = 0;
    double fastest_rate = 0.0;
    std::string vibration_name; // the fastest vibration's
    std::size_t n = 0;
    bool slow_time = false;           // the force depends on t besides the phases
    bool from_macro_velocity = false; // velocity-dependent: micro-runs start from V
    bool even_at_start = false;
    bool half = false;
    bool correct_offset = false;  // HmmOptions::offset_correction, unconstrained models
    double filter_residual = 0.0; // residual_of_filter()
    bool filter_checked = false;  // require_filtered() at the first estimate
    Vector start_phase;           // Algorithm 2's phases at the start of every micro-integration
    std::vector<double> weights;
    int samples = enslaving_samples, harmonics = enslaving_samples / 2 - 1;
    std::vector<Vector> ck, sk; // Fourier coefficients of the enslaving samples
    std::unique_ptr<VelocityVerlet<ModelForce>> verlet;
    std::unique_ptr<Shake<ModelForce>> shake;
    std::unique_ptr<MicroVerlet> fused; // velocity-independent unconstrained forces
    State start, s;
    // micro steps per common period for period_means (0: no second micro-integration of
    // velocity-dependent forces: the offset correction is off or the window is shorter than
    // two periods)
    std::size_t mean_steps = 0;
    Vector mean_q, mean_v, v_half, v_half_next, v_forward, v_backward;
    Vector a, acc, sum, dv, dx, tmp, tmp_q, theta, phase_base, kappa, lambda;
    Matrix G;
    std::size_t micro = 0, extra_evaluations = 0, estimates = 0;
    std::size_t estimate_evaluations = 0; // averaging_error()'s samples
    std::size_t resolved_per_period = 0;  // micro steps per period of the fastest vibration
};

HmmForceEstimator::HmmForceEstimator(const Model& model, const HmmOptions& options)
    : impl_(std::make_unique<Impl>(model, options)) {}
HmmForceEstimator::~HmmForceEstimator() = default;
HmmForceEstimator::HmmForceEstimator(HmmForceEstimator&&) noexcept = default;

void HmmForceEstimator::estimate(double t, const Vector& X, const Vector& V, Vector& F) {
    require_resolved(t);
    impl_->estimate(t, X, V, F);
}

void HmmForceEstimator::require_resolved(double t) const {
    const double omega_h = impl_->fastest_rate * impl_->h;
    if (omega_h > max_omega_h) {
        throw NumericalFailure(
            FailureKind::unresolved_fast_scale, impl_->name, t,
            "vibration '" + impl_->vibration_name +
                "' (omega = " + format_number(impl_->fastest_rate) + " rad/s)",
            "the micro step h = " + format_number(impl_->h) +
                " gives omega h = " + format_number(omega_h) + " > " + format_number(max_omega_h) +
                ", fewer than 2 pi micro steps per fast period; the micro-integration does not "
                "follow the vibration. Use --micro-steps-per-period 7 or more, or a smaller "
                "macro step H (the default h is (2 pi/omega) H/T_macro)");
    }
}
double HmmForceEstimator::omega() const {
    return impl_->omega;
}
double HmmForceEstimator::micro_step() const {
    return impl_->h;
}
std::size_t HmmForceEstimator::steps_per_window() const {
    return impl_->half ? impl_->n : 2 * impl_->n;
}
bool HmmForceEstimator::half_window() const {
    return impl_->half;
}
std::size_t HmmForceEstimator::micro_steps() const {
    return impl_->micro;
}
std::size_t HmmForceEstimator::force_evaluations() const {
    const std::size_t micro =
        impl_->fused ? impl_->fused->evaluations() : impl_->force().evaluations();
    return micro + impl_->extra_evaluations;
}
void HmmForceEstimator::averaged_state(double t, const Vector& x, const Vector& v, Vector& X,
                                       Vector& V) {
    impl_->averaged_state(t, x, v, X, V);
}
std::size_t HmmForceEstimator::estimates() const {
    return impl_->estimates;
}
void HmmForceEstimator::averaging_error(double t, const Vector& X, const Vector& V,
                                        double& displacement, double& unfiltered) {
    impl_->averaging_error(t, X, V, displacement, unfiltered);
}
std::size_t HmmForceEstimator::estimate_evaluations() const {
    return impl_->estimate_evaluations;
}
std::size_t HmmForceEstimator::steps_per_period() const {
    return impl_->resolved_per_period;
}

// ---------------------------------------------------------------------------------------
// The macro-integrator

HmmIntegrator::HmmIntegrator(const Model& model, const HmmOptions& options)
    : model_(&model), options_(options), estimator_(model, options), gram_(model), newton_(model) {
    const Eigen::Index n = model.positions();
    F_ = Vector::Zero(n);
    V_half_ = F_;
    X_next_ = F_;
    V_next_half_ = F_;
    tmp_ = F_;
    lambda_ = Vector::Zero(model.constraints());
    kappa_ = lambda_;
    G_ = Matrix::Zero(model.constraints(), n);
    D_ = Matrix::Zero(n, model.constraints());
}

HmmIntegrator::~HmmIntegrator() = default;

void HmmIntegrator::start(State& s) {
    require_state_shape(*model_, s, name());
    H_ = options_.macro_step;
    t0_ = s.t;
    const double count = (options_.t_end - t0_) / H_;
    const double rounded = std::round(count);
    if (!(rounded >= 1.0) || std::abs(count - rounded) > 1e-9 * std::max(1.0, count)) {
        throw std::invalid_argument(std::string(name()) +
                                    ": (t_end - t0)/H = " + format_number(count) +
                                    " must be a positive whole number of macro steps");
    }
    steps_ = static_cast<std::size_t>(rounded);
    step_ = 0;
    s.lambda.setZero();
    // the macro state starts from the averaged state of the given true state
    estimator_.averaged_state(s.t, s.q, s.v, X_next_, tmp_);
    s.q = X_next_;
    s.v = tmp_;
    if (options_.estimate_error) {
        HmmOptions fine = options_;
        fine.micro_steps_per_period = 2 * estimator_.steps_per_period();
        fine.estimate_error = false;
        fine_ = std::make_unique<HmmForceEstimator>(*model_, fine);
        F_fine_ = F_;
        error_ = ErrorAccumulator{};
        history_ = 0;
        linearized_ = options_.macro == HmmMacro::verlet;
        if (linearized_) {
            HmmOptions same = options_;
            same.estimate_error = false;
            jacobian_estimator_ = std::make_unique<HmmForceEstimator>(*model_, same);
        }
        micro_rate_ = LinearizedErrorPropagation(model_->positions());
        averaging_rate_ = LinearizedErrorPropagation(model_->positions());
        double displacement = 0.0, unfiltered = 0.0;
        estimator_.averaging_error(s.t, s.q, s.v, displacement, unfiltered);
        error_.add_position(ErrorAccumulator::averaging, displacement);
        error_.set_rates(ErrorAccumulator::averaging, 0.0, unfiltered);
        displacement_ = displacement;
        if (linearized_) {
            averaging_rate_.set_rate(unfiltered);
        }
        X1_ = s.q;
        history_ = 1;
    }
    sample_due_ = options_.estimate_error;
    estimate(s.t, s.q, s.v);
    if (options_.macro == HmmMacro::shake) {
        // V_{1/2} = V_0 + H/2 (F_0 + M^-1 G_0^T Lambda_0), g(X_1) = 0
        shake_solve(s.t, s.q, s.v, F_, true);
        s.lambda = lambda_;
    } else if (options_.macro == HmmMacro::rattle) {
        // the multipliers of consistent accelerations at t0, for output
        model_->constraint_jacobian(s.q, G_);
        gram_.factorize(G_, s.t, name());
        model_->curvature(s.q, s.v, kappa_);
        acceleration_multipliers(gram_, G_, F_, kappa_, lambda_);
        s.lambda = lambda_;
    }
}

// SHAKE's position stage from X with the previous half-step velocity (or V_0 at the start):
// X_next_ and V_next_half_, Lambda in lambda_.
void HmmIntegrator::shake_solve(double t, const Vector& X, const Vector& V, const Vector& F,
                                bool first) {
    const double c = first ? 0.5 * H_ * H_ : H_ * H_;
    model_->constraint_jacobian(X, G_);
    gram_.factorize(G_, t, name());
    model_->curvature(X, V, kappa_);
    acceleration_multipliers(gram_, G_, F, kappa_, lambda_); // Newton's starting guess
    scaled_constraint_directions(*model_, G_, c, D_);
    tmp_ = X + H_ * V + c * F;
    newton_.solve(tmp_, D_, options_.solver, t + H_, H_, name(), lambda_, X_next_);
    V_next_half_ = (X_next_ - X) / H_;
}

void HmmIntegrator::verlet_advance(State& s, bool last) {
    V_half_ = s.v + (0.5 * H_) * F_; // P_{n+1/2}
    s.q += H_ * V_half_;
    s.t = t0_ + static_cast<double>(step_ + 1) * H_;
    if (last && !options_.final_velocity) {
        s.v = V_half_;
        return;
    }
    // the synchronous prediction P~_{n+1} = P_{n+1/2} + H/2 F_n
    s.v = V_half_ + (0.5 * H_) * F_;
    estimate(s.t, s.q, s.v);
    s.v = V_half_ + (0.5 * H_) * F_;
}

void HmmIntegrator::shake_advance(State& s, bool last) {
    // pending: X_{n+1} = X_next_, V_{n+1/2} = V_next_half_, Lambda_n = lambda_
    V_half_ = V_next_half_;
    s.q = X_next_;
    s.t = t0_ + static_cast<double>(step_ + 1) * H_;
    if (last && !options_.final_velocity) {
        s.v = V_half_;
        s.lambda = lambda_;
        return;
    }
    estimate(s.t, s.q, V_half_);
    shake_solve(s.t, s.q, V_half_, F_, false); // Lambda_{n+1}, X_{n+2}, V_{n+3/2}
    s.v = 0.5 * (V_half_ + V_next_half_);
    s.lambda = lambda_;
}

void HmmIntegrator::rattle_advance(State& s) {
    // position stage from (X_n, V_n), F_n
    shake_solve(s.t, s.q, s.v, F_, true);
    V_half_ = V_next_half_;
    s.q = X_next_;
    s.t = t0_ + static_cast<double>(step_ + 1) * H_;
    estimate(s.t, s.q, V_half_);
    // velocity stage: V_{n+1} = V_{n+1/2} + H/2 (F_{n+1} + M^-1 G^T mu), G V_{n+1} = 0
    model_->constraint_jacobian(s.q, G_);
    gram_.factorize(G_, s.t, name());
    V_half_ += (0.5 * H_) * F_;
    lambda_.noalias() = (-2.0 / H_) * (G_ * V_half_);
    gram_.solve_in_place(lambda_);
    tmp_.noalias() = G_.transpose() * lambda_;
    s.v = V_half_ + (0.5 * H_) * model_->inverse_mass().cwiseProduct(tmp_);
    s.lambda = lambda_;
}

void HmmIntegrator::estimate(double t, const Vector& X, const Vector& V) {
    estimator_.estimate(t, X, V, F_);
    if (!sample_due_) {
        return;
    }
    sample_due_ = false;
    // the same force with h/2: velocity Verlet (and SHAKE) micro-steps are of order 2
    fine_->estimate(t, X, V, F_fine_);
    const double error = (F_ - F_fine_).cwiseAbs().maxCoeff() * richardson_factor(2);
    error_.set_rates(ErrorAccumulator::micro, 0.0, error);
    if (linearized_) {
        slow_jacobians(t, X, V);
        micro_rate_.set_rate(error);
    }
}

void HmmIntegrator::slow_jacobians(double t, const Vector& X, const Vector& V) {
    const Eigen::Index n = X.size();
    J_.resize(n, n);
    C_.resize(model_->velocity_dependent() ? n : 0, model_->velocity_dependent() ? n : 0);
    // steps of 1e-5 of the motion's scale: well above the averaged force's rounding noise
    // (the fast force is O(omega) times larger than its average), well below its nonlinearity
    const double dx = 1e-5 * std::max(1.0, X.cwiseAbs().maxCoeff());
    const double dv = 1e-5 * std::max(1.0, V.cwiseAbs().maxCoeff());
    for (Eigen::Index j = 0; j < n; ++j) {
        shifted_ = X;
        shifted_[j] += dx;
        jacobian_estimator_->estimate(t, shifted_, V, F_shifted_);
        J_.col(j) = (F_shifted_ - F_) / dx;
        if (C_.size() > 0) {
            shifted_ = V;
            shifted_[j] += dv;
            jacobian_estimator_->estimate(t, X, shifted_, F_shifted_);
            C_.col(j) = (F_shifted_ - F_) / dv;
        }
    }
    micro_rate_.set_jacobians(J_, C_);
    averaging_rate_.set_jacobians(J_, C_);
}

// After the step to s: every part propagated over H; the macro part by the local error of the
// step, |X_{n+1} - 3 X_n + 3 X_{n-1} - X_{n-2}|/6 = H^2 |A_n - A_{n-1}|/6 for the total
// accelerations A (the difference between two steps of H and one of 2H is six times a step's
// local error in the positions, O(H^3)); the first two steps take the first such value.
void HmmIntegrator::account_step(const State& s) {
    error_.advance(H_);
    micro_rate_.advance(H_);
    averaging_rate_.advance(H_);
    X4_.swap(X3_);
    X3_.swap(X2_);
    X2_.swap(X1_);
    X1_ = s.q;
    ++history_;
    if (history_ >= 4) {
        const double local = (X1_ - 3.0 * X2_ + 3.0 * X3_ - X4_).cwiseAbs().maxCoeff() / 6.0;
        error_.add_position(ErrorAccumulator::macro, history_ == 4 ? 3.0 * local : local);
    }
}

void HmmIntegrator::advance(State& s) {
    if (done()) {
        return;
    }
    if (options_.estimate_error && options_.estimate_every > 0 &&
        (step_ + 1) % options_.estimate_every == 0) {
        sample_due_ = true;
    }
    const bool last = step_ + 1 == steps_;
    switch (options_.macro) {
    case HmmMacro::verlet:
        verlet_advance(s, last);
        break;
    case HmmMacro::shake:
        shake_advance(s, last);
        break;
    case HmmMacro::rattle:
        rattle_advance(s);
        break;
    }
    ++step_;
    sample_due_ = false;
    if (options_.estimate_error) {
        account_step(s);
    }
}

ErrorParts HmmIntegrator::error() const {
    if (!options_.estimate_error) {
        return {};
    }
    ErrorParts parts = error_.parts();
    if (linearized_) {
        // the smaller of the two propagations: the linearized one where the averaged motion
        // keeps errors bounded; free motion where the linearized one, which adds the groups
        // and their worst directions in absolute value, is the larger (unstable motions:
        // there neither is safe, docs/methods.md)
        parts.micro = std::min(parts.micro, micro_rate_.position());
        parts.averaging = std::min(parts.averaging, displacement_ + averaging_rate_.position());
    }
    parts.micro_steps = (fine_ ? fine_->micro_steps() : 0) +
                        (jacobian_estimator_ ? jacobian_estimator_->micro_steps() : 0);
    parts.force_evaluations = (fine_ ? fine_->force_evaluations() : 0) +
                              (jacobian_estimator_ ? jacobian_estimator_->force_evaluations() : 0) +
                              estimator_.estimate_evaluations();
    return parts;
}

HmmStats HmmIntegrator::stats() const {
    HmmStats st;
    st.macro_steps = step_;
    st.force_estimates = estimator_.estimates();
    st.micro_steps = estimator_.micro_steps();
    st.force_evaluations = estimator_.force_evaluations();
    st.micro_steps_per_window = estimator_.steps_per_window();
    st.micro_step = estimator_.micro_step();
    st.half_window = estimator_.half_window();
    st.micro_steps_per_period = estimator_.steps_per_period();
    st.error = error();
    return st;
}

} // namespace mdl::runtime::multiscale
