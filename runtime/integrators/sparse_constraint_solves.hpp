// The constraint solves of SHAKE and RATTLE for many constraints (issue 19): G from the
// compiler's constraint_jacobian_values kernel in compressed sparse rows, the Gram matrix
// S = G M^-1 G^T factorized by a sparse Cholesky (LDL^T, Eigen's SimplicialLDLT with AMD
// ordering), and the Newton matrix G(x) M^-1 G(q_n)^T of the position stage by a sparse LU
// (SparseLuSolver: KLU). The dense path (lagrange_multipliers.hpp) forms S in m^2 n and
// factorizes it in m^3, and G D in m^2 n per Newton iteration; on a chain of m links the
// sparse matrices have O(m) entries and their factors too.
//
// Same arithmetic up to the order of the operations: the trajectories of SHAKE and RATTLE
// on the sparse and the dense path agree to round-off (tests/api/sparse_constraints_test.cpp).
#pragma once

#include "runtime/integrators/stepper_support.hpp"
#include "runtime/model.hpp"
#include "runtime/sparse_jacobians.hpp"

#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>

#include <string_view>

namespace mdl::runtime {

using RowSparseMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;

// From this many constraints on, `automatic` takes the sparse path in SHAKE and RATTLE (and
// IDA's consistent start). Measured with `mdl_bench --benchmark_filter='^constraint_step/'`
// on the pendulum chain (docs/performance.md): a sparse RATTLE step costs 1.5x the dense one
// at 8 constraints, 0.68x at 16 and 0.22x at 32.
inline constexpr Eigen::Index constraint_sparse_threshold = 16;

// The model has the sparse constraint Jacobian kernel (every model compiled since issue 19).
bool has_sparse_constraint_jacobian(const Model& model);
// Whether SHAKE or RATTLE given `choice` uses the sparse constraint solves on `model`.
bool use_sparse_constraints(const Model& model, LinearAlgebra choice);

// G(q) = dg/dq (m x n) of the kernel's fixed pattern.
class SparseConstraintJacobian {
public:
    explicit SparseConstraintJacobian(const Model& model);
    void evaluate(double t, const Vector& q); // G(t, q)
    const RowSparseMatrix& matrix() const { return G_; }

private:
    const Model* model_;
    RowSparseMatrix G_;
};

// S = G M^-1 G^T by sparse LDL^T; a pivot below 1e-12 of its diagonal entry names the
// constraint, as ConstraintGram does.
class SparseConstraintGram {
public:
    explicit SparseConstraintGram(const Model& model) : model_(&model) {}
    // Throws NumericalFailure(singular_constraint_jacobian) at time t for method.
    void factorize(const RowSparseMatrix& G, double t, std::string_view method);
    void solve_in_place(Vector& b) const; // b <- S^-1 b

private:
    const Model* model_;
    SparseMatrix S_;
    Eigen::SimplicialLDLT<SparseMatrix, Eigen::Lower, Eigen::AMDOrdering<int>> ldlt_;
    bool analyzed_ = false;
};

// lambda with S lambda = -(G a + curvature), as acceleration_multipliers.
void acceleration_multipliers(const SparseConstraintGram& gram, const RowSparseMatrix& G,
                              const Vector& a, const Vector& curvature, Vector& lambda);

// D = c M^-1 G^T (n x m, compressed columns)
void scaled_constraint_directions(const Model& model, const RowSparseMatrix& G, double c,
                                  SparseMatrix& D);

// PositionConstraintNewton with sparse matrices: g(x_free + D lambda) = 0 by Newton's method
// with the matrix G(x) D factorized by SparseLuSolver; the same messages.
class SparsePositionConstraintNewton {
public:
    explicit SparsePositionConstraintNewton(const Model& model);
    int solve(const Vector& x_free, const SparseMatrix& D, const SolverOptions& options, double t,
              double h, std::string_view method, Vector& lambda, Vector& x);

private:
    const Model* model_;
    SparseConstraintJacobian G_;
    Vector g_, dlambda_;
    SparseMatrix J_;
    SparseLuSolver lu_;
    std::vector<int> pattern_; // J_'s inner indices at the last analysis
};

} // namespace mdl::runtime
