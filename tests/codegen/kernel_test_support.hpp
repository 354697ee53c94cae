// Calling compiled kernels and the reference evaluator on the same point.
#pragma once

#include "codegen/compiled_kernels.hpp"
#include "symbolic/evaluate.hpp"
#include "symbolic/system.hpp"

#include <random>
#include <vector>

namespace mdl::test {

// A point for every variable of a system, with its storage.
struct Point {
    double t = 0.0;
    std::vector<double> q, v, x, theta, p;

    static Point random(const symbolic::SystemSizes& s, std::mt19937_64& rng, double lo = -2.0,
                        double hi = 2.0, double p_lo = 0.3, double p_hi = 2.5) {
        std::uniform_real_distribution<double> u(lo, hi), up(p_lo, p_hi);
        Point pt;
        pt.t = u(rng);
        const auto fill = [&](std::vector<double>& vec, std::size_t n, auto& dist) {
            vec.resize(n);
            for (double& e : vec) {
                e = dist(rng);
            }
        };
        fill(pt.q, s.positions, u);
        fill(pt.v, s.positions, u);
        fill(pt.x, s.states, u);
        fill(pt.theta, s.vibrations, u);
        fill(pt.p, s.parameters, up);
        return pt;
    }

    mdl_kernel_args args() const {
        return {t, q.data(), v.data(), x.data(), theta.data(), p.data()};
    }
    symbolic::VariableValues values() const { return {t, q, v, x, theta, p}; }
};

inline std::vector<double> run(mdl_kernel kernel, std::size_t outputs, const Point& at) {
    std::vector<double> out(outputs, -12345.0);
    const mdl_kernel_args args = at.args();
    kernel(&args, out.data());
    return out;
}

inline std::vector<double> reference(const symbolic::System& s, symbolic::Kernel k,
                                     const Point& at) {
    symbolic::Evaluator ev(s.pool());
    return ev.evaluate(s.dense_outputs(k), at.values()); // matrices: every entry
}

// The values of a matrix kernel's structural nonzeros by the evaluator (the system's outputs).
inline std::vector<double> reference_values(const symbolic::System& s, symbolic::Kernel k,
                                            const Point& at) {
    symbolic::Evaluator ev(s.pool());
    return ev.evaluate(s.outputs(k), at.values());
}

// The values kernel and the pattern of a matrix kernel in the table.
inline mdl_kernel values_of(const mdl_kernels& table, symbolic::Kernel k) {
    using symbolic::Kernel;
    switch (k) {
    case Kernel::constraint_jacobian:
        return table.constraint_jacobian_values;
    case Kernel::force_dq:
        return table.force_dq_values;
    case Kernel::force_dv:
        return table.force_dv_values;
    case Kernel::mass_matrix:
        return table.mass_matrix_values;
    default:
        return nullptr;
    }
}
inline const mdl_sparsity* pattern_of(const mdl_kernels& table, symbolic::Kernel k) {
    using symbolic::Kernel;
    switch (k) {
    case Kernel::constraint_jacobian:
        return &table.constraint_jacobian_pattern;
    case Kernel::force_dq:
        return &table.force_dq_pattern;
    case Kernel::force_dv:
        return &table.force_dv_pattern;
    case Kernel::mass_matrix:
        return &table.mass_matrix_pattern;
    default:
        return nullptr;
    }
}

inline mdl_kernel kernel_of(const mdl_kernels& table, symbolic::Kernel k) {
    using symbolic::Kernel;
    switch (k) {
    case Kernel::mass:
        return table.mass;
    case Kernel::force:
        return table.force;
    case Kernel::rates:
        return table.rates;
    case Kernel::potential:
        return table.potential;
    case Kernel::constraint:
        return table.constraint;
    case Kernel::constraint_jacobian:
        return table.constraint_jacobian;
    case Kernel::curvature:
        return table.curvature;
    case Kernel::force_dq:
        return table.force_dq;
    case Kernel::force_dv:
        return table.force_dv;
    case Kernel::phase:
        return table.phase;
    case Kernel::phase_rate:
        return table.phase_rate;
    case Kernel::mass_matrix:
        return table.mass_matrix;
    case Kernel::event_indicator:
        return table.event_indicator;
    case Kernel::event_reinit:
        return table.event_reinit;
    case Kernel::constraint_rate:
        return table.constraint_rate;
    case Kernel::event_rate:
        return table.event_rate;
    }
    return nullptr;
}

} // namespace mdl::test
