#include "symbolic/derive_kernels.hpp"

#include "symbolic/dependence.hpp"
#include "symbolic/derivative.hpp"
#include "symbolic/simplify.hpp"

#include <span>
#include <vector>

namespace mdl::symbolic {

namespace {

// d e/dt at fixed q and v for each root: the partial derivative in t plus, for each phase
// theta_k = omega_k t + c_k, omega_k d e/d theta_k.
std::vector<ExprId> time_derivative(ExprPool& pool, std::span<const ExprId> roots,
                                    const std::vector<ExprId>& phase_rates) {
    std::vector<ExprId> out = differentiate(pool, roots, Variable{VarKind::time, 0});
    for (std::uint32_t k = 0; k < phase_rates.size(); ++k) {
        const Variable theta{VarKind::phase, k};
        if (!depends_on(pool, roots, theta)) {
            continue;
        }
        const std::vector<ExprId> d = differentiate(pool, roots, theta);
        for (std::size_t i = 0; i < out.size(); ++i) {
            out[i] = pool.add(out[i], pool.mul(phase_rates[k], d[i]));
        }
    }
    return out;
}

// sum_k d e_i/d q_k v_k for each root: the derivative of e(q) along the velocity.
std::vector<ExprId> along_velocity(ExprPool& pool, std::span<const ExprId> roots, std::uint32_t n) {
    const SparseJacobian d = sparse_jacobian(pool, roots, VarKind::position, n);
    std::vector<ExprId> out(roots.size());
    std::vector<ExprId> terms;
    for (std::uint32_t i = 0; i < roots.size(); ++i) {
        terms.clear();
        for (std::uint32_t e = d.pattern.row_start[i]; e < d.pattern.row_start[i + 1]; ++e) {
            terms.push_back(
                pool.mul(d.values[e], pool.variable({VarKind::velocity, d.pattern.column[e]})));
        }
        out[i] = pool.add(terms);
    }
    return out;
}

// dg/dt of the event indicators along the motion, grad_q g . v + g_t (the phases moving at
// their rates), when they depend on t, q, the phases and parameters only; none otherwise (an
// indicator of v or x would need the accelerations: the runtime differentiates numerically).
std::vector<ExprId> indicator_rates(System& system) {
    ExprPool& pool = system.pool();
    const std::vector<ExprId> g = system.outputs(Kernel::event_indicator);
    if (g.empty() || depends_on(pool, g, VarKind::velocity) ||
        depends_on(pool, g, VarKind::state)) {
        return {};
    }
    const std::vector<ExprId> along = along_velocity(pool, g, system.sizes().positions);
    const std::vector<ExprId> in_time =
        time_derivative(pool, g, system.outputs(Kernel::phase_rate));
    std::vector<ExprId> out(g.size());
    for (std::size_t i = 0; i < g.size(); ++i) {
        out[i] = pool.add(along[i], in_time[i]);
    }
    return out;
}

} // namespace

void derive_kernels(System& system) {
    ExprPool& pool = system.pool();
    const std::uint32_t n = system.sizes().positions;
    const std::uint32_t m = system.sizes().constraints;

    const std::vector<ExprId> g = system.outputs(Kernel::constraint);
    SparseJacobian jac = sparse_jacobian(pool, g, VarKind::position, n);

    // G v, one expression per constraint, then its derivative along v.
    std::vector<ExprId> g_dot(m);
    std::vector<ExprId> terms;
    for (std::uint32_t i = 0; i < m; ++i) {
        terms.clear();
        for (std::uint32_t e = jac.pattern.row_start[i]; e < jac.pattern.row_start[i + 1]; ++e) {
            const std::uint32_t j = jac.pattern.column[e];
            terms.push_back(pool.mul(jac.values[e], pool.variable({VarKind::velocity, j})));
        }
        g_dot[i] = pool.add(terms);
    }
    const SparseJacobian g_dot_dq = sparse_jacobian(pool, g_dot, VarKind::position, n);
    std::vector<ExprId> curvature(m);
    for (std::uint32_t i = 0; i < m; ++i) {
        terms.clear();
        for (std::uint32_t e = g_dot_dq.pattern.row_start[i]; e < g_dot_dq.pattern.row_start[i + 1];
             ++e) {
            const ExprId v_k = pool.variable({VarKind::velocity, g_dot_dq.pattern.column[e]});
            terms.push_back(pool.mul(g_dot_dq.values[e], v_k));
        }
        curvature[i] = pool.add(terms);
    }

    if (system.outputs(Kernel::phase_rate).empty()) {
        const Variable t{VarKind::time, 0};
        system.outputs(Kernel::phase_rate) = differentiate(pool, system.outputs(Kernel::phase), t);
    }
    // A rheonomic g(t, q) (time, or a phase through a moving anchor or a driven joint):
    // g' = G v + g_t, and g'' = G q'' + curvature with the curvature
    // (d/dq (G v + g_t)) v + d/dt (G v + g_t), the time derivatives at fixed q and v.
    std::vector<ExprId> rate;
    if (depends_on(pool, g, VarKind::time) || depends_on(pool, g, VarKind::phase)) {
        const std::vector<ExprId>& omega = system.outputs(Kernel::phase_rate);
        rate = time_derivative(pool, g, omega);
        std::vector<ExprId> first(m);
        for (std::uint32_t i = 0; i < m; ++i) {
            first[i] = pool.add(g_dot[i], rate[i]);
        }
        const std::vector<ExprId> along = along_velocity(pool, first, n);
        const std::vector<ExprId> in_time = time_derivative(pool, first, omega);
        for (std::uint32_t i = 0; i < m; ++i) {
            curvature[i] = pool.add(along[i], in_time[i]);
        }
    }

    const std::vector<ExprId> f = system.outputs(Kernel::force);
    // differentiated in the split form, whose derivatives come out in closed form (simplify.hpp)
    const std::vector<ExprId> f_split = split_term_quotients(pool, f);
    SparseJacobian f_dq = sparse_jacobian(pool, f_split, VarKind::position, n);
    SparseJacobian f_dv = sparse_jacobian(pool, f_split, VarKind::velocity, n);

    // A system without kinetic energy has M = diag(mass); a kinetic energy's M (all n x n
    // entries, equations_of_motion) keeps its structural nonzeros.
    if (system.outputs(Kernel::mass_matrix).empty()) {
        const std::vector<ExprId>& mass = system.outputs(Kernel::mass);
        Sparsity diagonal;
        diagonal.rows = n;
        diagonal.columns = n;
        std::vector<ExprId> values;
        for (std::uint32_t i = 0; i < n && i < mass.size(); ++i) {
            diagonal.column.push_back(i);
            values.push_back(mass[i]);
            diagonal.row_start.push_back(static_cast<std::uint32_t>(diagonal.column.size()));
        }
        diagonal.row_start.resize(static_cast<std::size_t>(n) + 1, diagonal.row_start.back());
        system.set_sparse(Kernel::mass_matrix, std::move(diagonal), std::move(values));
    } else if (!system.is_sparse(Kernel::mass_matrix)) {
        const std::vector<ExprId> matrix = system.outputs(Kernel::mass_matrix);
        system.set_from_dense(Kernel::mass_matrix, matrix);
    }
    {
        const std::vector<ExprId>& values = system.outputs(Kernel::mass_matrix);
        const Sparsity pattern = system.sparsity(Kernel::mass_matrix);
        system.mass_depends_on_positions = depends_on(pool, values, VarKind::position);
        system.mass_coupled = false;
        for (std::uint32_t i = 0; i < pattern.rows; ++i) {
            for (std::uint32_t e = pattern.row_start[i]; e < pattern.row_start[i + 1]; ++e) {
                if (pattern.column[e] != i && !pool.is_constant(values[e], 0.0)) {
                    system.mass_coupled = true;
                }
            }
        }
    }

    system.set_sparse(Kernel::constraint_jacobian, std::move(jac.pattern), std::move(jac.values));
    system.outputs(Kernel::curvature) = std::move(curvature);
    system.outputs(Kernel::constraint_rate) = std::move(rate);
    system.outputs(Kernel::event_rate) = indicator_rates(system);
    system.set_sparse(Kernel::force_dq, std::move(f_dq.pattern), std::move(f_dq.values));
    system.set_sparse(Kernel::force_dv, std::move(f_dv.pattern), std::move(f_dv.values));
    system.velocity_dependent = depends_on(pool, f, VarKind::velocity);
    system.time_dependent = depends_on(pool, f, VarKind::time);
}

} // namespace mdl::symbolic
