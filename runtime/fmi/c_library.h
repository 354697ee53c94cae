/* The simulation entry point of the C libraries `mdl export --c-library DIR` writes
 * (libNAME.a, libNAME.so, NAME.h): one run of the model with the method and settings chosen at
 * export, its rows handed to a callback. It drives the same FMU instance as fmi2DoStep
 * (fmu_instance.hpp): the rows at the output times are the FMU's values at those communication
 * points, which are `mdl run`'s when the output interval is a multiple of the (macro) step.
 * The generated NAME_simulate (cli/c_library.cpp) calls it with the model's description. */
#ifndef MDL_C_LIBRARY_H
#define MDL_C_LIBRARY_H

#include "fmu_model.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Called with each row: the time and the outputs (positions, velocities, first-order states,
 * in that order; `count` of them). A nonzero return ends the run there (not an error). */
typedef int (*mdl_library_row)(void* user, double t, const double* values, size_t count);

/* Called with each note of the run (may be null): the consistent start's changes of start
 * values ("consistent start: changed 'rod.x' from 0.4 to 0.395 (by -0.005)"), as `mdl run`
 * prints them on stderr, then the initialization and the events. */
typedef void (*mdl_library_note)(void* user, const char* text);

typedef struct mdl_library_settings {
    double start_time;      /* the start time */
    double stop_time;       /* stop <= start: the exported default experiment's interval */
    double output_interval; /* <= 0: the exported communication step (the default experiment's) */
    size_t n_parameters;    /* parameters set before the run, by name */
    const char* const* parameter_names;
    const double* parameter_values;
    mdl_library_note note; /* null: no notes */
} mdl_library_settings;

/* Returns 0 after the last row; else nonzero with a message (the time, variable and method of a
 * numerical failure; a bad setting) in `message` (at most message_size bytes, terminated). */
int mdl_library_simulate(const mdl_fmu_model* model, double default_interval,
                         const mdl_library_settings* settings, mdl_library_row row, void* user,
                         char* message, size_t message_size);

#ifdef __cplusplus
}
#endif

#endif /* MDL_C_LIBRARY_H */
