#include "runtime/consistent_start.hpp"

#include "runtime/numerical_failure.hpp"

#include <Eigen/Cholesky>
#include <Eigen/QR>

#include <algorithm>
#include <cmath>
#include <utility>

namespace mdl::runtime {

namespace {

std::string quoted_list(const Model& model, const std::vector<int>& constraints) {
    std::string out;
    for (int i : constraints) {
        out += (out.empty() ? "'" : ", '") + model.constraint_name(i) + "'";
    }
    return out;
}

// The projection's setting: free positions F, their weights W (diagonal of M at the start).
struct Projection {
    std::vector<Eigen::Index> free;
    Vector weight; // per free position
};

// G restricted to the free positions.
Matrix free_columns(const Matrix& G, const Projection& p) {
    Matrix out(G.rows(), static_cast<Eigen::Index>(p.free.size()));
    for (std::size_t j = 0; j < p.free.size(); ++j) {
        out.col(static_cast<Eigen::Index>(j)) = G.col(p.free[j]);
    }
    return out;
}

// The constraints whose rows of G_F W^-1/2 depend on the others: column-pivoted QR of its
// transpose takes the independent rows first; the rest are redundant.
std::vector<int> redundant_rows(const Matrix& GF, const Projection& p) {
    Matrix scaled = GF;
    for (Eigen::Index j = 0; j < scaled.cols(); ++j) {
        scaled.col(j) /= std::sqrt(p.weight(j));
    }
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(scaled.transpose());
    qr.setThreshold(1e-9);
    std::vector<int> out;
    const auto& pivots = qr.colsPermutation().indices();
    for (Eigen::Index k = qr.rank(); k < pivots.size(); ++k) {
        out.push_back(pivots(k));
    }
    std::sort(out.begin(), out.end());
    return out;
}

// W^-1 G_F^T (G_F W^-1 G_F^T)^-1 r, on the free positions.
Vector weighted_correction(const Matrix& GF, const Projection& p, const Vector& r) {
    Matrix scaled = GF;
    for (Eigen::Index j = 0; j < scaled.cols(); ++j) {
        scaled.col(j) /= p.weight(j);
    }
    const Matrix S = scaled * GF.transpose();
    const Vector y = S.ldlt().solve(r);
    return scaled.transpose() * y;
}

} // namespace

InconsistentStart::InconsistentStart(std::string message, std::vector<int> unmet,
                                     std::vector<int> redundant)
    : std::runtime_error(std::move(message)), unmet_(std::move(unmet)),
      redundant_(std::move(redundant)) {}

std::vector<std::string> ConsistentStart::lines() const {
    std::vector<std::string> out;
    for (const auto& c : changes) {
        out.push_back("consistent start: changed '" + c.name + "' from " + format_number(c.from) +
                      " to " + format_number(c.to) + " (by " + format_number(c.to - c.from) + ")");
    }
    return out;
}

ConsistentStart make_start_consistent(const Model& model, State& state,
                                      const std::vector<bool>& fixed,
                                      const ConsistentStartOptions& options) {
    ConsistentStart result;
    const Eigen::Index n = model.positions(), m = model.constraints();
    if (m == 0) {
        return result;
    }
    Matrix M(n, n);
    model.mass_matrix(state.q, M);
    Projection p;
    for (Eigen::Index i = 0; i < n; ++i) {
        if (fixed.empty() || !fixed[static_cast<std::size_t>(i)]) {
            p.free.push_back(i);
        }
    }
    p.weight.resize(static_cast<Eigen::Index>(p.free.size()));
    for (std::size_t j = 0; j < p.free.size(); ++j) {
        p.weight(static_cast<Eigen::Index>(j)) = M(p.free[j], p.free[j]);
    }

    const Vector q0 = state.q, v0 = state.v;
    Vector g(m);
    Matrix G(m, n);
    const double t0 = state.t; // rheonomic constraints: g(t0, q) = 0, G v + g_t(t0, q) = 0
    model.constraint(t0, state.q, g);
    model.constraint_jacobian(t0, state.q, G);
    const std::vector<int> redundant = redundant_rows(free_columns(G, p), p);
    if (!redundant.empty()) {
        const bool some_fixed = p.free.size() < static_cast<std::size_t>(n);
        const bool several = redundant.size() > 1;
        const std::string which = "inconsistent start: the constraint" +
                                  std::string(several ? "s " : " ") + quoted_list(model, redundant);
        throw InconsistentStart(
            some_fixed ? which +
                             " cannot be met independently with the start values marked fixed = "
                             "true kept (" +
                             (several ? "their rows" : "its row") +
                             " of the Jacobian in the free positions " +
                             (several ? "are zero or depend" : "is zero or depends") +
                             " on the others); fix fewer start values or remove redundant "
                             "constraints"
                       : which + (several ? " depend" : " depends") +
                             " on the others at the start (their Jacobian rows are linearly "
                             "dependent), so the constraint forces are not determined; remove the "
                             "redundant constraints",
            {}, redundant);
    }

    const double q_scale = 1.0 + q0.lpNorm<Eigen::Infinity>();
    auto met = [&](const Vector& residual) {
        return residual.allFinite() &&
               residual.lpNorm<Eigen::Infinity>() <= options.tolerance * q_scale;
    };
    Vector q = q0;
    // One Newton step from q: q0 + W^-1 G^T y on the free positions.
    auto newton_step = [&](const Vector& from, const Vector& residual, const Matrix& jacobian) {
        const Matrix GF = free_columns(jacobian, p);
        Vector offset(static_cast<Eigen::Index>(p.free.size()));
        for (std::size_t j = 0; j < p.free.size(); ++j) {
            offset(static_cast<Eigen::Index>(j)) = from(p.free[j]) - q0(p.free[j]);
        }
        const Vector step = weighted_correction(GF, p, GF * offset - residual);
        Vector to = from;
        for (std::size_t j = 0; j < p.free.size(); ++j) {
            to(p.free[j]) = q0(p.free[j]) + step(static_cast<Eigen::Index>(j));
        }
        return to;
    };
    while (!met(g)) {
        if (result.newton_iterations == options.max_iterations || !q.allFinite()) {
            std::vector<int> unmet;
            std::string list;
            for (Eigen::Index i = 0; i < m; ++i) {
                if (!std::isfinite(g(i)) || std::abs(g(i)) > options.tolerance * q_scale) {
                    unmet.push_back(static_cast<int>(i));
                    list += (list.empty() ? "'" : ", '") + model.constraint_name(i) +
                            "' (residual " + format_number(g(i)) + ")";
                }
            }
            const bool some_fixed = p.free.size() < static_cast<std::size_t>(n);
            throw InconsistentStart(
                "inconsistent start: the constraint" + std::string(unmet.size() > 1 ? "s " : " ") +
                    list + " cannot be met" +
                    (some_fixed ? " with the start values marked fixed = true kept" : "") +
                    ": Newton's method on the constraints did not converge in " +
                    std::to_string(options.max_iterations) + " iterations; check the " +
                    "dimensions and start values" + (some_fixed ? " or fix fewer of them" : ""),
                unmet, {});
        }
        q = newton_step(q, g, G);
        model.constraint(t0, q, g);
        model.constraint_jacobian(t0, q, G);
        ++result.newton_iterations;
    }
    if (result.newton_iterations > 0) {
        // Newton converges quadratically: one more step takes the accepted iterate (|g| below
        // the tolerance) to round-off, so the start does not carry the tolerance as an error.
        const Vector polished = newton_step(q, g, G);
        Vector g2(m);
        model.constraint(t0, polished, g2);
        if (g2.allFinite() && g2.lpNorm<Eigen::Infinity>() < g.lpNorm<Eigen::Infinity>()) {
            q = polished;
            g = g2;
            model.constraint_jacobian(t0, q, G);
        }
    }
    result.residual = g.lpNorm<Eigen::Infinity>();

    // Velocities at the (new) positions: the M-orthogonal projection onto G v + g_t = 0.
    Vector v = v0;
    Vector Gv = G * v;
    if (model.rheonomic()) {
        Vector rate(m);
        model.constraint_rate(t0, q, rate);
        Gv += rate;
    }
    const double v_scale = 1.0 + v0.lpNorm<Eigen::Infinity>();
    if (Gv.lpNorm<Eigen::Infinity>() > options.tolerance * v_scale) {
        const Matrix GF = free_columns(G, p);
        const Vector step = weighted_correction(GF, p, Gv);
        for (std::size_t j = 0; j < p.free.size(); ++j) {
            v(p.free[j]) -= step(static_cast<Eigen::Index>(j));
        }
    }
    // Changes at the level of round-off (a value the constraints already fixed, recomputed)
    // are undone rather than reported: the residuals stay at round-off either way.
    const double roundoff = 1e-14;
    for (Eigen::Index i = 0; i < n; ++i) {
        if (std::abs(q(i) - q0(i)) <= roundoff * q_scale) {
            q(i) = q0(i);
        } else {
            result.changes.push_back({model.position_name(i), q0(i), q(i)});
        }
    }
    for (Eigen::Index i = 0; i < n; ++i) {
        if (std::abs(v(i) - v0(i)) <= roundoff * (v_scale + v.lpNorm<Eigen::Infinity>())) {
            v(i) = v0(i);
        } else {
            result.changes.push_back({model.velocity_name(i), v0(i), v(i)});
        }
    }
    state.q = q;
    state.v = v;
    return result;
}

} // namespace mdl::runtime
