// The linear algebra of holonomic constraints g(q) = 0 with constraint forces G^T lambda,
// shared by SHAKE, RATTLE and the constrained Newmark and generalized-alpha methods.
#pragma once

#include "runtime/integrators/stepper_support.hpp"
#include "runtime/model.hpp"
#include "runtime/numerical_failure.hpp"

#include <Eigen/LU>
#include <cmath>
#include <string_view>

namespace mdl::runtime {

// S = G M^-1 G^T for the constraint Jacobian G (m x n): the matrix of every multiplier
// solve (RATTLE's velocity projection, consistent accelerations, the start of SHAKE's
// Newton iteration). Factorized by Cholesky; a pivot below 1e-12 of its diagonal entry
// means the constraint's gradient lies within 1e-6 rad of the span of the earlier ones
// (or vanishes), and the failure names that constraint.
class ConstraintGram {
public:
    explicit ConstraintGram(const Model& model);
    // Throws NumericalFailure(singular_constraint_jacobian) at time t for method.
    void factorize(const Matrix& G, double t, std::string_view method);
    // The same for a Gram matrix S = G M(q)^-1 G^T formed by the caller (a mass matrix that
    // is not constant and diagonal); only its lower triangle is read.
    void factorize_gram(const Eigen::MatrixXd& S, double t, std::string_view method);
    // b <- S^-1 b
    void solve_in_place(Vector& b) const;

private:
    // Cholesky of the Gram matrix held in the lower triangle of L_, in place.
    void factorize_lower(double t, std::string_view method);

    const Model* model_;
    Eigen::MatrixXd L_; // lower Cholesky factor
};

// The multipliers of consistent accelerations: lambda with G (a + M^-1 G^T lambda) +
// curvature = 0, i.e. S lambda = -(G a + curvature), the index-1 form of g(q) = 0
// (g'' = G q'' + curvature, kernel_abi.h). Used to start SHAKE's Newton iteration and to give
// Newmark and generalized-alpha a consistent initial acceleration.
void acceleration_multipliers(const ConstraintGram& gram, const Matrix& G, const Vector& a,
                              const Vector& curvature, Vector& lambda);

// Solves g(t, x_free + D lambda) = 0 for lambda by Newton's method, D = c M^-1 G_n^T (n x m):
// the position stage of SHAKE and RATTLE (D = h^2/2 M^-1 G(q_n)^T). The Newton matrix is
// G(x) D at the current iterate; converged when max_i |g_i| <= constraint_tolerance.
class PositionConstraintNewton {
public:
    explicit PositionConstraintNewton(const Model& model);
    // lambda: initial guess in, solution out; x: the constrained position. Returns the
    // number of Newton updates. Throws NumericalFailure(newton_not_converged) naming the
    // constraint with the largest residual, or non_finite.
    int solve(const Vector& x_free, const Matrix& D, const SolverOptions& options, double t,
              double h, std::string_view method, Vector& lambda, Vector& x);

private:
    const Model* model_;
    Vector g_, dlambda_;
    Matrix G_;
    Eigen::MatrixXd J_;
    Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
};

// D = c M^-1 G^T (n x m)
inline void scaled_constraint_directions(const Model& model, const Matrix& G, double c, Matrix& D) {
    D = G.transpose();
    for (Eigen::Index i = 0; i < D.rows(); ++i) {
        D.row(i) *= c * model.inverse_mass()[i];
    }
}

// Index of the largest |v_i| (v non-empty).
inline Eigen::Index largest_entry(const Vector& v, double& size) {
    Eigen::Index at = 0;
    size = v.cwiseAbs().maxCoeff(&at);
    return at;
}

// True when the pivots of an LU factorization span more than 1e14: numerically singular.
bool nearly_singular(const Eigen::PartialPivLU<Eigen::MatrixXd>& lu);

std::string constraint_label(const Model& model, Eigen::Index i); // "constraint 'rod2'"

// The failures of Newton's iteration on the position stage's multipliers, naming constraint
// `worst` (the largest residual): a non-finite residual, a singular Newton matrix at
// `iteration`, no convergence within options.max_iterations.
NumericalFailure multiplier_residual_not_finite(const Model& model, std::string_view method,
                                                double t, Eigen::Index worst, double h);
NumericalFailure multiplier_matrix_singular(const Model& model, std::string_view method, double t,
                                            Eigen::Index worst, int iteration, double residual,
                                            double h);
NumericalFailure multipliers_not_converged(const Model& model, std::string_view method, double t,
                                           Eigen::Index worst, double residual,
                                           const SolverOptions& options, double h);

// Newton's iteration of the position stage, shared by PositionConstraintNewton (dense D) and
// SparsePositionConstraintNewton (sparse D): x = x_free + D lambda until max_i |g_i(x)| <=
// constraint_tolerance. `correct(x, g)` solves the Newton system at x for the correction of
// lambda and returns a pointer to it, or null when the Newton matrix is singular. Returns the
// number of updates. Once converged, options.polish_iterations more updates (the x of the
// last one; its residual was within the tolerance before it).
template <class Directions, class Correct>
int position_multiplier_newton(const Model& model, const Vector& x_free, const Directions& D,
                               const SolverOptions& options, double t, double h,
                               std::string_view method, Vector& lambda, Vector& x, Vector& g,
                               Correct&& correct) {
    double residual = 0.0;
    Eigen::Index worst = 0;
    int polished = 0;
    for (int iteration = 0;; ++iteration) {
        x = x_free;
        x.noalias() += D * lambda;
        model.constraint(t, x, g); // t: the time the positions x belong to
        worst = largest_entry(g, residual);
        if (residual <= options.constraint_tolerance) {
            if (polished == options.polish_iterations || residual == 0.0) {
                return iteration;
            }
            ++polished; // one more update (SolverOptions::polish_iterations)
        }
        if (!std::isfinite(residual)) {
            throw multiplier_residual_not_finite(model, method, t, worst, h);
        }
        const bool converged = residual <= options.constraint_tolerance; // polishing
        if (iteration == options.max_iterations) {
            if (converged) {
                return iteration;
            }
            break;
        }
        const Vector* dlambda =
            correct(static_cast<const Vector&>(x), static_cast<const Vector&>(g));
        if (dlambda == nullptr && converged) {
            return iteration;
        }
        if (dlambda == nullptr) {
            throw multiplier_matrix_singular(model, method, t, worst, iteration, residual, h);
        }
        lambda -= *dlambda;
    }
    throw multipliers_not_converged(model, method, t, worst, residual, options, h);
}

} // namespace mdl::runtime
