/* What `mdl export` compiles into an FMU beside the model's kernels: one constant
 * `mdl_fmu_model` describing the model (names, value references, start values, parameters) and
 * the integration method chosen at export. The FMI functions (fmi2_functions.cpp) read it; it
 * is the only model-specific data of the shared object, so every instance copies what it
 * changes (parameters, state) and the FMU has no global mutable state.
 *
 * Value references (fmi2ValueReference, Real variables only), with n positions, k first-order
 * states and P parameters:
 *     0 .. n-1            positions q
 *     n .. 2n-1           velocities der(q)
 *     2n .. 2n+k-1        first-order states x
 *     2n+k .. 2n+k+P-1    parameters, in the model's order
 *     2n+k+P .. 3n+k+P-1  accelerations der(der(q))  } unconstrained models only
 *     3n+k+P .. 3n+2k+P-1 rates der(x)               } (Model Exchange) */
#ifndef MDL_FMU_MODEL_H
#define MDL_FMU_MODEL_H

#ifdef __cplusplus
extern "C" {
#endif

struct mdl_kernels;

/* How the FMU may change a parameter. */
enum mdl_fmu_parameter_kind {
    mdl_fmu_tunable = 0,  /* settable before and during the simulation (between steps) */
    mdl_fmu_constant = 1, /* fixed at export: other parameters or start values depend on it */
    mdl_fmu_fixed = 2     /* settable until fmi2ExitInitializationMode (multiscale methods) */
};

/* The settings of a multiscale method (fmu_model.h's `method` is hmm, hmm-shake, hmm-rattle,
 * hmm-stiff or strobo), as `mdl run` resolves them (compiler/api/multiscale_setup.hpp). The
 * enumerations are runtime/multiscale's, as numbers. */
typedef struct mdl_fmu_multiscale {
    int macro;               /* hmm: HmmMacro; strobo: StroboscopicMacro; hmm-stiff: StiffMacro */
    int algorithm;           /* hmm: HmmAlgorithm */
    int filter;              /* hmm: FilterKind */
    int micro;               /* strobo: StroboscopicMicro */
    int order;               /* strobo: 2 or 4 */
    int force_even_in_phase; /* hmm: the force is even in all phases */
    int whole_steps;         /* strobo: floor((t_end - t0)/H) steps (else the last ends at t_end) */
    double macro_step;       /* H; for a dopri5 macro the output interval */
    double window_periods;   /* hmm, hmm-stiff */
    double macro_time_scale; /* hmm: T_macro */
    double micro_steps_per_period;
    double period;          /* hmm, strobo: the common fast period (0: from the rates) */
    double omega;           /* hmm-stiff: the fast frequency */
    double reproject_every; /* hmm-stiff */
    double reproject_steps; /* hmm-stiff: with reproject_every 0, drift checks every N steps */
    double drift_rtol, drift_atol; /* hmm-stiff: the drift check's tolerance */
    double rtol, atol;             /* dopri5 macro */
    double constraint_tolerance;
} mdl_fmu_multiscale;

/* An event (a branch of a when-clause, docs/events.md): runtime/events/event.hpp's Event. Its
 * reinits' targets are 0 position, 1 velocity, 2 first-order state. */
typedef struct mdl_fmu_event {
    const char* name; /* the condition as written: "b.y <= 0" */
    unsigned clause;
    unsigned first_reinit; /* its reinits' values: event_reinit outputs from here on */
    unsigned n_reinits;
    const int* reinit_targets;
    const unsigned* reinit_indices;
    int terminates;
    const char* terminate_message;
} mdl_fmu_event;

typedef struct mdl_fmu_model {
    const char* model_name;
    const char* guid;
    const struct mdl_kernels* kernels; /* sizes and kernels (kernel_abi.h) */

    const char* const* position_names;   /* n */
    const char* const* velocity_names;   /* n */
    const char* const* state_names;      /* k (null when k == 0) */
    const char* const* constraint_names; /* m (null when m == 0) */
    const char* const* vibration_names;  /* r (null when r == 0) */
    const char* const* parameter_names;  /* P (null when P == 0) */
    const double* parameter_values;      /* P, as exported */
    const int* parameter_kinds;          /* P, enum mdl_fmu_parameter_kind */

    const double* start_positions;  /* n */
    const double* start_velocities; /* n */
    const double* start_states;     /* k */

    /* The integration (runtime/methods.hpp): method name as `mdl run --method` takes it, the
     * fixed step or, for adaptive methods, 0, and the settings of the method. */
    const char* method;
    double step;
    double rtol, atol;
    double rho_inf;
    double constraint_tolerance;
    /* The default experiment (annotation or export flags): used when the importer's
     * fmi2SetupExperiment gives no stop time. */
    double start_time, stop_time;
    /* The multiscale method's settings; null for the classical methods. */
    const mdl_fmu_multiscale* multiscale;
    /* The events, kernels->n_events of them (null when there are none). */
    const mdl_fmu_event* events;
    /* Per position, 1 where its start value is `fixed = true` (null when none is): the
     * consistent start of fmi2ExitInitializationMode keeps those and moves the others onto the
     * constraints, as `mdl run` does (runtime/consistent_start.hpp). */
    const unsigned char* start_fixed;
} mdl_fmu_model;

/* Defined by the C source `mdl export` generates for the model. */
extern const mdl_fmu_model mdl_fmu;

#ifdef __cplusplus
}
#endif

#endif /* MDL_FMU_MODEL_H */
