#include "symbolic/derive_kernels.hpp"

#include "symbolic/dependence.hpp"
#include "symbolic/derivative.hpp"
#include "symbolic/simplify.hpp"

#include <vector>

namespace mdl::symbolic {

void derive_kernels(System& system) {
    ExprPool& pool = system.pool();
    const std::uint32_t n = system.sizes().positions;
    const std::uint32_t m = system.sizes().constraints;

    const std::vector<ExprId> g = system.outputs(Kernel::constraint);
    std::vector<ExprId> jac = jacobian(pool, g, VarKind::position, n);

    // G v, one expression per constraint, then its derivative along v.
    std::vector<ExprId> g_dot(m);
    std::vector<ExprId> terms;
    for (std::uint32_t i = 0; i < m; ++i) {
        terms.clear();
        for (std::uint32_t j = 0; j < n; ++j) {
            if (jac[i * n + j] != pool.zero()) { // add() drops zero terms: only the work differs
                terms.push_back(pool.mul(jac[i * n + j], pool.variable({VarKind::velocity, j})));
            }
        }
        g_dot[i] = pool.add(terms);
    }
    std::vector<std::vector<ExprId>> curvature_terms(m);
    const std::vector<ExprId> g_dot_dq = jacobian(pool, g_dot, VarKind::position, n);
    for (std::uint32_t k = 0; k < n; ++k) {
        const ExprId v_k = pool.variable({VarKind::velocity, k});
        for (std::uint32_t i = 0; i < m; ++i) {
            const ExprId entry = g_dot_dq[static_cast<std::size_t>(i) * n + k];
            if (entry != pool.zero()) {
                curvature_terms[i].push_back(pool.mul(entry, v_k));
            }
        }
    }
    std::vector<ExprId> curvature(m);
    for (std::uint32_t i = 0; i < m; ++i) {
        curvature[i] = pool.add(curvature_terms[i]);
    }

    const std::vector<ExprId> f = system.outputs(Kernel::force);
    // differentiated in the split form, whose derivatives come out in closed form (simplify.hpp)
    const std::vector<ExprId> f_split = split_term_quotients(pool, f);
    std::vector<ExprId> f_dq = jacobian(pool, f_split, VarKind::position, n);
    std::vector<ExprId> f_dv = jacobian(pool, f_split, VarKind::velocity, n);

    // A system without kinetic energy has M = diag(mass).
    if (system.outputs(Kernel::mass_matrix).empty()) {
        const std::vector<ExprId>& mass = system.outputs(Kernel::mass);
        std::vector<ExprId> matrix(static_cast<std::size_t>(n) * n, pool.zero());
        for (std::uint32_t i = 0; i < n && i < mass.size(); ++i) {
            matrix[static_cast<std::size_t>(i) * n + i] = mass[i];
        }
        system.outputs(Kernel::mass_matrix) = std::move(matrix);
    }
    {
        const std::vector<ExprId>& matrix = system.outputs(Kernel::mass_matrix);
        system.mass_depends_on_positions = depends_on(pool, matrix, VarKind::position);
        system.mass_coupled = false;
        for (std::size_t i = 0; i < matrix.size(); ++i) {
            if (i / n != i % n && !pool.is_constant(matrix[i], 0.0)) {
                system.mass_coupled = true;
            }
        }
    }

    if (system.outputs(Kernel::phase_rate).empty()) {
        const Variable t{VarKind::time, 0};
        system.outputs(Kernel::phase_rate) = differentiate(pool, system.outputs(Kernel::phase), t);
    }

    system.outputs(Kernel::constraint_jacobian) = std::move(jac);
    system.outputs(Kernel::curvature) = std::move(curvature);
    system.outputs(Kernel::force_dq) = std::move(f_dq);
    system.outputs(Kernel::force_dv) = std::move(f_dv);
    system.velocity_dependent = depends_on(pool, f, VarKind::velocity);
    system.time_dependent = depends_on(pool, f, VarKind::time);
}

} // namespace mdl::symbolic
