#include "c_header.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <string_view>

namespace mdl::api {

namespace {

constexpr std::string_view kernel_abi =
#include "kernel_abi_text.inc"
    ;

// A C string literal: the names of mdl are printable ASCII, but quote anything else too.
std::string literal(const std::string& text) {
    std::string out = "\"";
    for (unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20 || c >= 0x7f) {
            out += fmt::format("\\{:03o}", c);
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

// A double as a C literal that reads back to the same value (NaN and infinities through
// math.h's macros).
std::string number(double value) {
    if (std::isnan(value)) {
        return "NAN";
    }
    if (std::isinf(value)) {
        return value > 0 ? "INFINITY" : "(-INFINITY)";
    }
    std::string text = fmt::format("{:.17g}", value);
    if (text.find_first_of(".eEn") == std::string::npos) {
        text += ".0";
    }
    return text;
}

std::string upper(const std::string& text) {
    std::string out;
    for (char c : text) {
        out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return out;
}

// `static const char* const P_<what>[]` (a one-element array of NULL when empty: C has no
// empty arrays).
std::string names(const std::string& prefix, const char* what,
                  const std::vector<std::string>& list) {
    std::string out = fmt::format("static const char* const {}_{}_names[] = {{", prefix, what);
    if (list.empty()) {
        return out + "0};\n";
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
        out += (i ? ", " : "") + literal(list[i]);
    }
    return out + "};\n";
}

std::string values(const std::string& prefix, const char* what, const std::vector<double>& list) {
    std::string out = fmt::format("static const double {}_{}[] = {{", prefix, what);
    if (list.empty()) {
        return out + "0.0};\n";
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
        out += (i ? ", " : "") + number(list[i]);
    }
    return out + "};\n";
}

} // namespace

std::string c_header(const HeaderModel& m) {
    const std::string& p = m.prefix;
    const std::string guard = "MDL_MODEL_" + upper(p) + "_H";
    std::string out;
    out += fmt::format("/* {}_kernels: the kernels of model {} ({}), compiled ahead of time by "
                       "mdl for\n * {} (CPU {}). Link the object file generated with this "
                       "header and libm.\n *\n * The parameter values and start state below are "
                       "those the model was compiled with;\n * the kernels read the parameters "
                       "from args->p at every call, so a host may pass others\n * (parameters "
                       "defined from others in the model are not recomputed here). */\n",
                       p, m.model, m.source, m.triple, m.cpu);
    out += fmt::format("#ifndef {0}\n#define {0}\n\n", guard);
    out += kernel_abi;
    out += "\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
    out += fmt::format("extern const mdl_kernels {}_kernels;\n", p);
    for (const std::string& k : m.kernels) {
        out += fmt::format("void {}_{}(const mdl_kernel_args* args, double* out);\n", p, k);
    }
    out += "\n";
    out += fmt::format("#define {}_MODEL_NAME {}\n", upper(p), literal(m.model));
    out += fmt::format("enum {{\n    {0}_n_positions = {1},\n    {0}_n_states = {2},\n"
                       "    {0}_n_constraints = {3},\n    {0}_n_vibrations = {4},\n"
                       "    {0}_n_parameters = {5}\n}};\n",
                       p, m.positions.size(), m.states.size(), m.constraints.size(),
                       m.vibrations.size(), m.parameters.size());
    out += names(p, "position", m.positions);
    out += names(p, "velocity", m.velocities);
    out += names(p, "state", m.states);
    out += names(p, "constraint", m.constraints);
    out += names(p, "vibration", m.vibrations);
    out += names(p, "parameter", m.parameters);
    out += values(p, "parameter_values", m.parameter_values);
    out += values(p, "start_positions", m.start_positions);
    out += values(p, "start_velocities", m.start_velocities);
    out += values(p, "start_states", m.start_states);
    out += "\n#ifdef __cplusplus\n}\n#endif\n\n";
    out += fmt::format("#endif /* {} */\n", guard);
    return out;
}

} // namespace mdl::api
