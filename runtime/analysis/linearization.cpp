#include "runtime/analysis/linearization.hpp"

#include "runtime/analysis/constraint_hessian.hpp"

#include <Eigen/QR>

namespace mdl::runtime {

namespace {

// An orthonormal basis of the null space of G (m x n): the last n - rank columns of Q in
// G^T P = Q R.
Matrix null_space(const Matrix& G) {
    const Eigen::Index n = G.cols();
    if (G.rows() == 0) {
        return Matrix::Identity(n, n);
    }
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(G.transpose());
    qr.setThreshold(1e-10);
    const Eigen::Index rank = qr.rank();
    const Eigen::MatrixXd Q = qr.householderQ() * Eigen::MatrixXd::Identity(n, n);
    return Q.rightCols(n - rank);
}

} // namespace

Linearization linearize(const StaticForce& force, const Equilibrium& equilibrium) {
    const Model& model = force.model();
    const Eigen::Index n = model.positions(), m = model.constraints();
    Linearization l;
    l.q = equilibrium.q;
    l.lambda = equilibrium.lambda;
    Matrix f_q(n, n), f_v(n, n);
    force.jacobians(l.q, f_q, f_v);
    model.mass_matrix(l.q, l.M);
    l.C = -f_v;
    l.K = -f_q;
    Matrix G(m, n);
    if (m > 0) {
        Matrix H(n, n);
        weighted_constraint_hessian(model, l.q, l.lambda, H);
        l.K -= H;
        model.constraint_jacobian(l.q, G);
    }
    l.N = null_space(G);
    l.M_r = l.N.transpose() * l.M * l.N;
    l.C_r = l.N.transpose() * l.C * l.N;
    l.K_r = l.N.transpose() * l.K * l.N;
    return l;
}

} // namespace mdl::runtime
