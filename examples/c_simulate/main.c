/* c_simulate: runs a model with the C API's mdl_simulate, options given as `mdl run`'s flag
 * names and values, and prints the rows as a CSV with round-trip precision (%.17g): the C
 * counterpart of examples/simulate_host.
 *
 *     c_simulate models/kapitza.mdl method hmm stop 1 step 0.0125 > hmm.csv
 *
 * Exit status as mdl run's: 1 model errors, 2 a bad option, 3 a numerical failure (the rows
 * up to it are printed). */
#include "mdl.h"

#include <stdio.h>

int main(int argc, char** argv) {
    if (argc < 2 || argc % 2 != 0) {
        fprintf(stderr, "usage: c_simulate MODEL.mdl [OPTION VALUE]...\n");
        return 2;
    }
    char* error = NULL;
    mdl_model* model = mdl_compile_file(argv[1], &error);
    if (!model) {
        fputs(error, stderr);
        mdl_free_string(error);
        return 1;
    }
    mdl_settings* settings = mdl_settings_new();
    for (int i = 2; i + 1 < argc; i += 2) {
        if (mdl_settings_set(settings, argv[i], argv[i + 1], &error) != 0) {
            fprintf(stderr, "c_simulate: %s\n", error);
            mdl_free_string(error);
            mdl_settings_free(settings);
            mdl_free(model);
            return 2;
        }
    }
    mdl_result* result = NULL;
    const int status = mdl_simulate(model, settings, &result, &error);
    if (status == MDL_BAD_SETTINGS) {
        fprintf(stderr, "c_simulate: %s\n", error);
        mdl_free_string(error);
        mdl_settings_free(settings);
        mdl_free(model);
        return 2;
    }
    const size_t rows = mdl_result_rows(result), columns = mdl_result_columns(result);
    const double* values = mdl_result_values(result);
    for (size_t j = 0; j < columns; ++j) {
        printf("%s%s", j ? "," : "", mdl_result_column_name(result, j));
    }
    printf("\n");
    for (size_t i = 0; i < rows; ++i) {
        for (size_t j = 0; j < columns; ++j) {
            printf("%s%.17g", j ? "," : "", values[i * columns + j]);
        }
        printf("\n");
    }
    mdl_error_estimate estimate; /* multiscale methods: the run's own error estimate */
    if (mdl_result_error_estimate(result, &estimate)) {
        fprintf(stderr,
                "c_simulate: error estimate %.2g (micro %.2g, macro %.2g, averaging %.2g; %s "
                "dominates), tolerance %.2g\n",
                estimate.total, estimate.micro, estimate.macro, estimate.averaging,
                estimate.dominant, estimate.tolerance);
    }
    if (status == MDL_NUMERICAL_FAILURE) {
        fprintf(stderr, "c_simulate: %s\n", error);
        mdl_free_string(error);
    }
    mdl_result_free(result);
    mdl_settings_free(settings);
    mdl_free(model);
    return status == MDL_OK ? 0 : 3;
}
