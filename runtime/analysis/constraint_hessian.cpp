#include "runtime/analysis/constraint_hessian.hpp"

#include <set>
#include <utility>

namespace mdl::runtime {

namespace {

// The pairs j <= k of positions that share a constraint (from G's pattern; all pairs when
// the kernels carry no pattern).
std::set<std::pair<Eigen::Index, Eigen::Index>> coupled_pairs(const Model& model) {
    std::set<std::pair<Eigen::Index, Eigen::Index>> pairs;
    const mdl_sparsity& p = model.kernels().constraint_jacobian_pattern;
    const Eigen::Index n = model.positions();
    if (p.row_start == nullptr || p.column == nullptr) {
        for (Eigen::Index j = 0; j < n; ++j) {
            for (Eigen::Index k = j; k < n; ++k) {
                pairs.emplace(j, k);
            }
        }
        return pairs;
    }
    for (unsigned row = 0; row < p.rows; ++row) {
        for (unsigned a = p.row_start[row]; a < p.row_start[row + 1]; ++a) {
            for (unsigned b = a; b < p.row_start[row + 1]; ++b) {
                const auto j = static_cast<Eigen::Index>(p.column[a]);
                const auto k = static_cast<Eigen::Index>(p.column[b]);
                pairs.emplace(std::min(j, k), std::max(j, k));
            }
        }
    }
    return pairs;
}

} // namespace

void weighted_constraint_hessian(const Model& model, const Vector& q, const Vector& w,
                                 Matrix& out) {
    const Eigen::Index n = model.positions(), m = model.constraints();
    out.setZero(n, n);
    if (m == 0) {
        return;
    }
    // w . c(e_j), the diagonal terms, first: the off-diagonal ones subtract them
    Vector diagonal = Vector::Zero(n), c(m), v = Vector::Zero(n);
    std::vector<bool> needed(static_cast<std::size_t>(n), false);
    const auto pairs = coupled_pairs(model);
    for (const auto& [j, k] : pairs) {
        needed[static_cast<std::size_t>(j)] = needed[static_cast<std::size_t>(k)] = true;
    }
    for (Eigen::Index j = 0; j < n; ++j) {
        if (!needed[static_cast<std::size_t>(j)]) {
            continue;
        }
        v[j] = 1;
        model.curvature(q, v, c);
        v[j] = 0;
        diagonal[j] = w.dot(c);
        out(j, j) = diagonal[j];
    }
    for (const auto& [j, k] : pairs) {
        if (j == k) {
            continue;
        }
        v[j] = v[k] = 1;
        model.curvature(q, v, c);
        v[j] = v[k] = 0;
        out(j, k) = out(k, j) = 0.5 * (w.dot(c) - diagonal[j] - diagonal[k]);
    }
}

} // namespace mdl::runtime
