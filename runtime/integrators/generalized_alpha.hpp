// The generalized-alpha method of Chung & Hulbert (1993), as written in
// mechanical-systems-newmark-galpha, Sect. 21.2:
//
//   M a_{n+1-alpha_m} = F(t_{n+1-alpha_f}, x_{n+1-alpha_f}, v_{n+1-alpha_f})
//   x_{n+1} = x_n + h v_n + h^2 ((1/2 - beta) a_n + beta a_{n+1})
//   v_{n+1} = v_n + h ((1 - gamma) a_n + gamma a_{n+1})
//   x_{n+1-alpha_f} = (1 - alpha_f) x_{n+1} + alpha_f x_n     (likewise v and t)
//   a_{n+1-alpha_m} = (1 - alpha_m) a_{n+1} + alpha_m a_n
//
// with the parameters from the spectral radius at infinity rho_inf (Sect. 21.2):
//   alpha_m = (2 rho_inf - 1)/(rho_inf + 1), alpha_f = rho_inf/(rho_inf + 1),
//   beta = (1 - alpha_m + alpha_f)^2 / 4,    gamma = 1/2 - alpha_m + alpha_f.
// Second order; modes with omega h >> 1 are damped by the factor rho_inf per step.
// alpha_m = alpha_f = 0, beta = 1/4, gamma = 1/2 is Newmark's average acceleration (Sect.
// 21.1, newmark.hpp). The unknown a_{n+1} (n values, "the dimension of the nonlinear system is
// the number of state variables") is found by Newton's method with the Jacobian
//   (1 - alpha_m) I - (1 - alpha_f) (beta h^2 M^-1 df/dq + gamma h M^-1 df/dv).
// On unconstrained models by default a modified (simplified) Newton iteration: the matrix
// is factorized at one iterate and kept over the following iterations and steps of the same
// h while each correction is at most slow_rate times the one before (the contraction rate of
// Hairer & Wanner, Solving Ordinary Differential Equations II, Sect. IV.8), refreshed at the
// current iterate when it is not; a step where it still fails restarts with Newton's
// method. The residual test is the same, so the converged accelerations meet the same
// tolerance (ImplicitOptions::jacobian_reuse = false: Newton's method at every iterate).
//
// Constraints (Sect. 21.3: the mass matrix extended by zeros for the multipliers):
//   M a_{n+1-alpha_m} = F(x_{n+1-alpha_f}, ...) + G(x_{n+1-alpha_f})^T lambda_{n+1},
//   g(t_{n+1}, x_{n+1}) = 0                 (rheonomic constraints at t_{n+1}, G at t_alpha),
// Newton on (a_{n+1}, lambda_{n+1}) together (the saddle-point matrix, the derivative of
// G^T lambda left out), the constraint rows scaled by 1/(beta h^2). The start acceleration
// is consistent with the constraints (acceleration-level multipliers, curvature kernel).
// With project_velocities the new velocity is then projected onto G(x_{n+1}) v = 0 in the
// M metric, so velocities satisfy the hidden constraint to round-off too.
//
// A mass matrix M(q) from a kinetic energy: the equation is M(x_{n+1-alpha_f}) a_{n+1-alpha_m}
// = F + G^T lambda, in the form above with M^-1 of the force's evaluation (Cholesky,
// ModelForce) and M^-1 G^T from a factorization of M at the same point (the constraint
// directions, the Gram matrix of the start, the velocity projection in the M(x_{n+1})
// metric). Newton's matrix leaves out -M^-1 (dM/dq) a (ModelForce::acceleration_jacobians):
// its convergence rate changes, not the converged residual.
//
// Large models (sparse_jacobians.hpp): from sparse_threshold positions on, an unconstrained
// model with a constant diagonal mass matrix assembles Newton's matrix from the structural
// nonzeros of df/dq and df/dv (the compiler's values kernels) into a sparse matrix of fixed
// pattern, factorized by KLU (SparseLuSolver; the pattern analysed once per stepper). The
// same iteration and policy, the same matrix entries (each the same sum in the same order),
// so the trajectories equal the dense path's to round-off
// (tests/api/sparse_linear_algebra_test.cpp).
#pragma once

#include "runtime/integrators/lagrange_multipliers.hpp"
#include "runtime/integrators/stepper_support.hpp"
#include "runtime/model_force.hpp"
#include "runtime/sparse_jacobians.hpp"

#include <Eigen/LU>
#include <concepts>
#include <limits>
#include <string>
#include <string_view>

namespace mdl::runtime {

struct GeneralizedAlphaParameters {
    double alpha_m = 0.0;
    double alpha_f = 0.0;
    double beta = 0.25;
    double gamma = 0.5;

    // Chung–Hulbert, Sect. 21.2; rho_inf in [0, 1] (std::invalid_argument otherwise).
    static GeneralizedAlphaParameters chung_hulbert(double rho_inf);
    // Newmark's average acceleration (trapezoidal) rule, Sect. 21.1.
    static GeneralizedAlphaParameters average_acceleration();
};

struct ImplicitOptions {
    SolverOptions solver = {};
    // Constrained models: project v_{n+1} onto G(x_{n+1}) v = 0 after each step.
    bool project_velocities = true;
    // Dense or sparse Newton matrices (sparse_jacobians.hpp); automatic picks by size.
    LinearAlgebra linear_algebra = LinearAlgebra::automatic;
    // Modified Newton on unconstrained models: Newton's matrix is factorized at one iterate
    // and kept over the following iterations and steps (of the same h) while the corrections
    // shrink fast, refreshed when they do not. false: Newton's method, a new Jacobian and
    // factorization at every iterate. The converged accelerations meet the same tolerance.
    bool jacobian_reuse = true;
};

template <DifferentiableAccelerationField Force = ModelForce>
class GeneralizedAlpha {
public:
    explicit GeneralizedAlpha(const Model& model, double rho_inf,
                              ImplicitOptions options = {}) requires std::same_as<Force, ModelForce>
        : GeneralizedAlpha(model, GeneralizedAlphaParameters::chung_hulbert(rho_inf),
                           ModelForce(model), options) {}
    GeneralizedAlpha(const Model& model, GeneralizedAlphaParameters parameters, Force force,
                     ImplicitOptions options = {}, std::string_view name = "galpha")
        : model_(&model), force_(std::move(force)), p_(parameters), options_(options), name_(name),
          n_(model.positions()), m_(model.constraints()),
          sparse_(sparse_available() && use_sparse_linear_algebra(model, options.linear_algebra)),
          reuse_(options.jacobian_reuse && model.constraints() == 0), a_(Vector::Zero(n_)), a1_(a_),
          x1_(a_), v1_(a_), xa_(a_), va_(a_), force_a_(a_), r_(Vector::Zero(n_ + m_)), dz_(r_),
          tmp_(a_), noise_(a_), row_q_(a_), row_v_(a_), lambda_(Vector::Zero(m_)), g1_(lambda_),
          kappa_(lambda_), A_q_(Matrix::Zero(dense_size(), dense_size())), A_v_(A_q_),
          Ga_(Matrix::Zero(m_, n_)), G1_(Ga_), W_(Matrix::Zero(n_, m_)),
          mass_(Matrix::Zero(model.mass_constant_diagonal() ? 0 : n_,
                             model.mass_constant_diagonal() ? 0 : n_)),
          S_(Eigen::MatrixXd::Zero(m_, m_)),
          K_(Eigen::MatrixXd::Zero(dense_size() + m_, dense_size() + m_)), lu_(dense_size() + m_),
          gram_(model),
          // computed once so that its status is set (a moved fresh LLT reads it uninitialised)
          llt_(Matrix::Identity(1, 1)) {
        require_no_first_order_states(model, name_);
        if (sparse_) {
            prepare_sparse();
        }
    }

    // The stepper keeps a pointer to the model, which must outlive it.
    GeneralizedAlpha(const Model&&, double, ImplicitOptions = {}) = delete;
    GeneralizedAlpha(const Model&&, GeneralizedAlphaParameters, Force, ImplicitOptions = {},
                     std::string_view = {}) = delete;

    std::string_view name() const { return name_; }
    const Model& model() const { return *model_; }
    Force& force() { return force_; }
    const GeneralizedAlphaParameters& parameters() const { return p_; }
    // The method's acceleration variable a_n (not the acceleration at t_n when alpha_m !=
    // alpha_f), and the Newton updates of the last step.
    const Vector& acceleration() const { return a_; }
    int newton_iterations() const { return iterations_; }
    // Whether Newton's matrix is sparse (sparse_jacobians.hpp).
    bool sparse() const { return sparse_; }

    void step(State& s, double h) {
        if (!memory_.continues(s)) {
            start(s);
        }
        const double beta_h2 = p_.beta * h * h;
        const double t_alpha = s.t + (1.0 - p_.alpha_f) * h;
        // Newton's matrix depends on h: a held one serves only steps of its own size.
        if (!reuse_ || h != factored_h_) {
            factored_ = false;
        }
        // Modified Newton first (where enabled); where it gives up, the step restarts from the
        // predictor with Newton's method, whose failures are reported. Newton starts without a
        // noise estimate; modified Newton keeps the held Jacobian's (16 eps |A| |x| changes as
        // slowly as the Jacobian does).
        for (int attempt = 0;; ++attempt) {
            const bool full = !reuse_ || attempt > 0;
            if (full) {
                noise_.setZero();
            }
            if (newton_solve(s, h, t_alpha, beta_h2, full)) {
                break;
            }
        }
        a_ = a1_;
        s.q = x1_;
        s.v = v1_;
        s.t += h;
        if (m_ > 0) {
            if (options_.project_velocities) {
                project_velocity(s);
            }
            s.lambda = lambda_;
        }
        memory_.remember(s);
    }

    // Jacobian evaluations (and factorizations of Newton's matrix) since construction.
    std::size_t jacobian_evaluations() const { return jacobian_evaluations_; }
    // Whether Newton's matrix is held across iterations and steps (modified Newton).
    bool jacobian_reuse() const { return reuse_; }

private:
    static constexpr bool sparse_available() {
        return requires(Force & f, double t, const Vector& q, double* out) {
            f.force_jacobian_values(t, q, q, q, out, out);
        };
    }
    Eigen::Index dense_size() const { return sparse_ ? 0 : n_; }

    // Newton's iteration for a_{n+1} (and lambda_{n+1}) from the predictor a_n, leaving
    // x_{n+1}, v_{n+1} of the converged a_{n+1} in x1_, v1_. Converged when each residual is
    // below the tolerance relative to the accelerations plus the round-off of evaluating the
    // force (16 eps sum_j |da_i/dq_j| |q_j| + |da_i/dv_j| |v_j|: a stiff spring's k x terms
    // cancel and leave that much noise), or when the correction just made with the Jacobian
    // at its iterate (Newton's step) was below the tolerance relative to a_n and a_{n+1}.
    // full: a new Jacobian and factorization at every iterate (Newton's method). Else modified
    // Newton: the held matrix (of an earlier iterate or step) while the corrections shrink by
    // at least slow_rate per iteration (the contraction rate of Hairer & Wanner, Solving
    // Ordinary Differential Equations II, Sect. IV.8) and for at most max_held_corrections
    // of them per step, a new one at the current iterate when they do not, or fail to; its
    // iterates are accepted by the residual test only, so the converged
    // accelerations meet Newton's tolerance. Returns false where modified Newton gave up (no
    // convergence within max_iterations, a non-finite iterate, a singular matrix): step()
    // retries with full Newton, whose failures throw.
    bool newton_solve(const State& s, double h, double t_alpha, double beta_h2, bool full) {
        a1_ = a_; // predictor: the last acceleration
        const double start_size = a_.cwiseAbs().maxCoeff();
        bool refresh = full || !factored_;
        double previous = 0.0; // the last correction with the held matrix (0: none yet)
        int corrections = 0;   // made with the held matrix in this step
        for (int iteration = 0;; ++iteration) {
            predict(s, h);
            force_.acceleration(t_alpha, xa_, va_, s.x, force_a_);
            // r = (1 - alpha_m) a_{n+1} + alpha_m a_n - M^-1 (F_alpha + G_alpha^T lambda)
            r_.head(n_) = (1.0 - p_.alpha_m) * a1_ + p_.alpha_m * a_ - force_a_;
            if (m_ > 0) {
                model_->constraint_jacobian(t_alpha, xa_, Ga_);
                constraint_directions(xa_, Ga_, s.t + h); // W = M(x_alpha)^-1 G_alpha^T
                r_.head(n_).noalias() -= W_ * lambda_;
                model_->constraint(s.t + h, x1_, g1_);
                r_.tail(m_) = g1_ / beta_h2;
            }
            const double scale =
                std::max({a1_.cwiseAbs().maxCoeff(), force_a_.cwiseAbs().maxCoeff(),
                          std::numeric_limits<double>::min()});
            const double tolerance = options_.solver.newton_tolerance * scale;
            // the largest residual beyond its noise level: Newton's method uses the noise of
            // the last Jacobian's iterate, modified Newton the held Jacobian's at this one
            double dynamics = 0.0;
            if (full) {
                for (Eigen::Index i = 0; i < n_; ++i) {
                    dynamics = std::max(dynamics, std::abs(r_[i]) - noise_[i]);
                }
            } else {
                dynamics = held_excess(tolerance);
            }
            const double geometry = m_ > 0 ? g1_.cwiseAbs().maxCoeff() : 0.0;
            iterations_ = iteration;
            if (dynamics <= tolerance && geometry <= options_.solver.constraint_tolerance) {
                return true;
            }
            if (!std::isfinite(dynamics) || !std::isfinite(geometry)) {
                if (!full) {
                    return false;
                }
                throw_not_finite(s.t + h, h);
            }
            if (iteration == options_.solver.max_iterations) {
                if (!full) {
                    return false;
                }
                throw_not_converged(s.t + h, h, scale);
            }
            if (refresh) {
                if (!factorize_newton_matrix(t_alpha, s, beta_h2, h)) {
                    if (!full) {
                        return false;
                    }
                    throw_singular(s.t + h, h);
                }
                previous = 0.0;
                corrections = 0;
            }
            if (!solve_newton_matrix()) {
                if (!full) {
                    return false;
                }
                throw_singular(s.t + h, h);
            }
            a1_ -= dz_.head(n_);
            if (m_ > 0) {
                lambda_ -= dz_.tail(m_);
            }
            iterations_ = iteration + 1;
            const double correction = dz_.head(n_).cwiseAbs().maxCoeff();
            const double rate = previous > 0.0 ? correction / previous : 0.0;
            previous = correction;
            // relative to the accelerations a_n, a_{n+1} (not to the force at the iterate,
            // which is large where the iteration runs away: a step would not shrink it)
            const double size = std::max(
                {a1_.cwiseAbs().maxCoeff(), start_size, std::numeric_limits<double>::min()});
            const double bound = options_.solver.newton_tolerance * size;
            if (refresh && correction <= bound &&
                geometry <= options_.solver.constraint_tolerance) {
                predict(s, h); // x_{n+1}, v_{n+1} of the corrected a_{n+1}
                return true;
            }
            ++corrections;
            refresh = full || rate > slow_rate || corrections == max_held_corrections;
        }
    }

    // Modified Newton: the largest residual beyond the round-off of evaluating the force at
    // the current iterate, 16 eps sum_j |A_ij| |x_j| with the held Jacobian A; the exact sums
    // (a pass over the Jacobian) only where the residual alone and the bound
    // 16 eps (sum_j |A_ij|) max_j |x_j| leave the test against `tolerance` undecided.
    double held_excess(double tolerance) {
        const double plain = r_.head(n_).cwiseAbs().maxCoeff();
        if (!(plain > tolerance)) {
            return plain; // converged, or not finite
        }
        const double unit = 16.0 * std::numeric_limits<double>::epsilon();
        const double x = xa_.cwiseAbs().maxCoeff();
        const double v = va_.cwiseAbs().maxCoeff();
        double lower = 0.0;
        for (Eigen::Index i = 0; i < n_; ++i) {
            lower = std::max(lower, std::abs(r_[i]) - unit * (row_q_[i] * x + row_v_[i] * v));
        }
        if (lower > tolerance) {
            return lower;
        }
        if (sparse_) {
            sparse_noise();
        } else {
            estimate_noise();
        }
        double excess = 0.0;
        for (Eigen::Index i = 0; i < n_; ++i) {
            excess = std::max(excess, std::abs(r_[i]) - noise_[i]);
        }
        return excess;
    }

    // The row sums of |M^-1 df/dq| and |M^-1 df/dv| of the held Jacobian (held_excess).
    void row_bounds() {
        if (sparse_) {
            row_q_.setZero();
            row_v_.setZero();
            const Vector& inverse_mass = model_->inverse_mass();
            for (std::size_t e = 0; e < f_q_values_.size(); ++e) {
                row_q_[dq_rows_[e]] += std::abs(f_q_values_[e] * inverse_mass[dq_rows_[e]]);
            }
            for (std::size_t e = 0; e < f_v_values_.size(); ++e) {
                row_v_[dv_rows_[e]] += std::abs(velocity_term_[e]);
            }
        } else {
            row_q_ = A_q_.cwiseAbs().rowwise().sum();
            row_v_ = A_v_.cwiseAbs().rowwise().sum();
        }
    }

    // estimate_noise's sums with the held sparse Jacobian at the current xa_, va_.
    void sparse_noise() {
        noise_.setZero();
        const Vector& inverse_mass = model_->inverse_mass();
        for (std::size_t e = 0; e < f_q_values_.size(); ++e) {
            const double a_q = f_q_values_[e] * inverse_mass[dq_rows_[e]];
            noise_[dq_rows_[e]] += std::abs(a_q * xa_[dq_columns_[e]]);
        }
        for (std::size_t e = 0; e < f_v_values_.size(); ++e) {
            noise_[dv_rows_[e]] += std::abs(velocity_term_[e] * va_[dv_columns_[e]]);
        }
        noise_ *= 16.0 * std::numeric_limits<double>::epsilon();
    }

    // Newton's matrix at the current iterate, factorized (dense or sparse), and the noise
    // estimate of its Jacobians; false when it is singular.
    bool factorize_newton_matrix(double t_alpha, const State& s, double beta_h2, double h) {
        ++jacobian_evaluations_;
        factored_ = false;
        if (sparse_) {
            if (!factorize_sparse(t_alpha, s, beta_h2, h)) {
                return false;
            }
        } else {
            force_.acceleration_jacobians(t_alpha, xa_, va_, s.x, A_q_, A_v_);
            estimate_noise();
            const double c = 1.0 - p_.alpha_f;
            K_.topLeftCorner(n_, n_) = -c * (beta_h2 * A_q_ + (p_.gamma * h) * A_v_);
            K_.topLeftCorner(n_, n_).diagonal().array() += 1.0 - p_.alpha_m;
            if (m_ > 0) {
                K_.topRightCorner(n_, m_) = -W_;
                model_->constraint_jacobian(s.t + h, x1_, G1_);
                K_.bottomLeftCorner(m_, n_) = G1_; // d g(x_{n+1}) / d a_{n+1} = beta h^2 G
                K_.bottomRightCorner(m_, m_).setZero();
            }
            lu_.compute(K_);
            if (nearly_singular(lu_)) {
                return false;
            }
        }
        if (reuse_) {
            row_bounds();
        }
        factored_ = true;
        factored_h_ = h;
        return true;
    }

    // dz = K^-1 r with the held factorization; false when not finite.
    bool solve_newton_matrix() {
        if (sparse_) {
            return sparse_lu_.solve(r_, dz_);
        }
        dz_ = lu_.solve(r_);
        return dz_.allFinite();
    }

    // The pattern of Newton's matrix (1 - alpha_m) I - (1 - alpha_f) M^-1 (beta h^2 df/dq +
    // gamma h df/dv): the union of the diagonal and both Jacobians' patterns.
    void prepare_sparse() {
        if constexpr (sparse_available()) {
            const mdl_kernels& k = model_->kernels();
            const PatternEntries dq = pattern_entries(k.force_dq_pattern);
            const PatternEntries dv = pattern_entries(k.force_dv_pattern);
            dq_rows_ = dq.row;
            dv_rows_ = dv.row;
            dq_columns_ = dq.column;
            dv_columns_ = dv.column;
            newton_ = FixedPatternMatrix(n_);
            newton_.add_diagonal(n_);
            newton_.add_source(dq);
            newton_.add_source(dv);
            newton_.build();
            f_q_values_.assign(dq.row.size(), 0.0);
            f_v_values_.assign(dv.row.size(), 0.0);
            velocity_term_.assign(dv.row.size(), 0.0);
            sparse_lu_.analyze(newton_.matrix());
        }
    }

    // Newton's matrix by the sparse path, factorized; false when it is singular.
    bool factorize_sparse(double t_alpha, const State& s, double beta_h2, double h) {
        if constexpr (sparse_available()) {
            force_.force_jacobian_values(t_alpha, xa_, va_, s.x, f_q_values_.data(),
                                         f_v_values_.data());
            const Vector& inverse_mass = model_->inverse_mass();
            // estimate_noise's sums over the nonzero products only
            noise_.setZero();
            const double unit = 16.0 * std::numeric_limits<double>::epsilon();
            const double c = 1.0 - p_.alpha_f;
            newton_.set_zero();
            double* values = newton_.matrix().valuePtr();
            const std::vector<int>& diagonal = newton_.slots(0);
            const std::vector<int>& at_q = newton_.slots(1);
            const std::vector<int>& at_v = newton_.slots(2);
            // The dense path's entry: -c * (beta_h2 * a_q + (gamma h) * a_v) + (1 - alpha_m)
            // on the diagonal, with a_q = M^-1 f_q row-scaled.
            for (std::size_t e = 0; e < f_q_values_.size(); ++e) {
                const double a_q = f_q_values_[e] * inverse_mass[dq_rows_[e]];
                noise_[dq_rows_[e]] += std::abs(a_q * xa_[dq_columns_[e]]);
                values[at_q[e]] = a_q;
            }
            for (std::size_t e = 0; e < f_v_values_.size(); ++e) {
                const double a_v = f_v_values_[e] * inverse_mass[dv_rows_[e]];
                noise_[dv_rows_[e]] += std::abs(a_v * va_[dv_columns_[e]]);
                velocity_term_[e] = a_v;
            }
            noise_ *= unit;
            // beta h^2 A_q + gamma h A_v at every entry of the union (A_q first, as the dense
            // expression evaluates it), then scaled and the diagonal added
            const Eigen::Index nnz = newton_.matrix().nonZeros();
            for (Eigen::Index i = 0; i < nnz; ++i) {
                values[i] = beta_h2 * values[i];
            }
            for (std::size_t e = 0; e < f_v_values_.size(); ++e) {
                values[at_v[e]] = values[at_v[e]] + (p_.gamma * h) * velocity_term_[e];
            }
            for (Eigen::Index i = 0; i < nnz; ++i) {
                values[i] = -c * values[i];
            }
            for (std::size_t i = 0; i < diagonal.size(); ++i) {
                values[diagonal[i]] += 1.0 - p_.alpha_m;
            }
            return sparse_lu_.factorize(newton_.matrix());
        } else {
            (void)t_alpha, (void)s, (void)beta_h2, (void)h;
            return false;
        }
    }

    // x_{n+1}, v_{n+1} from a_{n+1}, and their alpha_f averages
    void predict(const State& s, double h) {
        x1_ = s.q + h * s.v + (h * h) * ((0.5 - p_.beta) * a_ + p_.beta * a1_);
        v1_ = s.v + h * ((1.0 - p_.gamma) * a_ + p_.gamma * a1_);
        xa_ = (1.0 - p_.alpha_f) * x1_ + p_.alpha_f * s.q;
        va_ = (1.0 - p_.alpha_f) * v1_ + p_.alpha_f * s.v;
    }

    void estimate_noise() {
        const double unit = 16.0 * std::numeric_limits<double>::epsilon();
        for (Eigen::Index i = 0; i < n_; ++i) {
            double sum = 0.0;
            for (Eigen::Index j = 0; j < n_; ++j) {
                sum += std::abs(A_q_(i, j) * xa_[j]) + std::abs(A_v_(i, j) * va_[j]);
            }
            noise_[i] = unit * sum;
        }
    }

    // a_0 = M^-1 (F_0 + G_0^T lambda_0), with lambda_0 making it consistent (G a + curvature
    // = 0) on constrained models.
    void start(const State& s) {
        force_.acceleration(s.t, s.q, s.v, s.x, a_);
        if (m_ > 0) {
            model_->constraint_jacobian(s.t, s.q, G1_);
            factorize_gram(s.q, G1_, s.t);
            model_->curvature(s.t, s.q, s.v, kappa_);
            acceleration_multipliers(gram_, G1_, a_, kappa_, lambda_);
            a_.noalias() += W_ * lambda_;
        }
    }

    // v <- v - M^-1 G^T S^-1 (G v + g_t): the M-orthogonal projection onto
    // G(x_{n+1}) v + g_t(t_{n+1}, x_{n+1}) = 0 (g_t = 0 unless the constraints are rheonomic).
    void project_velocity(State& s) {
        model_->constraint_jacobian(s.t, s.q, G1_);
        factorize_gram(s.q, G1_, s.t);
        kappa_.noalias() = G1_ * s.v;
        if (model_->rheonomic()) {
            model_->constraint_rate(s.t, s.q, g1_);
            kappa_ += g1_;
        }
        gram_.solve_in_place(kappa_);
        s.v.noalias() -= W_ * kappa_;
    }

    // W = M(q)^-1 G^T: the inverse mass as a vector when M is constant and diagonal, else a
    // Cholesky factorization of M(q) (a located failure where it is not positive definite).
    void constraint_directions(const Vector& q, const Matrix& G, double t) {
        W_ = G.transpose();
        if (model_->mass_constant_diagonal()) {
            W_.array().colwise() *= model_->inverse_mass().array();
            return;
        }
        model_->mass_matrix(q, mass_);
        tmp_.setZero();
        solve_mass_matrix(*model_, t, mass_, llt_, tmp_); // factorizes, or throws
        llt_.solveInPlace(W_);
    }

    // The Gram matrix S = G M(q)^-1 G^T factorized; W_ = M(q)^-1 G^T.
    void factorize_gram(const Vector& q, const Matrix& G, double t) {
        if (model_->mass_constant_diagonal()) {
            gram_.factorize(G, t, name_);
            W_ = G.transpose();
            W_.array().colwise() *= model_->inverse_mass().array();
            return;
        }
        constraint_directions(q, G, t);
        S_.noalias() = G * W_;
        gram_.factorize_gram(S_, t, name_);
    }

    [[noreturn]] void throw_not_finite(double t, double h) const;
    [[noreturn]] void throw_not_converged(double t, double h, double scale) const;
    [[noreturn]] void throw_singular(double t, double h);

    const Model* model_;
    Force force_;
    GeneralizedAlphaParameters p_;
    ImplicitOptions options_;
    std::string name_;
    Eigen::Index n_, m_;
    bool sparse_;
    bool reuse_; // modified Newton (ImplicitOptions::jacobian_reuse, unconstrained models)
    Vector a_, a1_, x1_, v1_, xa_, va_, force_a_, r_, dz_, tmp_, noise_, row_q_, row_v_;
    Vector lambda_, g1_, kappa_;
    Matrix A_q_, A_v_, Ga_, G1_, W_, mass_;
    Eigen::MatrixXd S_, K_;
    Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
    ConstraintGram gram_;
    Eigen::LLT<Matrix> llt_;
    detail::StepMemory memory_;
    int iterations_ = 0;
    // modified Newton: the held factorization of Newton's matrix and the step it was made for
    bool factored_ = false;
    double factored_h_ = 0.0;
    std::size_t jacobian_evaluations_ = 0;
    // A held matrix is replaced when the corrections shrink by less than this factor per
    // iteration (Newton's method with the exact matrix converges quadratically; a rate of 1/4
    // costs about as many iterations per step as a refresh on the chain of masses, measured
    // with bench/implicit_step_bench.cpp).
    static constexpr double slow_rate = 0.25;
    // ... or when it has made this many corrections in a step without converging (SUNDIALS'
    // CVODE gives up on a stale matrix after 3).
    static constexpr int max_held_corrections = 4;
    // the sparse path
    FixedPatternMatrix newton_;
    SparseLuSolver sparse_lu_;
    std::vector<double> f_q_values_, f_v_values_, velocity_term_;
    std::vector<int> dq_rows_, dq_columns_, dv_rows_, dv_columns_;
};

namespace detail {
// Messages naming the coordinate or constraint where Newton's iteration failed.
// residual: the n equations of motion (relative to scale); g: the m constraint values.
[[noreturn]] void throw_implicit_not_finite(const Model& model, std::string_view method, double t,
                                            double h, Eigen::Ref<const Vector> residual,
                                            const Vector& g);
[[noreturn]] void throw_implicit_not_converged(const Model& model, std::string_view method,
                                               double t, double h,
                                               Eigen::Ref<const Vector> residual, double scale,
                                               const Vector& g, const SolverOptions& options);
[[noreturn]] void throw_implicit_singular(const Model& model, std::string_view method, double t,
                                          double h);
} // namespace detail

template <DifferentiableAccelerationField Force>
void GeneralizedAlpha<Force>::throw_not_finite(double t, double h) const {
    detail::throw_implicit_not_finite(*model_, name_, t, h, r_.head(n_), g1_);
}
template <DifferentiableAccelerationField Force>
void GeneralizedAlpha<Force>::throw_not_converged(double t, double h, double scale) const {
    detail::throw_implicit_not_converged(*model_, name_, t, h, r_.head(n_), scale, g1_,
                                         options_.solver);
}
template <DifferentiableAccelerationField Force>
void GeneralizedAlpha<Force>::throw_singular(double t, double h) {
    if (m_ > 0) { // dependent constraints are named by the Gram factorization
        factorize_gram(x1_, G1_, t);
    }
    detail::throw_implicit_singular(*model_, name_, t, h);
}

extern template class GeneralizedAlpha<ModelForce>;

} // namespace mdl::runtime
