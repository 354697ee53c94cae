/* A C host: compiles a model at run time through mdl.h, evaluates its force, and steps it with
 * velocity Verlet. Run with models/harmonic_oscillator.mdl, it checks the result against the
 * exact solution q0 cos(w t), w = sqrt(k/m). */
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
    free(q);
    free(v);
    free(f);
    free(m);
    mdl_free(model);
    return status;
}
