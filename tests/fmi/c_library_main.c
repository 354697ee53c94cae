/* A C program linked against a library `mdl export --c-library` wrote (no LLVM, no libmdl on
 * its link line): MODEL and MODEL_HEADER name it (-DMODEL=HarmonicOscillator
 * -DMODEL_HEADER='"HarmonicOscillator.h"').
 *
 *   c_library_main STOP INTERVAL [NAME=VALUE]...
 *       runs MODEL_simulate from 0 to STOP with the output interval INTERVAL and the parameters
 *       given, printing "log: columns t,<outputs>", the run's notes as "log: note TEXT" and
 *       each row "t,outputs..." (%.17g);
 *       on failure "error: <message>" and exit status 1. */
#include MODEL_HEADER

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JOIN2(a, b) a##b
#define JOIN(a, b) JOIN2(a, b)
#define M(name) JOIN(MODEL, name)

static int print_row(void* user, double t, const double* values, size_t count) {
    (void)user;
    printf("%.17g", t);
    for (size_t i = 0; i < count; ++i) {
        printf(",%.17g", values[i]);
    }
    printf("\n");
    return 0;
}

static void print_note(void* user, const char* text) {
    (void)user;
    printf("log: note %s\n", text);
}

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: c_library_main STOP INTERVAL [NAME=VALUE]...\n");
        return 2;
    }
    enum { most = 32 };
    const char* names[most];
    double values[most];
    char buffers[most][128];
    size_t n = 0;
    for (int i = 3; i < argc && n < most; ++i, ++n) {
        const char* equals = strchr(argv[i], '=');
        if (equals == NULL || (size_t)(equals - argv[i]) >= sizeof buffers[n]) {
            return 2;
        }
        memcpy(buffers[n], argv[i], (size_t)(equals - argv[i]));
        buffers[n][equals - argv[i]] = '\0';
        names[n] = buffers[n];
        values[n] = atof(equals + 1);
    }
    M(_settings) settings;
    memset(&settings, 0, sizeof settings);
    settings.start_time = 0.0;
    settings.stop_time = atof(argv[1]);
    settings.output_interval = atof(argv[2]);
    settings.n_parameters = n;
    settings.parameter_names = names;
    settings.parameter_values = values;
    settings.note = print_note;
    printf("log: columns t");
    for (size_t i = 0; M(_output_name)(i) != NULL; ++i) {
        printf(",%s", M(_output_name)(i));
    }
    printf("\n");
    char message[2048];
    if (M(_simulate)(&settings, print_row, NULL, message, sizeof message) != 0) {
        printf("error: %s\n", message);
        return 1;
    }
    return 0;
}
