#include "runtime/analysis/modes.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <Eigen/SVD>

#include <algorithm>
#include <cmath>
#include <complex>

namespace mdl::runtime {

std::string_view to_string(ModeKind kind) {
    switch (kind) {
    case ModeKind::rigid_body:
        return "rigid body";
    case ModeKind::oscillatory:
        return "oscillatory";
    case ModeKind::overdamped:
        return "overdamped";
    case ModeKind::unstable:
        return "unstable";
    }
    return "mode";
}

namespace {

using Dense = Eigen::MatrixXd; // column-major, what the eigensolvers take

// phi = N psi scaled to phi^T M phi = 1, its (first) largest component positive.
Vector full_shape(const Linearization& l, const Eigen::VectorXd& psi) {
    Vector phi = l.N * psi;
    const double norm2 = phi.dot(l.M * phi);
    if (norm2 > 0) {
        phi /= std::sqrt(norm2);
    }
    // the first of the largest components (equal ones within round-off) made positive
    const double largest = phi.size() > 0 ? phi.cwiseAbs().maxCoeff() : 0.0;
    for (Eigen::Index i = 0; i < phi.size(); ++i) {
        if (std::abs(phi[i]) >= (1 - 1e-8) * largest) {
            if (phi[i] < 0) {
                phi = -phi;
            }
            break;
        }
    }
    return phi;
}

std::vector<Mode> undamped_modes(const Linearization& l, const Dense& M, const Dense& K) {
    Eigen::GeneralizedSelfAdjointEigenSolver<Dense> solver(K, M);
    const Eigen::VectorXd& w2 = solver.eigenvalues();
    const double scale = w2.size() > 0 ? w2.cwiseAbs().maxCoeff() : 0.0;
    std::vector<Mode> modes;
    for (Eigen::Index j = 0; j < w2.size(); ++j) {
        Mode mode;
        if (std::abs(w2[j]) <= 1e-9 * scale || scale == 0) {
            mode.kind = ModeKind::rigid_body;
        } else if (w2[j] > 0) {
            mode.omega = std::sqrt(w2[j]);
        } else {
            mode.omega = std::sqrt(-w2[j]);
            mode.damping_ratio = -1;
            mode.kind = ModeKind::unstable;
        }
        mode.shape = full_shape(l, solver.eigenvectors().col(j));
        modes.push_back(std::move(mode));
    }
    return modes;
}

// An orthonormal basis of the null space of K_r (its rigid-body motions).
Dense stiffness_null_space(const Dense& K) {
    const Eigen::Index d = K.rows();
    Eigen::JacobiSVD<Dense> svd(K, Eigen::ComputeFullV);
    const Eigen::VectorXd& sigma = svd.singularValues();
    const double largest = d > 0 ? sigma[0] : 0.0;
    Eigen::Index rank = 0;
    while (rank < d && sigma[rank] > 1e-9 * largest) {
        ++rank;
    }
    return svd.matrixV().rightCols(d - rank);
}

std::vector<Mode> damped_modes(const Linearization& l, const Dense& M, const Dense& C,
                               const Dense& K) {
    const Eigen::Index d = M.rows();
    std::vector<Mode> modes;
    // the rigid-body modes, M_r-orthonormalized, and how many eigenvalues s = 0 they take:
    // two per rigid motion that no damper resists, one per motion that one does
    const Dense V = stiffness_null_space(K);
    Eigen::Index zeros = 2 * V.cols();
    if (V.cols() > 0) {
        Eigen::SelfAdjointEigenSolver<Dense> inner(V.transpose() * M * V);
        for (Eigen::Index j = 0; j < V.cols(); ++j) {
            Mode mode;
            mode.kind = ModeKind::rigid_body;
            mode.shape = full_shape(l, V * inner.eigenvectors().col(j));
            modes.push_back(std::move(mode));
        }
        Eigen::ColPivHouseholderQR<Dense> damped(V.transpose() * C * V);
        damped.setThreshold(1e-9);
        zeros -= damped.rank();
    }
    Dense A = Dense::Zero(2 * d, 2 * d);
    const Eigen::LLT<Dense> llt(M);
    A.topRightCorner(d, d).setIdentity();
    A.bottomLeftCorner(d, d) = -llt.solve(K);
    A.bottomRightCorner(d, d) = -llt.solve(C);
    Eigen::EigenSolver<Dense> solver(A);
    const Eigen::VectorXcd& s = solver.eigenvalues();
    // the `zeros` eigenvalues of least modulus are the rigid-body modes' s = 0
    std::vector<Eigen::Index> order(static_cast<std::size_t>(s.size()));
    for (Eigen::Index j = 0; j < s.size(); ++j) {
        order[static_cast<std::size_t>(j)] = j;
    }
    std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) {
        return std::abs(s[a]) < std::abs(s[b]);
    });
    for (std::size_t k = static_cast<std::size_t>(zeros); k < order.size(); ++k) {
        const Eigen::Index j = order[k];
        const double size = std::abs(s[j]);
        const bool real = std::abs(s[j].imag()) <= 1e-10 * size;
        if (!real && s[j].imag() < 0) {
            continue; // the conjugate of a pair counted once
        }
        Mode mode;
        mode.omega = size;
        mode.damping_ratio = real ? (s[j].real() < 0 ? 1.0 : -1.0) : -s[j].real() / size;
        mode.kind = s[j].real() > 1e-12 * size ? ModeKind::unstable
                    : real                     ? ModeKind::overdamped
                                               : ModeKind::oscillatory;
        Eigen::VectorXcd x = solver.eigenvectors().col(j).head(d);
        Eigen::Index big = 0;
        x.cwiseAbs().maxCoeff(&big);
        if (std::abs(x[big]) > 0) {
            x *= std::conj(x[big]) / std::abs(x[big]);
        }
        mode.shape = full_shape(l, x.real());
        modes.push_back(std::move(mode));
    }
    return modes;
}

} // namespace

std::vector<Mode> natural_modes(const Linearization& l) {
    const Dense M = 0.5 * (l.M_r + l.M_r.transpose());
    const Dense K = l.K_r, C = l.C_r;
    const double k_scale = K.cwiseAbs().maxCoeff();
    const bool symmetric =
        K.rows() == 0 || (K - K.transpose()).cwiseAbs().maxCoeff() <= 1e-12 * k_scale;
    std::vector<Mode> modes;
    if (symmetric && (C.array() == 0).all()) {
        modes = undamped_modes(l, M, 0.5 * (K + K.transpose()));
    } else {
        modes = damped_modes(l, M, C, K);
    }
    std::stable_sort(modes.begin(), modes.end(), [](const Mode& a, const Mode& b) {
        return a.omega != b.omega ? a.omega < b.omega : a.damping_ratio < b.damping_ratio;
    });
    return modes;
}

} // namespace mdl::runtime
