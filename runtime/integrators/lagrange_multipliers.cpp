#include "runtime/integrators/lagrange_multipliers.hpp"

#include <cmath>

namespace mdl::runtime {

std::string constraint_label(const Model& model, Eigen::Index i) {
    return "constraint '" + model.constraint_name(i) + "'";
}

ConstraintGram::ConstraintGram(const Model& model)
    : model_(&model), L_(Eigen::MatrixXd::Zero(model.constraints(), model.constraints())) {}

void ConstraintGram::factorize(const Matrix& G, double t, std::string_view method) {
    const Eigen::Index m = G.rows();
    const Vector& w = model_->inverse_mass();
    // L_ holds S below the diagonal before the factorization overwrites it column by column
    for (Eigen::Index i = 0; i < m; ++i) {
        for (Eigen::Index j = 0; j <= i; ++j) {
            double s = 0.0;
            for (Eigen::Index k = 0; k < G.cols(); ++k) {
                s += G(i, k) * w[k] * G(j, k);
            }
            L_(i, j) = s;
        }
    }
    factorize_lower(t, method);
}

void ConstraintGram::factorize_gram(const Eigen::MatrixXd& S, double t, std::string_view method) {
    L_.triangularView<Eigen::Lower>() = S.triangularView<Eigen::Lower>();
    factorize_lower(t, method);
}

void ConstraintGram::factorize_lower(double t, std::string_view method) {
    const Eigen::Index m = L_.rows();
    for (Eigen::Index j = 0; j < m; ++j) {
        const double diagonal = L_(j, j); // |G_j|^2 in the M^-1 metric
        double pivot = diagonal;
        for (Eigen::Index k = 0; k < j; ++k) {
            pivot -= L_(j, k) * L_(j, k);
        }
        if (!(diagonal > 0.0) || !(pivot > 1e-12 * diagonal)) {
            const bool vanishes = !(diagonal > 0.0);
            throw NumericalFailure(
                FailureKind::singular_constraint_jacobian, method, t, constraint_label(*model_, j),
                vanishes ? "the gradient of the constraint vanishes (or is not finite), so it "
                           "cannot be enforced by a constraint force: write it so that "
                           "dg/dq != 0 on g = 0 (e.g. x^2 + y^2 = l^2, not (x^2 + y^2 - l^2)^2)"
                         : "the constraint gradient is linearly dependent on those of the "
                           "constraints before it (redundant or locked constraints), so the "
                           "multipliers are not determined");
        }
        const double ljj = std::sqrt(pivot);
        L_(j, j) = ljj;
        for (Eigen::Index i = j + 1; i < m; ++i) {
            double s = L_(i, j);
            for (Eigen::Index k = 0; k < j; ++k) {
                s -= L_(i, k) * L_(j, k);
            }
            L_(i, j) = s / ljj;
        }
    }
}

void ConstraintGram::solve_in_place(Vector& b) const {
    const Eigen::Index m = b.size();
    for (Eigen::Index i = 0; i < m; ++i) { // L y = b
        double s = b[i];
        for (Eigen::Index k = 0; k < i; ++k) {
            s -= L_(i, k) * b[k];
        }
        b[i] = s / L_(i, i);
    }
    for (Eigen::Index i = m - 1; i >= 0; --i) { // L^T x = y
        double s = b[i];
        for (Eigen::Index k = i + 1; k < m; ++k) {
            s -= L_(k, i) * b[k];
        }
        b[i] = s / L_(i, i);
    }
}

void acceleration_multipliers(const ConstraintGram& gram, const Matrix& G, const Vector& a,
                              const Vector& curvature, Vector& lambda) {
    lambda.noalias() = G * a; // into lambda directly: -(G a) would need a temporary
    lambda += curvature;
    lambda = -lambda;
    gram.solve_in_place(lambda);
}

bool nearly_singular(const Eigen::PartialPivLU<Eigen::MatrixXd>& lu) {
    const auto pivots = lu.matrixLU().diagonal().cwiseAbs();
    const double largest = pivots.maxCoeff();
    return !(pivots.minCoeff() > 1e-14 * largest);
}

PositionConstraintNewton::PositionConstraintNewton(const Model& model)
    : model_(&model), g_(Vector::Zero(model.constraints())),
      dlambda_(Vector::Zero(model.constraints())),
      G_(Matrix::Zero(model.constraints(), model.positions())),
      J_(Eigen::MatrixXd::Zero(model.constraints(), model.constraints())),
      lu_(model.constraints()) {}

int PositionConstraintNewton::solve(const Vector& x_free, const Matrix& D,
                                    const SolverOptions& options, double t, double h,
                                    std::string_view method, Vector& lambda, Vector& x) {
    return position_multiplier_newton(*model_, x_free, D, options, t, h, method, lambda, x, g_,
                                      [&](const Vector& at, const Vector& g) -> const Vector* {
                                          model_->constraint_jacobian(t, at, G_);
                                          J_.noalias() = G_ * D;
                                          lu_.compute(J_);
                                          if (nearly_singular(lu_)) {
                                              return nullptr;
                                          }
                                          dlambda_ = lu_.solve(g);
                                          return &dlambda_;
                                      });
}

NumericalFailure multiplier_residual_not_finite(const Model& model, std::string_view method,
                                                double t, Eigen::Index worst, double h) {
    return NumericalFailure(FailureKind::non_finite, method, t, constraint_label(model, worst),
                            "the constraint residual is not finite during the Newton "
                            "iteration on the multipliers (step " +
                                format_number(h) + ")");
}

NumericalFailure multiplier_matrix_singular(const Model& model, std::string_view method, double t,
                                            Eigen::Index worst, int iteration, double residual,
                                            double h) {
    return NumericalFailure(
        FailureKind::newton_not_converged, method, t, constraint_label(model, worst),
        "the Newton matrix G(q) M^-1 G(q_n)^T became singular at iteration " +
            std::to_string(iteration) + " (residual " + format_number(residual) + "): the step " +
            format_number(h) + " moves the constraint gradients too far; reduce it");
}

NumericalFailure multipliers_not_converged(const Model& model, std::string_view method, double t,
                                           Eigen::Index worst, double residual,
                                           const SolverOptions& options, double h) {
    return NumericalFailure(
        FailureKind::newton_not_converged, method, t, constraint_label(model, worst),
        "Newton's iteration on the Lagrange multipliers left the residual " +
            format_number(residual) + " above the tolerance " +
            format_number(options.constraint_tolerance) + " after " +
            std::to_string(options.max_iterations) + " iterations; reduce the step " +
            format_number(h) + " or loosen the constraint tolerance");
}

} // namespace mdl::runtime
