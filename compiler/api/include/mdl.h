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

#include "codegen/kernel_abi.h"

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

#ifdef __cplusplus
}
#endif

#endif /* MDL_H */
