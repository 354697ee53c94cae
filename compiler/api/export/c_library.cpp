#include "c_library.hpp"

#include "fmu_model_source.hpp"
#include "fmu_shared_object.hpp"
#include "link_support.hpp"
#include "mdl/export.hpp"
#include "runtime/numerical_failure.hpp"

#include <cctype>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>

namespace mdl::exporting {

namespace fs = std::filesystem;

namespace {

// A comment line's text: no "*/" inside.
std::string comment(std::string text) {
    for (std::size_t at = text.find("*/"); at != std::string::npos; at = text.find("*/")) {
        text.replace(at, 2, "* /");
    }
    return text;
}

std::string number(double value) {
    return runtime::format_number(value);
}

// The output interval NAME_simulate uses when the settings give none: the default
// experiment's (the annotation's Interval, else the fixed or macro step); 0 for dopri5 without
// an Interval.
double default_interval(const FmuContents& c) {
    return c.communication_step.value_or(c.adaptive ? 0.0 : c.step);
}

std::string wrapper_source(const FmuContents& c) {
    const std::string& name = c.model_identifier;
    std::string s = fmu_model_source(c, "static const mdl_fmu_model " + name + "_model");
    s += "\n#include \"c_library.h\"\n#include \"" + name + ".h\"\n\n";
    s += "static const char* const " + name + "_outputs[] = {\n";
    for (std::size_t i = 0; i < c.outputs; ++i) {
        std::string quoted;
        for (char ch : c.variables[i].name) {
            quoted += ch == '"' || ch == '\\' ? std::string("\\") + ch : std::string(1, ch);
        }
        s += "    \"" + quoted + "\",\n";
    }
    s += "    0};\n\n";
    s += fmt::format(R"c(int {0}_simulate(const {0}_settings* settings, {0}_row row, void* user,
                 char* message, size_t message_size) {{
    mdl_library_settings s;
    if (settings == 0) {{
        return mdl_library_simulate(&{0}_model, {1}, 0, row, user, message, message_size);
    }}
    s.start_time = settings->start_time;
    s.stop_time = settings->stop_time;
    s.output_interval = settings->output_interval;
    s.n_parameters = settings->n_parameters;
    s.parameter_names = settings->parameter_names;
    s.parameter_values = settings->parameter_values;
    s.note = settings->note;
    return mdl_library_simulate(&{0}_model, {1}, &s, row, user, message, message_size);
}}

const char* {0}_output_name(size_t i) {{
    return i < {2} ? {0}_outputs[i] : 0;
}}
)c",
                     name, fmt::format("{:a}", default_interval(c)), c.outputs);
    return s;
}

} // namespace

std::string c_library_header_text(const FmuContents& c) {
    const std::string& name = c.model_identifier;
    std::string h = fmt::format(
        "/* {0}.h: the model {1}{2} as a C library, written by `mdl export --c-library`.\n"
        " * lib{0}.a needs -lstdc++ -lm at the final link, lib{0}.so only libc and libm; neither\n"
        " * needs LLVM or libmdl.\n"
        " *\n"
        " * {0}_simulate runs the model with the method exported, {3}, from the start time to\n"
        " * the stop time and calls row(user, t, values, {0}_OUTPUTS) at the start, at every\n"
        " * output interval and at the stop time; values are, in this order:\n",
        name, comment(c.model_name),
        c.description.empty() ? "" : " (" + comment(c.description) + ")",
        c.adaptive ? fmt::format("{} (rtol {}, atol {})", c.method, number(c.rtol), number(c.atol))
        : c.multiscale ? fmt::format("{} with macro step H = {}", c.method, number(c.step))
                       : fmt::format("{} with step {}", c.method, number(c.step)));
    for (std::size_t i = 0; i < c.outputs; ++i) {
        h += fmt::format(" *     {:3}  {}\n", i, comment(c.variables[i].name));
    }
    h += " * Parameters, settable by name (their exported values):\n";
    for (std::size_t i = 0; i < c.parameters; ++i) {
        const FmuVariable& p = c.variables[c.outputs + i];
        h += fmt::format(" *     {} = {}{}{}\n", comment(p.name), number(p.start),
                         p.description.empty() ? "" : "  " + comment(p.description),
                         c.parameter_tunable[i] ? "" : "  (fixed at export)");
    }
    const double interval = default_interval(c);
    h += fmt::format(
        " * Default settings (a stop time not after the start time, an output interval <= 0):\n"
        " * start {}, stop {}, output interval {}.{}\n"
        " * The rows are `mdl run`'s when the output interval is a multiple of the step; with a\n"
        " * multiscale method it must be (else the run fails naming both).\n"
        " * Returns 0 after the last row (or when row returns nonzero); else nonzero with the\n"
        " * reason in message (a numerical failure names the time, variable and method). */\n",
        number(c.start_time), number(c.stop_time), interval > 0.0 ? number(interval) : "none",
        interval > 0.0 ? "" : " (give one)");
    h += fmt::format(R"c(#ifndef {1}_H
#define {1}_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {{
#endif

#define {0}_OUTPUTS {2}

typedef int (*{0}_row)(void* user, double t, const double* values, size_t count);

/* Notes of the run: each start value the consistent start changed (onto the constraints, the
 * values marked fixed = true kept, as `mdl run` does and reports on stderr), then the
 * initialization and the events, one line each. */
typedef void (*{0}_note)(void* user, const char* text);

typedef struct {0}_settings {{
    double start_time;
    double stop_time;       /* not after start_time: the default start and stop */
    double output_interval; /* <= 0: the default output interval */
    size_t n_parameters;    /* parameters set before the run */
    const char* const* parameter_names;
    const double* parameter_values;
    {0}_note note;          /* null: no notes */
}} {0}_settings;

int {0}_simulate(const {0}_settings* settings, {0}_row row, void* user, char* message,
    size_t message_size);

/* The name of output i ("q", "der(q)"), null for i >= {0}_OUTPUTS. */
const char* {0}_output_name(size_t i);

#ifdef __cplusplus
}}
#endif

#endif
)c",
                     name,
                     [&] {
                         std::string upper;
                         for (char ch : name) {
                             upper +=
                                 static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
                         }
                         return upper;
                     }(),
                     c.outputs);
    return h;
}

void write_c_library(const FmuContents& c, const std::string& folder) {
    const std::string& name = c.model_identifier;
    const std::string cxx = system_compiler();
    const std::string library = fmi_library();
    TemporaryFolder work;
    const fs::path& dir = work.path();
    const std::string header = c_library_header_text(c);
    write_file(dir / "kernels.o", c.object_code);
    write_file(dir / "fmu_model.h", fmu_model_header());
    write_file(dir / "c_library.h", c_library_header());
    write_file(dir / (name + ".h"), header);
    write_file(dir / (name + "_library.c"), wrapper_source(c));
    const fs::path wrapper = dir / (name + "_library.o"), log = dir / "link.log";
    const auto q = [](const fs::path& p) {
        return shell_quote(p.string());
    };
    run_or_throw(fmt::format("{} -x c -c -fPIC -O2 -I {} -o {} {}", shell_quote(cxx), q(dir),
                             q(wrapper), q(dir / (name + "_library.c"))),
                 log, wrapper, "compiling the C library's entry point");
    // the shared object: libstdc++ and libgcc inside, NAME_* exported only
    write_file(dir / "exports.map", "{ global: " + name + "_*; local: *; };\n");
    const fs::path shared = dir / ("lib" + name + ".so");
    run_or_throw(fmt::format("{} -shared -fPIC -O2 -o {} {} {} {} -static-libstdc++ -static-libgcc "
                             "-s -Wl,--version-script={} -Wl,--no-undefined -Wl,-soname,lib{}.so "
                             "-lm",
                             shell_quote(cxx), q(shared), q(wrapper), q(dir / "kernels.o"),
                             shell_quote(library), q(dir / "exports.map"), name),
                 log, shared, "linking the C library's shared object");
    // the archive: one object partially linked from what NAME_simulate needs, NAME_* global
    const fs::path combined = dir / (name + ".o");
    run_or_throw(fmt::format("{} -r -nostdlib -o {} {} {} {}", shell_quote(cxx), q(combined),
                             q(wrapper), q(dir / "kernels.o"), shell_quote(library)),
                 log, combined, "linking the C library's object");
    run_or_throw(fmt::format("objcopy --strip-debug --wildcard --keep-global-symbol={} {}",
                             shell_quote(name + "_*"), q(combined)),
                 log, combined, "objcopy (binutils) making all but " + name + "_* local");
    const fs::path archive = dir / ("lib" + name + ".a");
    run_or_throw(fmt::format("ar rcs {} {}", q(archive), q(combined)), log, archive,
                 "ar (binutils) writing the archive");
    std::error_code error;
    fs::create_directories(folder, error);
    if (error) {
        throw WriteFailure(folder, error.message());
    }
    for (const std::string& file : {"lib" + name + ".a", "lib" + name + ".so", name + ".h"}) {
        const fs::path target = fs::path(folder) / file;
        const std::string bytes = read_file(dir / file);
        std::ofstream out(target, std::ios::binary | std::ios::trunc);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        if (!out) {
            throw WriteFailure(target.string(), "cannot write the file");
        }
    }
}

} // namespace mdl::exporting
