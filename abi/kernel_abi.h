/* The calling convention of mdl's compiled kernels: the contract between the code generator
 * (which JIT-compiles them from the symbolic system) and the runtime (which calls them).
 * Plain C so that C hosts and other languages' FFI can call kernels directly.
 *
 * A model has n generalized positions q with velocities v = dq/dt, k first-order states x,
 * m holonomic constraints g(t, q) = 0, r vibrations with phases theta, and P parameters:
 *
 *     M(q) q'' = f(t, q, v, x, theta, p) + G^T lambda,     g(t, q) = 0,
 *           x' = rates(t, q, v, x, theta, p)
 *
 * M is constant and diagonal (point masses and generalized coordinates with a scalar mass)
 * unless the model declares a kinetic energy T(q, v) = 1/2 v^T M(q) v: then M = d2T/dv2 may
 * depend on q and couple coordinates (mass_depends_on_positions, mass_coupled), and f holds
 * Lagrange's velocity terms dT/dq - (d/dq dT/dv) v besides the applied forces. Vibrations
 * enter only through their phases theta_i = omega_i(p) * t + c_i(p), so the runtime can
 * evaluate the force at any phase (HMM's asynchronous algorithm, stroboscopic averaging)
 * and knows each period 2 pi / omega_i.
 */
#ifndef MDL_KERNEL_ABI_H
#define MDL_KERNEL_ABI_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mdl_kernel_args {
    double t;            /* time */
    const double* q;     /* positions, n */
    const double* v;     /* velocities, n */
    const double* x;     /* first-order states, k (may be null when k == 0) */
    const double* theta; /* vibration phases, r (may be null when r == 0) */
    const double* p;     /* parameter values, P */
} mdl_kernel_args;

/* The structural nonzeros of a matrix kernel, computed at compile time, in compressed sparse
 * rows: row i has the entries row_start[i] .. row_start[i+1]-1, whose columns, ascending,
 * are column[row_start[i]] ... Every entry outside the pattern is +0.0 at every point. Both
 * arrays live as long as the kernels (the JIT's CompiledModel, or the object's constant
 * data); rows == columns == nonzeros == 0 and null arrays when the kernel is null. */
typedef struct mdl_sparsity {
    unsigned rows;
    unsigned columns;
    unsigned nonzeros;
    const unsigned* row_start; /* rows + 1 */
    const unsigned* column;    /* nonzeros */
} mdl_sparsity;

/* Every kernel writes its outputs to out[] and reads only what it needs from args.
 * Matrices are dense and row-major (the *_values kernels below write only their structural
 * nonzeros). A kernel with no outputs (force and mass when n == 0,
 * rates when k == 0, the constraint kernels when m == 0, the phase kernels when r == 0,
 * potential when the model has none) is a null pointer: callers must not call it. */
typedef void (*mdl_kernel)(const mdl_kernel_args* args, double* out);

typedef struct mdl_kernels {
    unsigned n_positions;   /* n */
    unsigned n_states;      /* k, first-order states */
    unsigned n_constraints; /* m */
    unsigned n_vibrations;  /* r */
    unsigned n_parameters;  /* P */

    mdl_kernel mass;       /* out[n]:   diagonal of M (depends on p only) when M is constant
                              and diagonal; otherwise NaN for the coordinates of the kinetic
                              energy (use mass_matrix) */
    mdl_kernel force;      /* out[n]:   f(t, q, v, x, theta, p), without constraint forces */
    mdl_kernel rates;      /* out[k]:   x' (null when k == 0) */
    mdl_kernel potential;  /* out[1]:   potential energy U (null when the model has none) */
    mdl_kernel constraint; /* out[m]:   g(t, q) (t and theta used only by rheonomic g) */
    mdl_kernel constraint_jacobian; /* out[m*n]: G = dg/dq */
    mdl_kernel curvature;           /* out[m]:   g'' - G q'': (d/dq (G v)) v, plus the time
                                       terms of a rheonomic g (constraint_rate below) */
    mdl_kernel force_dq;            /* out[n*n]: df/dq */
    mdl_kernel force_dv;            /* out[n*n]: df/dv */
    mdl_kernel phase;               /* out[r]:   theta_i(t, p) = omega_i t + c_i */
    mdl_kernel phase_rate;          /* out[r]:   omega_i(p) */

    int velocity_dependent; /* nonzero when f depends on v (dampers, velocity forces) */
    int time_dependent;     /* nonzero when f depends on t other than through the phases */

    /* Appended for configuration-dependent inertia (kinetic energy declarations). A table
     * with mass_matrix null and both flags 0 means M = diag(mass). */
    mdl_kernel mass_matrix;         /* out[n*n]: M(q, p), symmetric positive definite */
    int mass_depends_on_positions;  /* nonzero when M depends on q */
    int mass_coupled;               /* nonzero when M has off-diagonal entries */
    int applied_velocity_dependent; /* nonzero when f depends on v other than through the
                                       kinetic energy's velocity terms (with a constant
                                       diagonal M: the same as velocity_dependent) */

    /* Appended for events (when-clauses, docs/events.md); null when the model has none. */
    unsigned n_events;          /* e: branches of when-clauses */
    unsigned n_reinits;         /* reinit statements over all events */
    mdl_kernel event_indicator; /* out[e]: indicators, >= 0 where a when-condition holds */
    mdl_kernel event_reinit;    /* out[n_reinits]: new value of each reinit, from the state
                                   just before the event */

    /* Appended for sparse structure (docs/embedding.md): each matrix kernel's structural
     * nonzeros and a kernel writing only their values, out[nonzeros] in the order of the
     * pattern; the dense kernel above writes the same values at (row, column) and +0.0
     * elsewhere. Non-null exactly when the dense kernel is (a pattern of no entries then
     * has a values kernel that writes nothing). A large model's solvers use these: its dense
     * matrices would not fit in memory. */
    mdl_kernel constraint_jacobian_values; /* out[nonzeros]: G */
    mdl_kernel force_dq_values;            /* out[nonzeros]: df/dq */
    mdl_kernel force_dv_values;            /* out[nonzeros]: df/dv */
    mdl_kernel mass_matrix_values;         /* out[nonzeros]: M(q, p) (all of it, both
                                              triangles) */
    mdl_sparsity constraint_jacobian_pattern; /* m x n */
    mdl_sparsity force_dq_pattern;            /* n x n */
    mdl_sparsity force_dv_pattern;            /* n x n */
    mdl_sparsity mass_matrix_pattern;         /* n x n */

    /* Appended for rheonomic constraints g(t, q) = 0 (time, moving anchors, driven joints):
     * g_t = dg/dt at fixed q, the phases theta_i(t) moving with t (their rates omega_i), so
     * that g' = G v + g_t; the curvature then holds (d/dq (G v + g_t)) v + d/dt (G v + g_t).
     * Null when g does not depend on time (scleronomic: g_t = 0). The constraint kernels of
     * a rheonomic model read t and theta, which must be the phases at t. */
    mdl_kernel constraint_rate; /* out[m]: g_t */

    /* Appended for event location (docs/events.md): the time derivative of the event
     * indicators along the motion, grad_q g . v + g_t (the phases moving at their rates).
     * Null when the model has no events or an indicator depends on v or x (its rate would
     * need the accelerations). */
    mdl_kernel event_rate; /* out[e]: dg/dt */
} mdl_kernels;

#ifdef __cplusplus
}
#endif

#endif /* MDL_KERNEL_ABI_H */
