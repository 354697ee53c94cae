/* The C embedding API of mdl: compile a .mdl model in-process and call its native kernels
 * (kernel_abi.h) from C or any language with a C FFI.
 *
 *     char* error = NULL;
 *     mdl_model* m = mdl_compile_file("models/kapitza.mdl", &error);
 *     if (!m) { fputs(error, stderr); mdl_free_string(error); return 1; }
 *     mdl_set_parameter(m, "omega", 1e6, &error);
 *     const mdl_kernels* k = mdl_kernels_of(m);
 *     mdl_kernel_args a = mdl_args(m, t, q, v, NULL, theta);
 *     k->force(&a, f);
 *     mdl_free(m);
 *
 * Functions that can fail return NULL or non-zero and, when `error` is not NULL, store a
 * message allocated with malloc (free it with mdl_free_string). Nothing calls exit().
 */
#ifndef MDL_H
#define MDL_H

#include "abi/kernel_abi.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mdl_model mdl_model;

/* Compiles a model file or source text (name is used in diagnostics). NULL on failure, with
 * the clang-style diagnostics in *error. */
mdl_model* mdl_compile_file(const char* path, char** error);
mdl_model* mdl_compile_string(const char* source, const char* name, char** error);
/* Compile options. Integer parameters (array sizes, loop bounds) fix a model's structure, so
 * their values are given when compiling: n_structural names and values (names of other
 * parameters are ignored here; set them with mdl_set_parameter). library_paths: n_library_paths
 * folders searched for component models after the model file's own folder and its lib/. Any
 * pointer may be NULL when its count is 0. */
typedef struct mdl_compile_options {
    const char* const* structural_names;
    const double* structural_values;
    size_t n_structural;
    const char* const* library_paths;
    size_t n_library_paths;
} mdl_compile_options;
mdl_model* mdl_compile_file_with(const char* path, const mdl_compile_options* options,
                                 char** error);
mdl_model* mdl_compile_string_with(const char* source, const char* name,
                                   const mdl_compile_options* options, char** error);
void mdl_free(mdl_model* model);
void mdl_free_string(char* text);

const char* mdl_model_name(const mdl_model* model);
size_t mdl_n_positions(const mdl_model* model);
size_t mdl_n_states(const mdl_model* model);
size_t mdl_n_constraints(const mdl_model* model);
size_t mdl_n_vibrations(const mdl_model* model);
size_t mdl_n_parameters(const mdl_model* model);
/* Names, valid while the model lives; NULL for an index out of range. */
const char* mdl_position_name(const mdl_model* model, size_t i);
const char* mdl_state_name(const mdl_model* model, size_t i);
const char* mdl_constraint_name(const mdl_model* model, size_t i);
const char* mdl_parameter_name(const mdl_model* model, size_t i);

/* Parameters: setting one recomputes those defined from it. 0 on success; non-zero for an
 * unknown name or a non-finite result, with a message in *error. */
int mdl_set_parameter(mdl_model* model, const char* name, double value, char** error);
int mdl_get_parameter(const mdl_model* model, const char* name, double* value);
const double* mdl_parameters(const mdl_model* model);

/* Start values with the current parameters, into arrays of n, n and k doubles. */
void mdl_start(const mdl_model* model, double* q, double* v, double* x);
/* Vibration phases theta_i(t), into an array of r doubles. */
void mdl_phases(const mdl_model* model, double t, double* theta);

const mdl_kernels* mdl_kernels_of(const mdl_model* model);
/* Whether the mass matrix M (kernels' mass_matrix, n x n) is constant (no kinetic energy
 * with M(q)) and diagonal (then the mass kernel gives it): 1 or 0. */
int mdl_mass_constant(const mdl_model* model);
int mdl_mass_diagonal(const mdl_model* model);
/* Kernel arguments bound to the model's current parameters. */
mdl_kernel_args mdl_args(const mdl_model* model, double t, const double* q, const double* v,
                         const double* x, const double* theta);

/* Simulation with every method and option of `mdl run` (mdl/simulate.hpp; docs/embedding.md):
 *
 *     mdl_settings* s = mdl_settings_new();
 *     mdl_settings_set(s, "method", "hmm", &error);
 *     mdl_settings_set(s, "stop", "1", &error);
 *     mdl_result* r = NULL;
 *     if (mdl_simulate(m, s, &r, &error) != MDL_OK) { ... }
 *     mdl_result_values(r)[i * mdl_result_columns(r) + j]      row i, column j
 *     mdl_result_free(r);
 *     mdl_settings_free(s);
 *
 * Options are named as `mdl run`'s flags without the dashes ("micro-steps-per-period"; "_"
 * may stand for "-"; "library" may be given several times); values are the flags' text
 * ("1e-3", "hmm", "true"). Unset options fall back to the model's annotation, then to the
 * method's default. The messages are those of `mdl run`. */
typedef struct mdl_settings mdl_settings;
mdl_settings* mdl_settings_new(void);
void mdl_settings_free(mdl_settings* settings);
/* 0 on success; non-zero for an unknown option or a value not of its type, with *error. */
int mdl_settings_set(mdl_settings* settings, const char* option, const char* value, char** error);

/* The status of a simulation. */
enum {
    MDL_OK = 0,
    MDL_BAD_SETTINGS = 1,     /* *error names the option (as mdl run's exit status 2) */
    MDL_NUMERICAL_FAILURE = 2 /* time, variable and method in mdl_result_failure (exit 3) */
};

typedef struct mdl_result mdl_result;
/* Runs the model with its current parameters (settings may be NULL: the model's own). The
 * status is MDL_OK or an error with a message in *error. *result (when result is not NULL)
 * receives the rows computed, also after a numerical failure (the rows up to it); free it
 * with mdl_result_free. The columns are those of mdl run's CSV: time, positions, velocities,
 * states, residuals and multipliers of constraints, energy. */
int mdl_simulate(const mdl_model* model, const mdl_settings* settings, mdl_result** result,
                 char** error);
/* The streaming form: each output row (columns doubles) to observer, which returns 0 to stop
 * the run there. Nothing is kept. Returns the status as mdl_simulate. */
typedef int (*mdl_row_observer)(void* user, const double* row, size_t columns);
int mdl_simulate_rows(const mdl_model* model, const mdl_settings* settings,
                      mdl_row_observer observer, void* user, char** error);

void mdl_result_free(mdl_result* result);
size_t mdl_result_rows(const mdl_result* result);
size_t mdl_result_columns(const mdl_result* result);
/* The column's CSV name ("time", "q", "der(q)", "lambda(rod)", "energy"); NULL out of range. */
const char* mdl_result_column_name(const mdl_result* result, size_t column);
/* rows x columns doubles, row-major, owned by the result. */
const double* mdl_result_values(const mdl_result* result);
/* A column by name into a caller-owned array of mdl_result_rows doubles: 0, or 1 for an
 * unknown name. */
int mdl_result_copy_column(const mdl_result* result, const char* name, double* out);

typedef struct mdl_statistics {
    double start, stop;
    size_t steps, rejected, micro_steps, force_evaluations, rows;
    double seconds;
    int stopped; /* 1: ended early by the observer */
} mdl_statistics;
void mdl_result_statistics(const mdl_result* result, mdl_statistics* statistics);
/* A multiscale run's estimate of its error at the stop time (mdl/simulate.hpp ErrorEstimate):
 * the parts (micro integration, macro integration, averaging) in position units, their sum,
 * the tolerance atol + rtol max|q| it was held to, the largest part's name. */
typedef struct mdl_error_estimate {
    double total, micro, macro, averaging, tolerance;
    const char* dominant; /* "micro", "macro" or "averaging"; valid while the result lives */
} mdl_error_estimate;
/* 1 and *estimate filled for a multiscale run; 0 for a classical method or a failed run. */
int mdl_result_error_estimate(const mdl_result* result, mdl_error_estimate* estimate);
/* The method as run ("hmm", "verlet", ...) and mdl run's summary line (after a failure: the
 * failure's message). Valid while the result lives. */
const char* mdl_result_method(const mdl_result* result);
const char* mdl_result_summary(const mdl_result* result);

/* A numerical failure: at which time, in which variable or constraint ("" when none is
 * named), in which method, of which kind ("non-finite value", "step size underflow", ...). */
typedef struct mdl_failure {
    double time;
    const char* kind;
    const char* method;
    const char* variable;
} mdl_failure;
/* 1 and *failure filled (strings valid while the result lives) when the run failed; else 0. */
int mdl_result_failure(const mdl_result* result, mdl_failure* failure);

/* The equilibrium and natural modes of a model (mdl/modes.hpp; `mdl modes`; docs/analysis.md):
 *
 *     mdl_modes_result* r = NULL;
 *     if (mdl_modes(m, NULL, NULL, 0, &r, &error) != MDL_OK) { ... }
 *     mdl_modes_omega(r)[k], mdl_modes_damping_ratio(r)[k], mdl_modes_kind(r, k),
 *     mdl_modes_shapes(r)[k * n + j]          mode k in position j (n = mdl_sizes' positions)
 *     mdl_modes_free(r);
 *
 * at_names/at_values (n_at of them, may be NULL when n_at == 0): start values for Newton's
 * method by position name. The status is MDL_OK, MDL_BAD_SETTINGS (an unknown name, a model
 * outside the analysis: first-order states, forcing that depends on time, moving constraints)
 * or MDL_NUMERICAL_FAILURE (no equilibrium found: the message names the residual), with the
 * message in *error. *result is set only on success. */
typedef struct mdl_modes_result mdl_modes_result;
int mdl_modes(const mdl_model* model, const char* const* at_names, const double* at_values,
              size_t n_at, mdl_modes_result** result, char** error);
void mdl_modes_free(mdl_modes_result* result);
size_t mdl_modes_count(const mdl_modes_result* result); /* modes, sorted by omega */
/* omega [rad/s], damping ratio -Re(s)/|s|: count doubles each, owned by the result. */
const double* mdl_modes_omega(const mdl_modes_result* result);
const double* mdl_modes_damping_ratio(const mdl_modes_result* result);
/* "rigid body", "oscillatory", "overdamped" or "unstable"; NULL out of range. */
const char* mdl_modes_kind(const mdl_modes_result* result, size_t mode);
/* count x n doubles, row-major: the shapes in all positions, mass-normalized. */
const double* mdl_modes_shapes(const mdl_modes_result* result);
/* The equilibrium q*, n doubles. */
const double* mdl_modes_equilibrium(const mdl_modes_result* result);
/* The periodic orbit of the model with its current parameters (mdl/periodic.hpp, `mdl
 * periodic`), by shooting. q and v (n doubles each): a first guess at t = 0 in (NULL: the
 * start values), the orbit's state at t = 0 out (when not NULL). *period: the period in (0:
 * from the model's vibrations; needed when the force uses time explicitly; a first guess for
 * an autonomous model), the orbit's period out. multipliers_re and multipliers_im (2n doubles
 * each, may be NULL): the Floquet multipliers by decreasing modulus. *stable (may be NULL): 1
 * when every multiplier (but an autonomous orbit's trivial one) has |mu| <= 1 + 1e-6.
 * Returns MDL_OK, MDL_BAD_SETTINGS (a model it does not cover: constraints, first-order
 * states, M(q), events) or MDL_NUMERICAL_FAILURE (Newton did not converge), with *error. */
int mdl_periodic_orbit(const mdl_model* model, double* q, double* v, double* period,
                       double* multipliers_re, double* multipliers_im, int* stable, char** error);

/* Stability charts (mdl/stability_chart.hpp, docs/analysis.md): the Floquet stability of a
 * periodic solution over a grid of two Real parameters, boundaries refined by bisection.
 *
 *     mdl_chart_range a = {"a", -2, 10, 61, 0}, q = {"q", 0, 5, 26, 0};
 *     mdl_chart* c = NULL;
 *     if (mdl_stability_chart(m, a, q, NULL, 0, 0, &c, &error) != MDL_OK) { ... }
 *     mdl_chart_verdicts(c)[i * 26 + j]       1 stable, 0 unstable, -1 failed
 *     mdl_chart_write(c, "grid.csv", "boundary.csv", "chart.svg", &error);
 *     mdl_chart_free(c);
 *
 * `at`: replaced start values, "q=3.141592653589793,der(q)=0" (NULL: the start state), a state
 * that stays a solution under the forcing; `orbit` non-zero: the periodic orbit found by
 * shooting from it instead; `threads` 0: the hardware threads. The boundary tolerance is
 * 1e-6 of each range, stability |mu| <= 1 + 1e-6. MDL_BAD_SETTINGS with *error for an
 * unknown parameter or coordinate, a bad range, or a model the variational equations do not
 * cover. Points whose solution cannot be computed are failed verdicts. */
typedef struct mdl_chart_range {
    const char* name;
    double lo, hi;
    size_t points; /* >= 2 */
    int log;       /* non-zero: evenly spaced in log10 */
} mdl_chart_range;
typedef struct mdl_chart mdl_chart;
int mdl_stability_chart(const mdl_model* model, mdl_chart_range x, mdl_chart_range y,
                        const char* at, int orbit, size_t threads, mdl_chart** chart, char** error);
void mdl_chart_free(mdl_chart* chart);
/* x.points * y.points verdicts (1 stable, 0 unstable, -1 failed) and max |multiplier| (NaN
 * where failed), point (i, j) at i * y.points + j; owned by the chart. */
const int* mdl_chart_verdicts(const mdl_chart* chart);
const double* mdl_chart_max_multipliers(const mdl_chart* chart);
/* The refined boundary points: their number, and (x, y) pairs (2 doubles each). */
size_t mdl_chart_boundary_size(const mdl_chart* chart);
const double* mdl_chart_boundary(const mdl_chart* chart);
/* Writes the grid CSV, the boundary CSV and the SVG plot (each may be NULL): 0, or non-zero
 * with *error naming the file. */
int mdl_chart_write(const mdl_chart* chart, const char* grid_csv, const char* boundary_csv,
                    const char* svg, char** error);
/* Export (mdl/export.hpp, `mdl export`): the model file compiled with the settings (the method
 * and its settings as mdl_simulate takes them; settings may be NULL), written as an FMI 2.0 FMU
 * or as a C library (libNAME.a, libNAME.so, NAME.h in folder). MDL_OK, or MDL_BAD_SETTINGS with
 * *error (a model that does not compile: its diagnostics; a link or a write that failed). */
int mdl_export_fmu(const char* model_file, const mdl_settings* settings, const char* fmu_path,
                   char** error);
int mdl_export_c_library(const char* model_file, const mdl_settings* settings, const char* folder,
                         char** error);

/* A sweep (mdl/sweep.hpp, `mdl sweep`): the Cartesian product of the axes ("omega=1e3:1e6:log:4",
 * "vmax=1,2,4": `mdl sweep -p`'s text, the first varying slowest) run with the model's compiled
 * code and its own parameters per point, on jobs threads (0: one per hardware thread) or, with
 * processes non-zero, in jobs worker processes (a run that crashes is one failed row). Writes
 * output/run_<i>.csv per run and output/summary.csv (docs/sweeps.md). MDL_OK with *unsuccessful
 * (when not NULL) the runs that failed or could not start, their messages in the summary; or
 * MDL_BAD_SETTINGS with *error. */
int mdl_sweep(const mdl_model* model, const mdl_settings* settings, const char* const* axes,
              size_t n_axes, const char* output, size_t jobs, int processes, size_t* unsuccessful,
              char** error);

#ifdef __cplusplus
}
#endif

#endif /* MDL_H */
