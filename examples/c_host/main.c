/* A C host: compiles a model at run time through mdl.h, evaluates its force, and steps it with
 * velocity Verlet. Run with models/harmonic_oscillator.mdl, it checks the result against the
 * exact solution q0 cos(w t), w = sqrt(k/m). Then it runs the library's own Verlet through
 * mdl_simulate with the same step (the same result to round-off), and shows a bad option and
 * a numerical failure coming back as status codes. */
#include "mdl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: c_host MODEL.mdl\n");
        return 2;
    }
    char* error = NULL;
    mdl_model* model = mdl_compile_file(argv[1], &error);
    if (!model) {
        fputs(error, stderr);
        mdl_free_string(error);
        return 1;
    }
    size_t n = mdl_n_positions(model);
    double* q = calloc(n, sizeof(double));
    double* v = calloc(n, sizeof(double));
    double* f = calloc(n, sizeof(double));
    double* m = calloc(n, sizeof(double));
    const mdl_kernels* k = mdl_kernels_of(model);
    mdl_start(model, q, v, NULL);
    mdl_kernel_args args = mdl_args(model, 0.0, q, v, NULL, NULL);
    k->mass(&args, m);
    k->force(&args, f);
    printf("%s: %zu position(s) (%s), force at start %g\n", mdl_model_name(model), n,
           mdl_position_name(model, 0), f[0]);

    const double h = 1e-3;
    for (int step = 0; step < 1000; ++step) { /* velocity Verlet; args point at q and v */
        for (size_t i = 0; i < n; ++i) {
            v[i] += 0.5 * h * f[i] / m[i];
            q[i] += h * v[i];
        }
        args.t += h;
        k->force(&args, f);
        for (size_t i = 0; i < n; ++i) {
            v[i] += 0.5 * h * f[i] / m[i];
        }
    }
    double mass, stiffness, q0;
    mdl_get_parameter(model, "m", &mass);
    mdl_get_parameter(model, "k", &stiffness);
    mdl_get_parameter(model, "q0", &q0);
    double exact = q0 * cos(sqrt(stiffness / mass) * 1.0);
    double err = fabs(q[0] - exact);
    printf("q(1) = %.9f, exact %.9f, error %.2e\n", q[0], exact, err);

    int status = err < 1e-6 ? 0 : 1;
    if (mdl_set_parameter(model, "kk", 1.0, &error) != 0) { /* an unknown name is an error */
        printf("expected error: %s\n", error);
        mdl_free_string(error);
    } else {
        status = 1;
    }

    /* the same run by the library: mdl_simulate with mdl run's options */
    mdl_settings* settings = mdl_settings_new();
    mdl_settings_set(settings, "method", "verlet", NULL);
    mdl_settings_set(settings, "step", "1e-3", NULL);
    mdl_settings_set(settings, "stop", "1", NULL);
    mdl_result* result = NULL;
    if (mdl_simulate(model, settings, &result, &error) != MDL_OK) {
        fprintf(stderr, "mdl_simulate: %s\n", error);
        mdl_free_string(error);
        return 1;
    }
    size_t rows = mdl_result_rows(result), columns = mdl_result_columns(result);
    const double* last = mdl_result_values(result) + (rows - 1) * columns;
    mdl_statistics stats;
    mdl_result_statistics(result, &stats);
    /* column 0 is the time, column 1 the first position */
    printf("mdl_simulate: %zu rows of %zu columns (%s, %s), %zu steps, q(%g) = %.9f\n", rows,
           columns, mdl_result_column_name(result, 0), mdl_result_column_name(result, 1),
           stats.steps, last[0], last[1]);
    if (!(fabs(last[0] - 1.0) < 1e-12 && fabs(last[1] - q[0]) < 1e-12 && stats.steps == 1000)) {
        printf("mdl_simulate disagrees with the hand-written Verlet\n");
        status = 1;
    }
    mdl_result_free(result);

    /* a bad option: the message names it as mdl run does */
    mdl_settings_set(settings, "step", "-1", NULL);
    if (mdl_simulate(model, settings, NULL, &error) == MDL_BAD_SETTINGS) {
        printf("expected error: %s\n", error);
        mdl_free_string(error);
    } else {
        status = 1;
    }
    /* a numerical failure (h = 3 > 2/omega: Verlet is unstable and overflows): a status with
     * time, variable and method, the rows up to the failure kept */
    mdl_settings_set(settings, "step", "3", NULL);
    mdl_settings_set(settings, "stop", "3000", NULL);
    if (mdl_simulate(model, settings, &result, &error) == MDL_NUMERICAL_FAILURE) {
        mdl_failure failure;
        mdl_result_failure(result, &failure);
        printf("expected failure: %s at t = %g in %s after %zu rows\n", failure.method,
               failure.time, failure.variable, mdl_result_rows(result));
        mdl_free_string(error);
    } else {
        status = 1;
    }
    mdl_result_free(result);
    mdl_settings_free(settings);

    free(q);
    free(v);
    free(f);
    free(m);
    mdl_free(model);
    return status;
}
