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
//
// Constraints (Sect. 21.3: the mass matrix extended by zeros for the multipliers):
//   M a_{n+1-alpha_m} = F(x_{n+1-alpha_f}, ...) + G(x_{n+1-alpha_f})^T lambda_{n+1},
//   g(x_{n+1}) = 0,
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
// same iteration, the same matrix entries (each the same sum in the same order), so the
// trajectories equal the dense path's to round-off (tests/api/sparse_linear_algebra_test.cpp).
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
          a_(Vector::Zero(n_)), a1_(a_), x1_(a_), v1_(a_), xa_(a_), va_(a_), force_a_(a_),
          r_(Vector::Zero(n_ + m_)), dz_(r_), tmp_(a_), noise_(a_), lambda_(Vector::Zero(m_)),
          g1_(lambda_), kappa_(lambda_), A_q_(Matrix::Zero(dense_size(), dense_size())), A_v_(A_q_),
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
        a1_ = a_; // predictor: the last acceleration
        // Newton's method. Converged when each residual is below the tolerance relative to
        // the accelerations plus the round-off of evaluating the force (16 eps sum_j
        // |da_i/dq_j| |q_j| + |da_i/dv_j| |v_j|: a stiff spring's k x terms cancel and leave
        // that much noise), or when the last correction was below the tolerance.
        noise_.setZero();
        bool converged = false;
        for (int iteration = 0; !converged; ++iteration) {
            predict(s, h);
            force_.acceleration(t_alpha, xa_, va_, s.x, force_a_);
            // r = (1 - alpha_m) a_{n+1} + alpha_m a_n - M^-1 (F_alpha + G_alpha^T lambda)
            r_.head(n_) = (1.0 - p_.alpha_m) * a1_ + p_.alpha_m * a_ - force_a_;
            if (m_ > 0) {
                model_->constraint_jacobian(xa_, Ga_);
                constraint_directions(xa_, Ga_, s.t + h); // W = M(x_alpha)^-1 G_alpha^T
                r_.head(n_).noalias() -= W_ * lambda_;
                model_->constraint(x1_, g1_);
                r_.tail(m_) = g1_ / beta_h2;
            }
            const double scale =
                std::max({a1_.cwiseAbs().maxCoeff(), force_a_.cwiseAbs().maxCoeff(),
                          std::numeric_limits<double>::min()});
            double dynamics = 0.0; // the largest residual beyond its noise level
            for (Eigen::Index i = 0; i < n_; ++i) {
                dynamics = std::max(dynamics, std::abs(r_[i]) - noise_[i]);
            }
            const double geometry = m_ > 0 ? g1_.cwiseAbs().maxCoeff() : 0.0;
            iterations_ = iteration;
            if (dynamics <= options_.solver.newton_tolerance * scale &&
                geometry <= options_.solver.constraint_tolerance) {
                break;
            }
            if (!std::isfinite(dynamics) || !std::isfinite(geometry)) {
                throw_not_finite(s.t + h, h);
            }
            if (iteration == options_.solver.max_iterations) {
                throw_not_converged(s.t + h, h, scale);
            }
            if (sparse_) {
                if (!sparse_newton_step(t_alpha, s, beta_h2, h)) {
                    throw_singular(s.t + h, h);
                }
            } else {
                force_.acceleration_jacobians(t_alpha, xa_, va_, s.x, A_q_, A_v_);
                estimate_noise();
                const double c = 1.0 - p_.alpha_f;
                K_.topLeftCorner(n_, n_) = -c * (beta_h2 * A_q_ + (p_.gamma * h) * A_v_);
                K_.topLeftCorner(n_, n_).diagonal().array() += 1.0 - p_.alpha_m;
                if (m_ > 0) {
                    K_.topRightCorner(n_, m_) = -W_;
                    model_->constraint_jacobian(x1_, G1_);
                    K_.bottomLeftCorner(m_, n_) = G1_; // d g(x_{n+1}) / d a_{n+1} = beta h^2 G
                    K_.bottomRightCorner(m_, m_).setZero();
                }
                lu_.compute(K_);
                if (nearly_singular(lu_)) {
                    throw_singular(s.t + h, h);
                }
                dz_ = lu_.solve(r_);
            }
            a1_ -= dz_.head(n_);
            if (m_ > 0) {
                lambda_ -= dz_.tail(m_);
            }
            iterations_ = iteration + 1;
            const double correction = dz_.head(n_).cwiseAbs().maxCoeff();
            converged = correction <= options_.solver.newton_tolerance * scale &&
                        geometry <= options_.solver.constraint_tolerance;
        }
        predict(s, h);
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

private:
    static constexpr bool sparse_available() {
        return requires(Force & f, double t, const Vector& q, double* out) {
            f.force_jacobian_values(t, q, q, q, out, out);
        };
    }
    Eigen::Index dense_size() const { return sparse_ ? 0 : n_; }

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

    // One Newton correction by the sparse path into dz_; false when the matrix is singular.
    bool sparse_newton_step(double t_alpha, const State& s, double beta_h2, double h) {
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
            if (!sparse_lu_.factorize(newton_.matrix())) {
                return false;
            }
            return sparse_lu_.solve(r_, dz_);
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
            model_->constraint_jacobian(s.q, G1_);
            factorize_gram(s.q, G1_, s.t);
            model_->curvature(s.q, s.v, kappa_);
            acceleration_multipliers(gram_, G1_, a_, kappa_, lambda_);
            a_.noalias() += W_ * lambda_;
        }
    }

    // v <- v - M^-1 G^T S^-1 G v: the M-orthogonal projection onto G(x_{n+1}) v = 0.
    void project_velocity(State& s) {
        model_->constraint_jacobian(s.q, G1_);
        factorize_gram(s.q, G1_, s.t);
        kappa_.noalias() = G1_ * s.v;
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
    Vector a_, a1_, x1_, v1_, xa_, va_, force_a_, r_, dz_, tmp_, noise_;
    Vector lambda_, g1_, kappa_;
    Matrix A_q_, A_v_, Ga_, G1_, W_, mass_;
    Eigen::MatrixXd S_, K_;
    Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
    ConstraintGram gram_;
    Eigen::LLT<Matrix> llt_;
    detail::StepMemory memory_;
    int iterations_ = 0;
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
