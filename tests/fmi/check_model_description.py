#!/usr/bin/env python3
"""Checks an mdl FMU's archive and modelDescription.xml against what FMI 2.0 requires and what
the export promises (docs/fmi.md): well-formed XML, fmiVersion 2.0, a GUID, the Co-Simulation
element with the shared object it names, every ScalarVariable with a unique value reference and
an allowed causality/variability/initial, the outputs listed in <ModelStructure>.

    check_model_description.py FMU NAME=CAUSALITY/VARIABILITY[/START]...

Each NAME=... must be a variable with that causality, variability and (when given) start value.
Prints what it checked; exit status 1 with the reason when something is wrong."""
import re
import sys
import zipfile
import xml.etree.ElementTree as ET


def fail(message):
    print("FAILED:", message)
    sys.exit(1)


def main():
    fmu, expectations = sys.argv[1], sys.argv[2:]
    with zipfile.ZipFile(fmu) as archive:
        names = archive.namelist()
        if "modelDescription.xml" not in names:
            fail("no modelDescription.xml in the FMU")
        root = ET.fromstring(archive.read("modelDescription.xml"))  # raises if malformed
        if root.tag != "fmiModelDescription" or root.get("fmiVersion") != "2.0":
            fail("not an FMI 2.0 model description")
        for attribute in ("modelName", "guid"):
            if not root.get(attribute):
                fail("no " + attribute)
        if not re.fullmatch(r"\{[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\}",
                            root.get("guid")):
            fail("the GUID is not {8-4-4-4-12}: " + root.get("guid"))
        cs = root.find("CoSimulation")
        if cs is None or not cs.get("modelIdentifier"):
            fail("no CoSimulation element with a modelIdentifier")
        binary = "binaries/linux64/" + cs.get("modelIdentifier") + ".so"
        if binary not in names:
            fail("the FMU has no " + binary)
        for flag in ("canGetAndSetFMUstate", "canSerializeFMUstate",
                     "providesDirectionalDerivative"):
            if cs.get(flag) != "false":
                fail(flag + " must be false: the FMU does not provide it")
    experiment = root.find("DefaultExperiment")
    if experiment is None or float(experiment.get("stopTime")) <= float(
            experiment.get("startTime")):
        fail("no DefaultExperiment with startTime < stopTime")
    variables = root.find("ModelVariables").findall("ScalarVariable")
    # every unit= names a <Unit> of <UnitDefinitions> (FMI 2.0, section 2.2.2)
    units = {u.get("name") for u in root.iter("Unit")}
    for v in variables:
        real = v.find("Real")
        if real is not None and real.get("unit") is not None and real.get("unit") not in units:
            fail("%s has the unit %s, which <UnitDefinitions> does not define" %
                 (v.get("name"), real.get("unit")))
    references = [v.get("valueReference") for v in variables]
    if len(set(references)) != len(references):
        fail("value references are not unique")
    allowed = {("output", "continuous"), ("parameter", "tunable"), ("parameter", "fixed"),
               ("local", "constant")}
    by_name = {}
    for v in variables:
        real = v.find("Real")
        if real is not None and real.get("derivative") is not None and \
                v.get("initial") == "calculated":
            # a state derivative (Model Exchange): calculated, no start, an initial unknown
            if (v.get("causality"), v.get("variability")) != ("local", "continuous") or \
                    real.get("start") is not None:
                fail(v.get("name") + ": a derivative must be local, continuous, without start")
            by_name[v.get("name")] = v
            continue
        if (v.get("causality"), v.get("variability")) not in allowed:
            fail("causality/variability of %s: %s/%s" %
                 (v.get("name"), v.get("causality"), v.get("variability")))
        if real is None or real.get("start") is None or v.get("initial") != "exact":
            fail(v.get("name") + " has no Real start value with initial exact")
        by_name[v.get("name")] = v
    outputs = [i + 1 for i, v in enumerate(variables) if v.get("causality") == "output"]
    structure = root.find("ModelStructure")
    listed = [int(u.get("index")) for u in structure.find("Outputs").findall("Unknown")]
    if listed != outputs:
        fail("ModelStructure/Outputs lists %s, the outputs are %s" % (listed, outputs))
    # Model Exchange: every <Derivatives> entry names a derivative of a state, and the initial
    # unknowns are the calculated ones among them
    derivatives = [int(u.get("index")) for u in structure.find("Derivatives").findall("Unknown")] \
        if structure.find("Derivatives") is not None else []
    for index in derivatives:
        if variables[index - 1].find("Real").get("derivative") is None:
            fail("<Derivatives> lists %s, which is no derivative" % variables[index - 1].get("name"))
    calculated = [i for i in derivatives if variables[i - 1].get("initial") == "calculated"]
    initial = [int(u.get("index")) for u in structure.find("InitialUnknowns").findall("Unknown")] \
        if structure.find("InitialUnknowns") is not None else []
    if initial != calculated:
        fail("InitialUnknowns %s, the calculated derivatives are %s" % (initial, calculated))
    if (root.find("ModelExchange") is not None) != bool(derivatives):
        fail("a ModelExchange element needs <Derivatives>, and only then")
    for expectation in expectations:
        name, _, rest = expectation.partition("=")
        parts = rest.split("/")
        v = by_name.get(name)
        if v is None:
            fail("no variable " + name)
        if [v.get("causality"), v.get("variability")] != parts[:2]:
            fail("%s is %s/%s, not %s" % (name, v.get("causality"), v.get("variability"), rest))
        if len(parts) > 2 and float(v.find("Real").get("start")) != float(parts[2]):
            fail("%s starts at %s, not %s" % (name, v.find("Real").get("start"), parts[2]))
    print("modelDescription.xml of %s: %d variables, %d outputs, GUID %s" %
          (root.get("modelName"), len(variables), len(outputs), root.get("guid")))


if __name__ == "__main__":
    main()
