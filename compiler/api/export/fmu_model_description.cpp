#include "fmu_model_description.hpp"

#include "check/dimension.hpp"
#include "runtime/output/xml_escape.hpp"

#include <cstdint>
#include <fmt/format.h>
#include <set>
#include <vector>

namespace mdl::exporting {

namespace {

// FNV-1a, 64 bits, from a given basis: two bases give the GUID's 128 bits.
std::uint64_t fnv1a(const std::string& bytes, std::uint64_t hash) {
    for (unsigned char b : bytes) {
        hash ^= b;
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

// <UnitDefinitions> (FMI 2.0, section 2.2.2): each unit the variables use, with its SI base
// units; a unit with a fractional exponent has no BaseUnit form and is left out.
std::string unit_definitions(const FmuContents& c, std::set<std::string>& defined) {
    static const char* const base[] = {"kg", "m", "s", "A", "K", "mol", "cd", "rad"};
    std::string x;
    for (const std::string& unit : c.units) {
        std::string why;
        const auto d =
            unit.empty() || defined.count(unit) ? std::nullopt : check::parse_unit(unit, why);
        if (!d) {
            continue;
        }
        std::string attributes;
        bool whole = true;
        for (std::size_t i = 0; i < check::Dimension::count; ++i) {
            const check::Rational e = d->exponent[i];
            whole = whole && e.den == 1;
            if (!e.zero()) {
                attributes += fmt::format(" {}=\"{}\"", base[i], e.num);
            }
        }
        if (whole) {
            defined.insert(unit);
            x += fmt::format("    <Unit name=\"{}\"><BaseUnit{}/></Unit>\n",
                             runtime::xml_escaped(unit), attributes);
        }
    }
    return x.empty() ? x : "  <UnitDefinitions>\n" + x + "  </UnitDefinitions>\n";
}

} // namespace

std::string model_description_xml(const FmuContents& c) {
    std::string x;
    x += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    x += fmt::format("<fmiModelDescription\n  fmiVersion=\"2.0\"\n  modelName=\"{}\"\n"
                     "  guid=\"{}\"\n",
                     runtime::xml_escaped(c.model_name), runtime::xml_escaped(c.guid));
    if (!c.description.empty()) {
        x += fmt::format("  description=\"{}\"\n", runtime::xml_escaped(c.description));
    }
    x += fmt::format("  generationTool=\"mdl export (method {}{})\"\n"
                     "  variableNamingConvention=\"flat\"\n"
                     "  numberOfEventIndicators=\"{}\">\n",
                     c.method, c.adaptive ? "" : fmt::format(", step {}", c.step),
                     c.model_exchange ? c.events.size() : 0);
    // Co-Simulation only; each capability as the FMU has it
    x += fmt::format("  <CoSimulation\n    modelIdentifier=\"{}\"\n"
                     "    needsExecutionTool=\"false\"\n"
                     "    canHandleVariableCommunicationStepSize=\"true\"\n"
                     "    canInterpolateInputs=\"false\"\n"
                     "    maxOutputDerivativeOrder=\"0\"\n"
                     "    canRunAsynchronuously=\"false\"\n"
                     "    canBeInstantiatedOnlyOncePerProcess=\"false\"\n"
                     "    canNotUseMemoryManagementFunctions=\"true\"\n"
                     "    canGetAndSetFMUstate=\"false\"\n"
                     "    canSerializeFMUstate=\"false\"\n"
                     "    providesDirectionalDerivative=\"false\"/>\n",
                     runtime::xml_escaped(c.model_identifier));
    if (c.model_exchange) { // an ODE (with its events' indicators): the same capabilities
        x += fmt::format("  <ModelExchange\n    modelIdentifier=\"{}\"\n"
                         "    needsExecutionTool=\"false\"\n"
                         "    completedIntegratorStepNotNeeded=\"true\"\n"
                         "    canBeInstantiatedOnlyOncePerProcess=\"false\"\n"
                         "    canNotUseMemoryManagementFunctions=\"true\"\n"
                         "    canGetAndSetFMUstate=\"false\"\n"
                         "    canSerializeFMUstate=\"false\"\n"
                         "    providesDirectionalDerivative=\"{}\"/>\n",
                         runtime::xml_escaped(c.model_identifier), c.directional_derivatives);
    }
    std::set<std::string> units;
    x += unit_definitions(c, units);
    x += "  <LogCategories>\n"
         "    <Category name=\"logError\" description=\"errors: wrong calls, numerical "
         "failures\"/>\n"
         "    <Category name=\"logInfo\" description=\"initialization\"/>\n"
         "  </LogCategories>\n";
    x += fmt::format("  <DefaultExperiment startTime=\"{}\" stopTime=\"{}\"", c.start_time,
                     c.stop_time);
    if (c.adaptive) {
        x += fmt::format(" tolerance=\"{}\"", c.rtol);
    }
    if (c.communication_step) {
        x += fmt::format(" stepSize=\"{}\"", *c.communication_step);
    }
    x += "/>\n";
    x += "  <ModelVariables>\n";
    for (std::size_t i = 0; i < c.variables.size(); ++i) {
        const FmuVariable& v = c.variables[i];
        x += fmt::format("    <!-- index {} -->\n", i + 1);
        x += fmt::format("    <ScalarVariable name=\"{}\" valueReference=\"{}\"",
                         runtime::xml_escaped(v.name), v.value_reference);
        if (!v.description.empty()) {
            x += fmt::format(" description=\"{}\"", runtime::xml_escaped(v.description));
        }
        x += fmt::format(" causality=\"{}\" variability=\"{}\" initial=\"{}\">\n", v.causality,
                         v.variability, v.calculated ? "calculated" : "exact");
        std::string derivative =
            v.derivative_of != 0 ? fmt::format(" derivative=\"{}\"", v.derivative_of) : "";
        if (i < c.units.size() && units.count(c.units[i])) {
            derivative = fmt::format(" unit=\"{}\"", runtime::xml_escaped(c.units[i])) + derivative;
        }
        if (v.calculated) {
            x += fmt::format("      <Real{}/>\n", derivative);
        } else {
            x += fmt::format("      <Real start=\"{}\"{}/>\n", v.start, derivative);
        }
        x += "    </ScalarVariable>\n";
    }
    x += "  </ModelVariables>\n";
    // <Derivatives>: the derivative of each continuous state (q, v, x), which orders the state
    // vector of Model Exchange. The initial unknowns (section 2.2.8) are the derivatives with
    // initial="calculated": the accelerations and rates (the outputs and velocities are exact).
    std::vector<std::size_t> outputs, derivatives, initial_unknowns;
    for (std::size_t i = 0; i < c.outputs; ++i) {
        outputs.push_back(i + 1);
    }
    for (std::size_t i = 0; i < c.variables.size(); ++i) {
        if (c.variables[i].derivative_of != 0) {
            derivatives.push_back(i + 1);
            if (c.variables[i].calculated) {
                initial_unknowns.push_back(i + 1);
            }
        }
    }
    const auto unknowns = [&x](const char* element, const std::vector<std::size_t>& indices) {
        if (indices.empty()) {
            return; // the schema does not allow the element empty
        }
        x += fmt::format("    <{}>\n", element);
        for (std::size_t index : indices) {
            x += fmt::format("      <Unknown index=\"{}\"/>\n", index);
        }
        x += fmt::format("    </{}>\n", element);
    };
    x += "  <ModelStructure>\n";
    unknowns("Outputs", outputs);
    unknowns("Derivatives", derivatives);
    unknowns("InitialUnknowns", initial_unknowns);
    x += "  </ModelStructure>\n";
    x += "</fmiModelDescription>\n";
    return x;
}

void assign_guid(FmuContents& c, const std::string& extra) {
    c.guid.clear();
    const std::string bytes = c.object_code + model_description_xml(c) + extra;
    const std::uint64_t a = fnv1a(bytes, 0xcbf29ce484222325ULL);
    const std::uint64_t b = fnv1a(bytes, 0x84222325cbf29ce4ULL);
    c.guid = fmt::format("{{{:08x}-{:04x}-{:04x}-{:04x}-{:012x}}}", a >> 32, (a >> 16) & 0xffff,
                         a & 0xffff, b >> 48, b & 0xffffffffffffULL);
}

} // namespace mdl::exporting
