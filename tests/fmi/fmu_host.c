/* A small FMI 2.0 Co-Simulation importer for the tests, written from the standard's C
 * signatures (runtime/fmi/fmi2_abi.h): it unzips an FMU's shared object with libzip, loads it
 * with dlopen, finds every fmi2 function with dlsym and drives an instance in the standard's
 * order (fmi2Instantiate, fmi2SetupExperiment, fmi2EnterInitializationMode, fmi2SetReal,
 * fmi2ExitInitializationMode, fmi2DoStep..., fmi2Terminate, fmi2FreeInstance).
 *
 *   fmu_host FMU IDENTIFIER GUID run OUTPUTS H STOP [VR=VALUE]...
 *       steps one instance from 0 to STOP with communication steps H (the communication
 *       points k H), printing "t,output 0,..,output OUTPUTS-1" at each, %.17g
 *   fmu_host FMU IDENTIFIER GUID two OUTPUTS H STOP VR VALUE1 VALUE2
 *       two instances in one process, parameter VR set to VALUE1 and VALUE2, stepped in turn;
 *       prints "t,outputs of the first,outputs of the second"
 *   fmu_host FMU IDENTIFIER GUID threads OUTPUTS H STOP VR VALUE1 VALUE2
 *       as two, each instance stepped on its own thread at the same time; prints the last row
 *   fmu_host FMU IDENTIFIER GUID refuse OUTPUTS H STOP BAD
 *       as run, after a first fmi2DoStep(0, BAD) that must return fmi2Error and change nothing
 *   fmu_host FMU IDENTIFIER GUID tune OUTPUTS H STOP VR VALUE AT
 *       as run, and sets parameter VR to VALUE between the steps once t reaches AT
 *   fmu_host FMU IDENTIFIER GUID states
 *       calls in the wrong state: each must return fmi2Error and log a message
 *   fmu_host FMU IDENTIFIER GUID me STATES H STOP
 *       Model Exchange: classical RK4 with step H on the FMU's derivatives (fmi2SetTime,
 *       fmi2SetContinuousStates, fmi2GetDerivatives), printing "t,outputs" at STOP
 *   fmu_host FMU IDENTIFIER GUID events STATES INDICATORS H STOP
 *       Model Exchange with events: classical RK4 with step H; after each step the event
 *       indicators' signs: one going from < 0 to >= 0 is located by bisection of the step (to
 *       1e-14), the state there handed to the FMU in event mode (fmi2NewDiscreteStates until
 *       done, then fmi2GetContinuousStates), and the integration goes on from there; prints
 *       "event,t" at each event and "t,x..." at STOP
 *   fmu_host FMU IDENTIFIER GUID jacobian UNKNOWN KNOWN...
 *       Model Exchange: fmi2GetDirectionalDerivative of UNKNOWN for a unit change of each
 *       KNOWN at the start, printed "d1,d2,..."
 *   fmu_host FMU IDENTIFIER GUID fail H STOP
 *       steps until a doStep fails: it must return fmi2Error with a logged message
 * Prints the logger's messages to stderr as "log: INSTANCE STATUS CATEGORY MESSAGE" (the FMU's
 * information too, fmi2Instantiate's loggingOn, when FMU_HOST_LOGGING is set). Exit status 0 when
 * every call went as the mode expects, 1 otherwise (the line "FAILED: ..." says which). */
#include "runtime/fmi/fmi2_abi.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

#define FUNCTIONS(X)                                                                               \
    X(fmi2GetTypesPlatform)                                                                        \
    X(fmi2GetVersion)                                                                              \
    X(fmi2SetDebugLogging)                                                                         \
    X(fmi2Instantiate)                                                                             \
    X(fmi2FreeInstance)                                                                            \
    X(fmi2SetupExperiment)                                                                         \
    X(fmi2EnterInitializationMode)                                                                 \
    X(fmi2ExitInitializationMode)                                                                  \
    X(fmi2Terminate)                                                                               \
    X(fmi2Reset)                                                                                   \
    X(fmi2GetReal)                                                                                 \
    X(fmi2GetInteger)                                                                              \
    X(fmi2GetBoolean)                                                                              \
    X(fmi2GetString)                                                                               \
    X(fmi2SetReal)                                                                                 \
    X(fmi2SetInteger)                                                                              \
    X(fmi2SetBoolean)                                                                              \
    X(fmi2SetString)                                                                               \
    X(fmi2GetFMUstate)                                                                             \
    X(fmi2SetFMUstate)                                                                             \
    X(fmi2FreeFMUstate)                                                                            \
    X(fmi2SerializedFMUstateSize)                                                                  \
    X(fmi2SerializeFMUstate)                                                                       \
    X(fmi2DeSerializeFMUstate)                                                                     \
    X(fmi2GetDirectionalDerivative)                                                                \
    X(fmi2EnterEventMode)                                                                          \
    X(fmi2NewDiscreteStates)                                                                       \
    X(fmi2EnterContinuousTimeMode)                                                                 \
    X(fmi2CompletedIntegratorStep)                                                                 \
    X(fmi2SetTime)                                                                                 \
    X(fmi2SetContinuousStates)                                                                     \
    X(fmi2GetDerivatives)                                                                          \
    X(fmi2GetEventIndicators)                                                                      \
    X(fmi2GetContinuousStates)                                                                     \
    X(fmi2GetNominalsOfContinuousStates)                                                           \
    X(fmi2SetRealInputDerivatives)                                                                 \
    X(fmi2GetRealOutputDerivatives)                                                                \
    X(fmi2DoStep)                                                                                  \
    X(fmi2CancelStep)                                                                              \
    X(fmi2GetStatus)                                                                               \
    X(fmi2GetRealStatus)                                                                           \
    X(fmi2GetIntegerStatus)                                                                        \
    X(fmi2GetBooleanStatus)                                                                        \
    X(fmi2GetStringStatus)

#define POINTER(name) static __typeof__(&name) p_##name;
FUNCTIONS(POINTER)

static int logged = 0; /* messages received since the last reset */

static void logger(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status,
                   fmi2String category, fmi2String message, ...) {
    (void)env;
    char text[4096];
    va_list args;
    va_start(args, message);
    vsnprintf(text, sizeof text, message, args);
    va_end(args);
    fprintf(stderr, "log: %s %d %s %s\n", instance, (int)status, category, text);
    ++logged;
}

static const fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};

static void fail(const char* what) {
    printf("FAILED: %s\n", what);
    exit(1);
}

/* Extracts binaries/linux64/IDENTIFIER.so into a temporary file and loads it. */
static void* load(const char* fmu, const char* identifier) {
    int error = 0;
    zip_t* archive = zip_open(fmu, ZIP_RDONLY, &error);
    if (archive == NULL) {
        fail("cannot open the FMU as a zip archive");
    }
    char entry[512];
    snprintf(entry, sizeof entry, "binaries/linux64/%s.so", identifier);
    zip_stat_t stat;
    zip_file_t* file = zip_fopen(archive, entry, 0);
    if (file == NULL || zip_stat(archive, entry, 0, &stat) != 0) {
        fail("the FMU has no binaries/linux64/<modelIdentifier>.so");
    }
    char* bytes = malloc(stat.size);
    if (zip_fread(file, bytes, stat.size) != (zip_int64_t)stat.size) {
        fail("cannot read the shared object from the FMU");
    }
    zip_fclose(file);
    zip_close(archive);
    char path[] = "/tmp/mdl-fmu-host-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, bytes, stat.size) != (ssize_t)stat.size) {
        fail("cannot write the shared object");
    }
    close(fd);
    free(bytes);
    /* RTLD_NODELETE: the FMU stays mapped after dlclose. Its static libstdc++ allocates an
     * emergency exception pool when loaded and never frees it; unmapped, that pool would be
     * reported as a leak by LeakSanitizer in the sanitizer builds (a real leak of the FMU's
     * own code stays unreachable and is still reported). */
    void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    unlink(path);
    if (library == NULL) {
        fprintf(stderr, "%s\n", dlerror());
        fail("dlopen");
    }
#define LOOKUP(name)                                                                               \
    p_##name = (__typeof__(&name))dlsym(library, #name);                                           \
    if (p_##name == NULL) {                                                                        \
        fail("the FMU does not export " #name);                                                    \
    }
    FUNCTIONS(LOOKUP)
    return library;
}

static void check(fmi2Status status, const char* call) {
    if (status != fmi2OK) {
        char text[256];
        snprintf(text, sizeof text, "%s returned %d", call, (int)status);
        fail(text);
    }
}

static fmi2Component start(const char* guid, const char* name, double stop, size_t nset,
                           const fmi2ValueReference* vr, const double* values) {
    if (strcmp(p_fmi2GetVersion(), "2.0") != 0 ||
        strcmp(p_fmi2GetTypesPlatform(), "default") != 0) {
        fail("fmi2GetVersion / fmi2GetTypesPlatform");
    }
    /* FMU_HOST_LOGGING set: the FMU's information (logInfo) too */
    const fmi2Boolean logging = getenv("FMU_HOST_LOGGING") != NULL ? fmi2True : fmi2False;
    fmi2Component c = p_fmi2Instantiate(name, fmi2CoSimulation, guid, "file:///tmp", &callbacks,
                                        fmi2False, logging);
    if (c == NULL) {
        fail("fmi2Instantiate");
    }
    check(p_fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2True, stop), "fmi2SetupExperiment");
    check(p_fmi2EnterInitializationMode(c), "fmi2EnterInitializationMode");
    check(p_fmi2SetReal(c, vr, nset, values), "fmi2SetReal");
    check(p_fmi2ExitInitializationMode(c), "fmi2ExitInitializationMode");
    return c;
}

static void print_outputs(fmi2Component c, size_t outputs) {
    for (size_t i = 0; i < outputs; ++i) {
        fmi2ValueReference vr = (fmi2ValueReference)i;
        double value = 0.0;
        check(p_fmi2GetReal(c, &vr, 1, &value), "fmi2GetReal");
        printf(",%.17g", value);
    }
}

/* a wrong-state call must return fmi2Error and log */
static void expect_error(fmi2Status status, const char* call) {
    if (status != fmi2Error) {
        char text[256];
        snprintf(text, sizeof text, "%s in the wrong state returned %d, not fmi2Error", call,
                 (int)status);
        fail(text);
    }
    if (logged == 0) {
        char text[256];
        snprintf(text, sizeof text, "%s in the wrong state logged nothing", call);
        fail(text);
    }
    logged = 0;
}

static int wrong_states(const char* guid) {
    fmi2Component c = p_fmi2Instantiate("wrong", fmi2CoSimulation, "{not-the-guid}", "", &callbacks,
                                        fmi2False, fmi2False);
    if (c != NULL || logged == 0) {
        fail("fmi2Instantiate with another GUID must fail with a message");
    }
    logged = 0;
    c = p_fmi2Instantiate("wrong", fmi2ModelExchange, guid, "", &callbacks, fmi2False, fmi2False);
    if (c == NULL) {
        fail("fmi2Instantiate for Model Exchange");
    }
    check(p_fmi2EnterInitializationMode(c), "fmi2EnterInitializationMode (Model Exchange)");
    check(p_fmi2ExitInitializationMode(c), "fmi2ExitInitializationMode (Model Exchange)");
    expect_error(p_fmi2DoStep(c, 0.0, 0.01, fmi2True), "fmi2DoStep of a Model Exchange instance");
    fmi2Real states[2];
    expect_error(p_fmi2SetContinuousStates(c, states, 2), "fmi2SetContinuousStates in event mode");
    p_fmi2FreeInstance(c);
    c = p_fmi2Instantiate("wrong", fmi2CoSimulation, guid, "", &callbacks, fmi2False, fmi2False);
    if (c == NULL) {
        fail("fmi2Instantiate");
    }
    fmi2ValueReference vr = 0;
    double value = 0.0;
    expect_error(p_fmi2DoStep(c, 0.0, 0.01, fmi2True), "fmi2DoStep before initialization");
    expect_error(p_fmi2GetReal(c, &vr, 1, &value), "fmi2GetReal before initialization");
    expect_error(p_fmi2ExitInitializationMode(c), "fmi2ExitInitializationMode before entering");
    expect_error(p_fmi2Terminate(c), "fmi2Terminate before initialization");
    check(p_fmi2EnterInitializationMode(c), "fmi2EnterInitializationMode");
    expect_error(p_fmi2SetupExperiment(c, fmi2False, 0, 0, fmi2False, 0),
                 "fmi2SetupExperiment in initialization mode");
    expect_error(p_fmi2EnterInitializationMode(c), "fmi2EnterInitializationMode twice");
    expect_error(p_fmi2SetReal(c, &vr, 1, &value), "fmi2SetReal of an output");
    expect_error(p_fmi2DoStep(c, 0.0, 0.01, fmi2True), "fmi2DoStep in initialization mode");
    check(p_fmi2ExitInitializationMode(c), "fmi2ExitInitializationMode");
    expect_error(p_fmi2DoStep(c, 0.5, 0.01, fmi2True), "fmi2DoStep at another time");
    expect_error(p_fmi2DoStep(c, 0.0, -0.01, fmi2True), "fmi2DoStep with a negative step");
    fmi2FMUstate state = NULL;
    expect_error(p_fmi2GetFMUstate(c, &state), "fmi2GetFMUstate (not supported)");
    expect_error(p_fmi2GetDerivatives(c, &value, 1), "fmi2GetDerivatives (Model Exchange)");
    expect_error(p_fmi2CancelStep(c), "fmi2CancelStep with no pending step");
    check(p_fmi2DoStep(c, 0.0, 0.01, fmi2True), "fmi2DoStep");
    double last = 0.0;
    check(p_fmi2GetRealStatus(c, fmi2LastSuccessfulTime, &last), "fmi2GetRealStatus");
    if (last != 0.01) {
        fail("fmi2LastSuccessfulTime is not the end of the step");
    }
    check(p_fmi2Terminate(c), "fmi2Terminate");
    expect_error(p_fmi2DoStep(c, 0.01, 0.01, fmi2True), "fmi2DoStep after fmi2Terminate");
    check(p_fmi2GetReal(c, &vr, 1, &value), "fmi2GetReal after fmi2Terminate");
    /* back to the start: the exported start values again */
    check(p_fmi2Reset(c), "fmi2Reset");
    check(p_fmi2EnterInitializationMode(c), "fmi2EnterInitializationMode after fmi2Reset");
    check(p_fmi2ExitInitializationMode(c), "fmi2ExitInitializationMode after fmi2Reset");
    check(p_fmi2DoStep(c, 0.0, 0.01, fmi2True), "fmi2DoStep after fmi2Reset");
    p_fmi2FreeInstance(c);
    printf("wrong states: all refused with a message\n");
    return 0;
}

/* Model Exchange: one classical RK4 step of size h from (t, x) into out, on the FMU's derivatives
 */
static void rk4_step(fmi2Component c, size_t nx, double t, const double* x, double h, double* out) {
    double k[4][64], y[64];
    const double offsets[4] = {0.0, 0.5, 0.5, 1.0};
    for (int s = 0; s < 4; ++s) {
        for (size_t i = 0; i < nx; ++i) {
            y[i] = s == 0 ? x[i] : x[i] + offsets[s] * h * k[s - 1][i];
        }
        check(p_fmi2SetTime(c, t + offsets[s] * h), "fmi2SetTime");
        check(p_fmi2SetContinuousStates(c, y, nx), "fmi2SetContinuousStates");
        check(p_fmi2GetDerivatives(c, k[s], nx), "fmi2GetDerivatives");
    }
    for (size_t i = 0; i < nx; ++i) {
        out[i] = x[i] + h / 6.0 * (k[0][i] + 2.0 * k[1][i] + 2.0 * k[2][i] + k[3][i]);
    }
}

/* the event indicators at (t, x) */
static void indicators_at(fmi2Component c, size_t nx, size_t ng, double t, const double* x,
                          double* g) {
    check(p_fmi2SetTime(c, t), "fmi2SetTime");
    check(p_fmi2SetContinuousStates(c, x, nx), "fmi2SetContinuousStates");
    check(p_fmi2GetEventIndicators(c, g, ng), "fmi2GetEventIndicators");
}

/* one instance stepped to the end on its own thread */
struct Run {
    fmi2Component c;
    size_t outputs;
    double h;
    long steps;
    fmi2Status status;
};

static void* run_thread(void* argument) {
    struct Run* run = (struct Run*)argument;
    run->status = fmi2OK;
    for (long k = 0; k < run->steps && run->status == fmi2OK; ++k) {
        run->status = p_fmi2DoStep(run->c, (double)k * run->h, run->h, fmi2True);
    }
    return NULL;
}

int main(int argc, char** argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: fmu_host FMU IDENTIFIER GUID MODE ...\n");
        return 2;
    }
    void* library = load(argv[1], argv[2]);
    const char* guid = argv[3];
    const char* mode = argv[4];
    if (strcmp(mode, "states") == 0) {
        wrong_states(guid);
        dlclose(library);
        return 0;
    }
    if (strcmp(mode, "fail") == 0 && argc == 7) {
        const double h = atof(argv[5]), stop = atof(argv[6]);
        fmi2Component c = start(guid, "fail", stop, 0, NULL, NULL);
        for (long k = 0; k * h < stop; ++k) {
            logged = 0;
            fmi2Status status = p_fmi2DoStep(c, (double)k * h, h, fmi2True);
            if (status == fmi2OK) {
                continue;
            }
            if (status != fmi2Error || logged == 0) {
                fail("a failing doStep must return fmi2Error with a logged message");
            }
            expect_error(p_fmi2DoStep(c, (double)(k + 1) * h, h, fmi2True),
                         "fmi2DoStep after a failed step");
            p_fmi2FreeInstance(c);
            printf("failed at step %ld with fmi2Error\n", k);
            dlclose(library);
            return 0;
        }
        fail("no doStep failed");
    }
    if (strcmp(mode, "jacobian") == 0 && argc >= 7) {
        /* Model Exchange at the start: d unknown / d known for a unit change of each known */
        fmi2Component c = p_fmi2Instantiate("jacobian", fmi2ModelExchange, guid, "", &callbacks,
                                            fmi2False, fmi2False);
        if (c == NULL) {
            fail("fmi2Instantiate (Model Exchange)");
        }
        check(p_fmi2EnterInitializationMode(c), "fmi2EnterInitializationMode");
        check(p_fmi2ExitInitializationMode(c), "fmi2ExitInitializationMode");
        const fmi2ValueReference unknown = (fmi2ValueReference)atol(argv[5]);
        for (int i = 6; i < argc; ++i) {
            const fmi2ValueReference known = (fmi2ValueReference)atol(argv[i]);
            const double seed = 1.0;
            double result = 0.0;
            check(p_fmi2GetDirectionalDerivative(c, &unknown, 1, &known, 1, &seed, &result),
                  "fmi2GetDirectionalDerivative");
            printf("%s%.17g", i == 6 ? "" : ",", result);
        }
        printf("\n");
        p_fmi2FreeInstance(c);
        dlclose(library);
        return 0;
    }
    if (strcmp(mode, "events") == 0 && argc == 9) {
        const size_t nx = (size_t)atol(argv[5]), ng = (size_t)atol(argv[6]);
        const double h = atof(argv[7]), stop = atof(argv[8]);
        fmi2Component c = p_fmi2Instantiate("events", fmi2ModelExchange, guid, "", &callbacks,
                                            fmi2False, fmi2False);
        if (c == NULL || nx > 64 || ng > 64) {
            fail("fmi2Instantiate (Model Exchange)");
        }
        check(p_fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2True, stop), "fmi2SetupExperiment");
        check(p_fmi2EnterInitializationMode(c), "fmi2EnterInitializationMode");
        check(p_fmi2ExitInitializationMode(c), "fmi2ExitInitializationMode");
        fmi2EventInfo info;
        check(p_fmi2NewDiscreteStates(c, &info), "fmi2NewDiscreteStates");
        check(p_fmi2EnterContinuousTimeMode(c), "fmi2EnterContinuousTimeMode");
        double x[64], g0[64], g1[64], trial[64];
        check(p_fmi2GetContinuousStates(c, x, nx), "fmi2GetContinuousStates");
        check(p_fmi2GetEventIndicators(c, g0, ng), "fmi2GetEventIndicators");
        double t = 0.0;
        int events = 0;
        while (t < stop - 1e-12 && events < 1000) {
            const double step = t + h > stop ? stop - t : h;
            rk4_step(c, nx, t, x, step, trial);
            indicators_at(c, nx, ng, t + step, trial, g1);
            size_t k = 0;
            while (k < ng && !(g0[k] < 0.0 && g1[k] >= 0.0)) {
                ++k;
            }
            if (k == ng) { /* no event: the step is accepted */
                memcpy(x, trial, nx * sizeof x[0]);
                t += step;
                fmi2Boolean enter = fmi2True, terminate = fmi2True;
                check(p_fmi2CompletedIntegratorStep(c, fmi2True, &enter, &terminate),
                      "fmi2CompletedIntegratorStep");
                memcpy(g0, g1, ng * sizeof g0[0]);
                continue;
            }
            /* bisection of the step for the first crossing of indicator k */
            double a = 0.0, b = step;
            while (b - a > 1e-14) {
                const double m = 0.5 * (a + b);
                rk4_step(c, nx, t, x, m, trial);
                indicators_at(c, nx, ng, t + m, trial, g1);
                if (g1[k] >= 0.0) {
                    b = m;
                } else {
                    a = m;
                }
            }
            rk4_step(c, nx, t, x, b, trial);
            t += b;
            check(p_fmi2SetTime(c, t), "fmi2SetTime");
            check(p_fmi2SetContinuousStates(c, trial, nx), "fmi2SetContinuousStates");
            check(p_fmi2EnterEventMode(c), "fmi2EnterEventMode");
            do {
                check(p_fmi2NewDiscreteStates(c, &info), "fmi2NewDiscreteStates");
            } while (info.newDiscreteStatesNeeded && !info.terminateSimulation);
            if (!info.valuesOfContinuousStatesChanged) {
                fail("fmi2NewDiscreteStates fired no event at the indicator's crossing");
            }
            check(p_fmi2GetContinuousStates(c, x, nx), "fmi2GetContinuousStates");
            check(p_fmi2GetEventIndicators(c, g0, ng), "fmi2GetEventIndicators");
            check(p_fmi2EnterContinuousTimeMode(c), "fmi2EnterContinuousTimeMode");
            printf("event,%.17g\n", t);
            ++events;
        }
        printf("%.17g", t);
        for (size_t i = 0; i < nx; ++i) {
            printf(",%.17g", x[i]);
        }
        printf("\n");
        check(p_fmi2Terminate(c), "fmi2Terminate");
        p_fmi2FreeInstance(c);
        dlclose(library);
        return 0;
    }
    if (strcmp(mode, "me") == 0 && argc == 8) {
        /* Model Exchange: classical RK4 with step H on the FMU's derivatives, from 0 to STOP;
         * prints "t,x..." at the end */
        const size_t nx = (size_t)atol(argv[5]);
        const double h = atof(argv[6]), stop = atof(argv[7]);
        fmi2Component c =
            p_fmi2Instantiate("me", fmi2ModelExchange, guid, "", &callbacks, fmi2False, fmi2False);
        if (c == NULL || nx > 64) {
            fail("fmi2Instantiate (Model Exchange)");
        }
        check(p_fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2True, stop), "fmi2SetupExperiment");
        check(p_fmi2EnterInitializationMode(c), "fmi2EnterInitializationMode");
        check(p_fmi2ExitInitializationMode(c), "fmi2ExitInitializationMode");
        fmi2EventInfo info;
        check(p_fmi2NewDiscreteStates(c, &info), "fmi2NewDiscreteStates");
        if (info.newDiscreteStatesNeeded || info.terminateSimulation) {
            fail("fmi2NewDiscreteStates asks for more");
        }
        check(p_fmi2EnterContinuousTimeMode(c), "fmi2EnterContinuousTimeMode");
        double x[64], k1[64], k2[64], k3[64], k4[64], y[64];
        check(p_fmi2GetContinuousStates(c, x, nx), "fmi2GetContinuousStates");
        const long steps = lround(stop / h);
        double* stages[4] = {k1, k2, k3, k4};
        const double offsets[4] = {0.0, 0.5, 0.5, 1.0};
        for (long n = 0; n < steps; ++n) {
            const double t = (double)n * h;
            for (int s = 0; s < 4; ++s) {
                for (size_t i = 0; i < nx; ++i) {
                    y[i] = s == 0 ? x[i] : x[i] + offsets[s] * h * stages[s - 1][i];
                }
                check(p_fmi2SetTime(c, t + offsets[s] * h), "fmi2SetTime");
                check(p_fmi2SetContinuousStates(c, y, nx), "fmi2SetContinuousStates");
                check(p_fmi2GetDerivatives(c, stages[s], nx), "fmi2GetDerivatives");
            }
            for (size_t i = 0; i < nx; ++i) {
                x[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            }
            fmi2Boolean event = fmi2True, terminate = fmi2True;
            check(p_fmi2CompletedIntegratorStep(c, fmi2True, &event, &terminate),
                  "fmi2CompletedIntegratorStep");
            if (event || terminate) {
                fail("fmi2CompletedIntegratorStep asks for an event");
            }
        }
        check(p_fmi2SetTime(c, stop), "fmi2SetTime");
        check(p_fmi2SetContinuousStates(c, x, nx), "fmi2SetContinuousStates");
        printf("%.17g", stop);
        print_outputs(c, nx);
        printf("\n");
        check(p_fmi2EnterEventMode(c), "fmi2EnterEventMode");
        check(p_fmi2Terminate(c), "fmi2Terminate");
        p_fmi2FreeInstance(c);
        dlclose(library);
        return 0;
    }
    if (argc < 8) {
        fprintf(stderr, "usage: fmu_host FMU IDENTIFIER GUID MODE OUTPUTS H STOP ...\n");
        return 2;
    }
    const size_t outputs = (size_t)atol(argv[5]);
    const double h = atof(argv[6]), stop = atof(argv[7]);
    const long steps = lround(stop / h);
    if (strcmp(mode, "run") == 0 || strcmp(mode, "tune") == 0 || strcmp(mode, "refuse") == 0) {
        fmi2ValueReference vr[64];
        double values[64];
        size_t nset = 0;
        double tune_at = -1.0, tune_value = 0.0;
        fmi2ValueReference tune_vr = 0;
        if (strcmp(mode, "tune") == 0) {
            if (argc != 11) {
                return 2;
            }
            tune_vr = (fmi2ValueReference)atol(argv[8]);
            tune_value = atof(argv[9]);
            tune_at = atof(argv[10]);
        } else if (strcmp(mode, "refuse") == 0) {
            if (argc != 9) {
                return 2;
            }
        } else {
            for (int i = 8; i < argc && nset < 64; ++i, ++nset) {
                vr[nset] = (fmi2ValueReference)atol(argv[i]);
                values[nset] = atof(strchr(argv[i], '=') + 1);
            }
        }
        fmi2Component c = start(guid, "run", stop, nset, vr, values);
        if (strcmp(mode, "refuse") == 0) {
            expect_error(p_fmi2DoStep(c, 0.0, atof(argv[8]), fmi2True),
                         "fmi2DoStep to a time the FMU cannot reach");
        }
        printf("0");
        print_outputs(c, outputs);
        printf("\n");
        for (long k = 0; k < steps; ++k) {
            const double t = (double)k * h;
            if (tune_at >= 0.0 && t >= tune_at) {
                check(p_fmi2SetReal(c, &tune_vr, 1, &tune_value), "fmi2SetReal between steps");
                tune_at = -1.0;
            }
            check(p_fmi2DoStep(c, t, h, fmi2True), "fmi2DoStep");
            printf("%.17g", (double)(k + 1) * h);
            print_outputs(c, outputs);
            printf("\n");
        }
        check(p_fmi2Terminate(c), "fmi2Terminate");
        p_fmi2FreeInstance(c);
    } else if (strcmp(mode, "threads") == 0 && argc == 11) {
        /* as two, each instance stepped to STOP on its own thread at the same time */
        fmi2ValueReference vr = (fmi2ValueReference)atol(argv[8]);
        struct Run runs[2] = {{NULL, outputs, h, steps, fmi2OK}, {NULL, outputs, h, steps, fmi2OK}};
        double values[2] = {atof(argv[9]), atof(argv[10])};
        pthread_t threads[2];
        for (int i = 0; i < 2; ++i) {
            runs[i].c = start(guid, i == 0 ? "first" : "second", stop, 1, &vr, &values[i]);
        }
        for (int i = 0; i < 2; ++i) {
            if (pthread_create(&threads[i], NULL, run_thread, &runs[i]) != 0) {
                fail("pthread_create");
            }
        }
        for (int i = 0; i < 2; ++i) {
            pthread_join(threads[i], NULL);
            if (runs[i].status != fmi2OK) {
                fail("fmi2DoStep on a thread");
            }
        }
        printf("%.17g", (double)steps * h);
        for (int i = 0; i < 2; ++i) {
            print_outputs(runs[i].c, outputs);
            p_fmi2FreeInstance(runs[i].c);
        }
        printf("\n");
    } else if (strcmp(mode, "two") == 0 && argc == 11) {
        fmi2ValueReference vr = (fmi2ValueReference)atol(argv[8]);
        double first = atof(argv[9]), second = atof(argv[10]);
        fmi2Component a = start(guid, "first", stop, 1, &vr, &first);
        fmi2Component b = start(guid, "second", stop, 1, &vr, &second);
        for (long k = 0; k < steps; ++k) {
            const double t = (double)k * h;
            check(p_fmi2DoStep(a, t, h, fmi2True), "fmi2DoStep (first)");
            check(p_fmi2DoStep(b, t, h, fmi2True), "fmi2DoStep (second)");
            printf("%.17g", (double)(k + 1) * h);
            print_outputs(a, outputs);
            print_outputs(b, outputs);
            printf("\n");
        }
        p_fmi2FreeInstance(a);
        p_fmi2FreeInstance(b);
    } else {
        fprintf(stderr, "unknown mode '%s'\n", mode);
        return 2;
    }
    dlclose(library);
    return 0;
}
