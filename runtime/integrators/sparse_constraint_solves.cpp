#include "runtime/integrators/sparse_constraint_solves.hpp"

#include "runtime/integrators/lagrange_multipliers.hpp"
#include "runtime/numerical_failure.hpp"

#include <algorithm>
#include <cmath>

namespace mdl::runtime {

bool has_sparse_constraint_jacobian(const Model& model) {
    const mdl_kernels& k = model.kernels();
    return model.constrained() && k.constraint_jacobian_values != nullptr &&
           k.constraint_jacobian_pattern.rows == static_cast<unsigned>(model.constraints()) &&
           k.constraint_jacobian_pattern.columns == static_cast<unsigned>(model.positions());
}

bool use_sparse_constraints(const Model& model, LinearAlgebra choice) {
    if (choice == LinearAlgebra::dense || !has_sparse_constraint_jacobian(model) ||
        !model.mass_constant_diagonal()) {
        return false;
    }
    return choice == LinearAlgebra::sparse || model.constraints() >= constraint_sparse_threshold;
}

SparseConstraintJacobian::SparseConstraintJacobian(const Model& model) : model_(&model) {
    const mdl_sparsity& p = model.kernels().constraint_jacobian_pattern;
    std::vector<Eigen::Triplet<double, int>> entries;
    entries.reserve(p.nonzeros);
    for (unsigned i = 0; i < p.rows; ++i) {
        for (unsigned e = p.row_start[i]; e < p.row_start[i + 1]; ++e) {
            entries.emplace_back(static_cast<int>(i), static_cast<int>(p.column[e]), 0.0);
        }
    }
    G_.resize(model.constraints(), model.positions());
    G_.setFromTriplets(entries.begin(), entries.end());
    G_.makeCompressed(); // the kernel's order: rows, columns ascending
}

void SparseConstraintJacobian::evaluate(double t, const Vector& q) {
    model_->constraint_jacobian_values(t, q, G_.valuePtr());
}

void SparseConstraintGram::factorize(const RowSparseMatrix& G, double t, std::string_view method) {
    S_ = G * model_->inverse_mass().asDiagonal() * G.transpose();
    if (!analyzed_) {
        ldlt_.analyzePattern(S_);
        analyzed_ = true;
    }
    ldlt_.factorize(S_);
    // P S P^T = L D L^T: the pivot of constraint i is D at its place in the ordering
    const Vector& d = ldlt_.vectorD();
    const auto& order = ldlt_.permutationP().indices();
    Eigen::Index failed = -1;
    bool vanishes = false;
    for (Eigen::Index i = 0; i < S_.rows(); ++i) {
        const double diagonal = S_.coeff(i, i);
        const double pivot = ldlt_.info() == Eigen::Success ? d[order[i]] : 0.0;
        if (!(diagonal > 0.0) || !(pivot > 1e-12 * diagonal)) {
            failed = i;
            vanishes = !(diagonal > 0.0);
            break;
        }
    }
    if (failed >= 0) {
        throw NumericalFailure(
            FailureKind::singular_constraint_jacobian, method, t, constraint_label(*model_, failed),
            vanishes ? "the gradient of the constraint vanishes (or is not finite), so it "
                       "cannot be enforced by a constraint force: write it so that "
                       "dg/dq != 0 on g = 0 (e.g. x^2 + y^2 = l^2, not (x^2 + y^2 - l^2)^2)"
                     : "the constraint gradient is linearly dependent on those of other "
                       "constraints (redundant or locked constraints), so the multipliers are "
                       "not determined");
    }
}

void SparseConstraintGram::solve_in_place(Vector& b) const {
    b = ldlt_.solve(b);
}

void acceleration_multipliers(const SparseConstraintGram& gram, const RowSparseMatrix& G,
                              const Vector& a, const Vector& curvature, Vector& lambda) {
    lambda.noalias() = G * a;
    lambda += curvature;
    lambda = -lambda;
    gram.solve_in_place(lambda);
}

void scaled_constraint_directions(const Model& model, const RowSparseMatrix& G, double c,
                                  SparseMatrix& D) {
    D = G.transpose(); // the same arrays read as compressed columns
    double* value = D.valuePtr();
    const int* row = D.innerIndexPtr();
    const Vector& w = model.inverse_mass();
    for (Eigen::Index e = 0; e < D.nonZeros(); ++e) {
        value[e] *= c * w[row[e]];
    }
}

SparsePositionConstraintNewton::SparsePositionConstraintNewton(const Model& model)
    : model_(&model), G_(model), g_(Vector::Zero(model.constraints())),
      dlambda_(Vector::Zero(model.constraints())) {}

int SparsePositionConstraintNewton::solve(const Vector& x_free, const SparseMatrix& D,
                                          const SolverOptions& options, double t, double h,
                                          std::string_view method, Vector& lambda, Vector& x) {
    return position_multiplier_newton(
        *model_, x_free, D, options, t, h, method, lambda, x, g_,
        [&](const Vector& at, const Vector& g) -> const Vector* {
            G_.evaluate(t, at);
            J_ = G_.matrix() * D;
            J_.makeCompressed();
            if (pattern_.size() != static_cast<std::size_t>(J_.nonZeros()) ||
                !std::equal(pattern_.begin(), pattern_.end(), J_.innerIndexPtr())) {
                pattern_.assign(J_.innerIndexPtr(), J_.innerIndexPtr() + J_.nonZeros());
                lu_.analyze(J_);
            }
            if (!lu_.factorize(J_) || !lu_.solve(g, dlambda_)) {
                return nullptr;
            }
            return &dlambda_;
        });
}

} // namespace mdl::runtime
