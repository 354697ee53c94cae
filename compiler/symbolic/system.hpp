// The symbolic system of a model: one expression pool and, per kernel of the calling
// convention (abi/kernel_abi.h), the list of expressions that kernel writes to out[].
//
//     M(q) q'' = f(t, q, v, x, theta, p) + G(q)^T lambda,   g(q) = 0,   x' = rates(...)
//
// M is diagonal and constant unless the model declares a kinetic energy; then f holds
// Lagrange's velocity terms dT/dq - (d/dq dT/dv) v as well (equations_of_motion.hpp).
//
// The model builder fills mass, force (including -grad U), rates, potential, constraint and
// phase; derive_kernels (derive_kernels.hpp) differentiates the rest.
#pragma once

#include "symbolic/expr.hpp"
#include "symbolic/print.hpp"
#include "symbolic/sparsity.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mdl::symbolic {

// The kernels of kernel_abi.h, in the order of its mdl_kernels struct.
enum class Kernel : std::uint8_t {
    mass,                // out[n]:   diagonal of M when M is constant and diagonal, else NaN
                         //           for the coordinates of the kinetic energy; p only
    force,               // out[n]:   f, without constraint forces
    rates,               // out[k]:   x'
    potential,           // out[0 or 1]: U
    constraint,          // out[m]:   g(t, q)
    constraint_jacobian, // out[m*n]: G = dg/dq, row-major
    curvature,           // out[m]:   g'' - G q'': (d/dq (G v)) v, plus the time terms of a
                         //           rheonomic g (derive_kernels.hpp)
    force_dq,            // out[n*n]: df/dq, row-major
    force_dv,            // out[n*n]: df/dv, row-major
    phase,               // out[r]:   theta_i(t, p) = omega_i t + c_i
    phase_rate,          // out[r]:   omega_i(p)
    mass_matrix,         // out[n*n]: M(q, p), row-major, symmetric
    event_indicator,     // out[e]:   the when-conditions' indicators, >= 0 where one holds
    event_reinit,        // out[j]:   the new values of every reinit, in source order
    constraint_rate,     // out[m or 0]: g_t = dg/dt at fixed q (through t and the phases);
                         //           no outputs when g does not depend on time (scleronomic)
    event_rate,          // out[e or 0]: dg/dt of the event indicators along the motion,
                         //           grad_q g . v + g_t; no outputs when the model has no
                         //           events or an indicator depends on v or x
};
inline constexpr std::size_t kernel_count = 16;
inline constexpr std::array<Kernel, kernel_count> all_kernels{
    Kernel::mass,
    Kernel::force,
    Kernel::rates,
    Kernel::potential,
    Kernel::constraint,
    Kernel::constraint_jacobian,
    Kernel::curvature,
    Kernel::force_dq,
    Kernel::force_dv,
    Kernel::phase,
    Kernel::phase_rate,
    Kernel::mass_matrix,
    Kernel::event_indicator,
    Kernel::event_reinit,
    Kernel::constraint_rate,
    Kernel::event_rate,
};
std::string_view kernel_name(Kernel k);

// The kernels whose outputs are a matrix: constraint_jacobian (m x n), force_dq, force_dv and
// mass_matrix (n x n).
bool is_matrix_kernel(Kernel k);

struct SystemSizes {
    std::uint32_t positions = 0;   // n
    std::uint32_t states = 0;      // k
    std::uint32_t constraints = 0; // m
    std::uint32_t vibrations = 0;  // r
    std::uint32_t parameters = 0;  // P
    std::uint32_t events = 0;      // e, branches of when-clauses
    std::uint32_t reinits = 0;     // reinit statements, over all events
};

// A system that breaks the calling convention's assumptions (wrong output counts, a variable
// index out of range, a mass that depends on q, a phase not linear in t, ...).
class InvalidSystem : public std::logic_error {
public:
    using std::logic_error::logic_error;
};

class System {
public:
    explicit System(SystemSizes sizes, std::size_t node_limit = ExprPool::default_node_limit);

    ExprPool& pool() { return pool_; }
    const ExprPool& pool() const { return pool_; }
    const SystemSizes& sizes() const { return sizes_; }

    // Variable leaves; std::out_of_range for an index beyond the sizes.
    Expr time();
    Expr position(std::uint32_t i);
    Expr velocity(std::uint32_t i);
    Expr state(std::uint32_t i);
    Expr phase(std::uint32_t i);
    Expr parameter(std::uint32_t i);
    Expr constant(double value);

    std::vector<ExprId>& outputs(Kernel k) { return outputs_[static_cast<std::size_t>(k)]; }
    const std::vector<ExprId>& outputs(Kernel k) const {
        return outputs_[static_cast<std::size_t>(k)];
    }
    // How many outputs kernel k must have (potential: 0 or 1, reported as its current count;
    // a matrix kernel: its pattern's nonzeros).
    std::size_t expected_outputs(Kernel k) const;

    // The pattern of a matrix kernel: the one set by set_sparse, else dense (its outputs are
    // then every entry, row-major, as a hand-built system lists them).
    Sparsity sparsity(Kernel k) const;
    bool is_sparse(Kernel k) const { return sparsity_[static_cast<std::size_t>(k)].has_value(); }
    // Sets a matrix kernel's pattern and the values of its entries (values.size() ==
    // pattern.nonzeros()).
    void set_sparse(Kernel k, Sparsity pattern, std::vector<ExprId> values);
    // Sets a matrix kernel from all its entries, row-major: the +0.0 entries are left out.
    void set_from_dense(Kernel k, const std::vector<ExprId>& entries);
    // All entries of a matrix kernel, row-major, +0.0 where the pattern has none (memory
    // rows x columns: for small systems, tests and printing).
    std::vector<ExprId> dense_outputs(Kernel k) const;
    // Whether kernel k is compiled (not a null pointer in the table): it has outputs, or it is
    // a sparse matrix kernel of at least one entry, whose pattern may have no nonzero (df/dv
    // without dampers).
    bool has_kernel(Kernel k) const;
    // The shape of a matrix kernel: m x n or n x n.
    std::pair<std::uint32_t, std::uint32_t> matrix_shape(Kernel k) const;

    // Throws InvalidSystem unless every kernel has its expected number of outputs, every
    // variable index is in range, mass depends on parameters only, constraints on t, q,
    // phases and p only (holonomic), phases on t and p only and phase rates on p only (phases
    // linear in t).
    void validate() const;

    VariableNames names;             // for printing
    bool velocity_dependent = false; // f depends on v (set by derive_kernels)
    // f depends on v other than through a kinetic energy's velocity terms (dampers, velocity
    // forces, equations): set by equations_of_motion; derive_kernels leaves it alone
    bool applied_velocity_dependent = false;
    bool time_dependent = false; // f depends on t other than through phases (likewise)
    // g depends on t or the phases (rheonomic): constraint_rate has outputs (derive_kernels)
    bool constraints_time_dependent() const { return !outputs(Kernel::constraint_rate).empty(); }
    bool mass_depends_on_positions = false; // M(q) (likewise, from mass_matrix)
    bool mass_coupled = false;              // M has nonzero off-diagonal entries (likewise)
    bool mass_constant_diagonal() const { return !mass_depends_on_positions && !mass_coupled; }

private:
    ExprPool pool_;
    SystemSizes sizes_;
    std::array<std::vector<ExprId>, kernel_count> outputs_;
    std::array<std::optional<Sparsity>, kernel_count> sparsity_;
};

// The derived equations in readable form (mdl compile --emit-symbolic): sizes, then every
// kernel's outputs labelled with variable names; zero Jacobian entries are left out.
std::string print_system(const System& system);

} // namespace mdl::symbolic
