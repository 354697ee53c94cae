// The residual F(t, y, y') of IDA's stabilized index-2 form (ida.hpp) and its Newton matrix
// J = dF/dy + c_j dF/dy', the matrix IDA factorizes (Brenan, Campbell & Petzold, Numerical
// Solution of Initial-Value Problems in Differential-Algebraic Equations, SIAM 1996,
// sect. 5.2). With y = (q, v, lambda, mu) and a mass matrix that does not depend on q:
//
//            q           v              lambda   mu
//   r_q   [ c_j I - H_mu  -I              0      -G^T ]
//   r_v   [ -f_q - H_lam  c_j M - f_v    -G^T     0   ]
//   G v   [ C_v            G              0       0   ]     (G v + g_t when g(t, q))
//   g     [ G              0              0       0   ]
//
// f_q, f_v and G are the compiler's kernels (their sparse values kernels, kernel_abi.h).
// The second derivatives of the constraints have no kernel: H_lam = d(G^T lambda)/dq,
// H_mu = d(G^T mu)/dq and C_v = d(G v + g_t)/dq are central differences of the G (and g_t)
// kernels, one pair
// of evaluations per colour of a column colouring of their pattern (Curtis, Powell & Reid,
// "On the estimation of sparse Jacobian matrices", IMA J. Appl. Math. 13, 1974): columns
// j and j' share a colour when no constraint couples them, so a chain of any length costs
// 10 pairs. G is affine in q for linear and quadratic (distance) constraints, and the
// differences are then exact to round-off.
//
// The matrix has a fixed sparse pattern (sparse_jacobians.hpp: FixedPatternMatrix); IDA's
// dense solver gets it spread out, the sparse one (KLU) in compressed columns.
#pragma once

#include "runtime/model.hpp"
#include "runtime/sparse_jacobians.hpp"

#include <string>
#include <vector>

namespace mdl::runtime {

// A matrix kernel's values in compressed sparse rows: the model's pattern and values kernel,
// or every entry of the dense kernel when the kernel table has no values kernel.
struct KernelCsr {
    Eigen::Index rows = 0, columns = 0;
    std::vector<int> row_start, column; // rows + 1, nonzeros
    std::vector<double> value;          // nonzeros
    std::size_t nonzeros() const { return column.size(); }
};

class IdaResidual {
public:
    explicit IdaResidual(const Model& model);

    Eigen::Index size() const { return 2 * n_ + k_ + 2 * m_; }
    // Unknowns 0 .. differential() - 1 are q, v, x; the rest the multipliers lambda, mu.
    Eigen::Index differential() const { return 2 * n_ + k_; }
    // The unknown at index i of y, for messages.
    std::string name(Eigen::Index i) const;

    // r = F(t, y, y') (size() each). Returns the index of the first entry of r that is not
    // finite, or -1.
    Eigen::Index evaluate(double t, const double* y, const double* yp, double* r);

    // The Newton matrix from the kernels applies: force Jacobian kernels, no first-order
    // states (their rates have no Jacobian kernel) and a mass matrix independent of q.
    static bool has_newton_matrix(const Model& model);
    // J = dF/dy + cj dF/dy' at (t, y, y') into matrix(), whose pattern is fixed at
    // construction; false when an entry is not finite. has_newton_matrix() must hold.
    bool newton_matrix(double t, const double* y, const double* yp, double cj);
    const SparseMatrix& matrix() const { return jacobian_.matrix(); }
    // The number of colours of the constraint second derivatives' differences.
    int colours() const { return colours_; }

private:
    void unpack(const double* y, const double* yp);
    void constraint_jacobian(double t, const Vector& q, std::vector<double>& values) const;
    void build_pattern();
    void colour_constraint_columns();

    const Model* model_;
    Eigen::Index n_ = 0, k_ = 0, m_ = 0;
    bool diagonal_mass_ = true;
    bool dense_constraints_ = false; // G v, G^T lambda, G^T mu as dense products
    Vector q_, v_, x_, lambda_, mu_, qdot_, vdot_, xdot_, theta_, f_, rates_, g_, work_;
    Matrix M_, dense_; // M (not constant diagonal), G (dense_constraints_)
    KernelCsr G_, f_q_, f_v_;
    // The constraint second derivatives: pattern P (n x n, symmetric: the union of
    // supp(g_i) x supp(g_i)) in compressed columns, the colour of each column (-1: in no
    // constraint), the columns of each colour, G's entries by column.
    std::vector<int> p_start_, p_row_, colour_, g_column_start_, g_entry_, g_entry_row_;
    std::vector<std::vector<int>> colour_columns_;
    int colours_ = 0;
    std::vector<double> h_lambda_, h_mu_, c_v_, g_plus_, g_minus_, mass_values_;
    Vector x_plus_lambda_, x_minus_lambda_, x_plus_mu_, x_minus_mu_, gv_plus_, gv_minus_, q_step_;
    Vector rate_, rate_plus_, rate_minus_; // g_t of rheonomic constraints (G v + g_t = 0)
    FixedPatternMatrix jacobian_;
    // sources of jacobian_
    std::size_t s_qq_, s_hmu_, s_qv_, s_qmu_, s_fq_, s_hlam_, s_mass_, s_fv_, s_vlam_, s_cv_, s_lv_,
        s_uq_;
};

} // namespace mdl::runtime
