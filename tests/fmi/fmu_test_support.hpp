// The FMI tests' helpers: mdl export into the tests' work folder, the test importer
// fmu_host.c, its rows, mdl run's reference rows and their comparison, and C programs linked
// against a library `mdl export --c-library` wrote (tests/fmi/c_library_main.c).
#pragma once

#include "cli_test_support.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fmu_test {

using namespace cli_test;
namespace fs = std::filesystem;

inline fs::path work_dir() {
    const fs::path dir = fs::path(MDL_BINARY_DIR) / "tests" / "fmi" / "work";
    fs::create_directories(dir);
    return dir;
}

struct Fmu {
    std::string path, identifier, guid;
};

// mdl export MODEL --fmu NAME.fmu ARGUMENTS; the identifier and GUID from its description.
inline Fmu export_fmu(const std::string& model, const std::string& name,
                      const std::string& arguments) {
    Fmu fmu;
    fmu.path = (work_dir() / (name + ".fmu")).string();
    const Result r = mdl("export " + model + " --fmu " + fmu.path + " " + arguments);
    INFO(r.output);
    REQUIRE(r.status == 0);
    const Result xml = run_command("unzip -p " + fmu.path + " modelDescription.xml");
    REQUIRE(xml.status == 0);
    std::smatch m;
    REQUIRE(std::regex_search(xml.output, m, std::regex("guid=\"([^\"]+)\"")));
    fmu.guid = m[1];
    REQUIRE(std::regex_search(xml.output, m, std::regex("modelIdentifier=\"([^\"]+)\"")));
    fmu.identifier = m[1];
    return fmu;
}

inline Result host(const Fmu& fmu, const std::string& arguments) {
    return run_command(std::string(FMU_HOST) + " " + fmu.path + " " + fmu.identifier + " '" +
                       fmu.guid + "' " + arguments);
}

// The host's output rows: numbers separated by commas (its stderr lines "log: ..." skipped).
inline std::vector<std::vector<double>> rows(const std::string& output) {
    std::vector<std::vector<double>> out;
    std::stringstream in(output);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line.starts_with("log:")) {
            continue;
        }
        std::vector<double>& row = out.emplace_back();
        for (const std::string& cell : fields(line)) {
            row.push_back(std::stod(cell));
        }
    }
    return out;
}

// mdl run with the same method and step, every `every`-th step: the reference trajectory.
inline CsvNumbers reference(const std::string& model, const std::string& name,
                            const std::string& arguments) {
    const fs::path csv = work_dir() / (name + ".csv");
    const Result r = mdl("run " + model + " -q -o " + csv.string() + " " + arguments);
    INFO(r.output);
    REQUIRE(r.status == 0);
    return CsvNumbers(csv);
}

// Columns `names` of the reference, row by row, equal to the host's columns from `first` on.
inline void require_same_bits(const std::vector<std::vector<double>>& fmu, const CsvNumbers& run,
                              const std::vector<std::string>& names, std::size_t first = 1) {
    REQUIRE(fmu.size() == run.rows.size());
    for (std::size_t i = 0; i < fmu.size(); ++i) {
        INFO("row " << i << " t = " << fmu[i][0]);
        REQUIRE(fmu[i][0] == Approx(run.rows[i][run.column("time")]).margin(1e-12));
        for (std::size_t j = 0; j < names.size(); ++j) {
            REQUIRE(fmu[i].at(first + j) == run.rows[i][run.column(names[j])]);
        }
    }
}

// The test importer's rows from running the FMU, the run required to succeed.
inline std::vector<std::vector<double>> stepped(const Fmu& fmu, const std::string& commands) {
    const Result r = host(fmu, commands);
    INFO(r.output);
    REQUIRE(r.status == 0);
    return rows(r.output);
}

// Builds tests/fmi/c_library_main.c against the library in `dir` with `link` (the library and
// what it needs); returns the program's path. The link command is checked: no LLVM, no libmdl.
inline std::string c_program(const fs::path& dir, const std::string& model_name,
                             const std::string& name, const std::string& link) {
    const std::string program = (dir / name).string();
    const std::string command = "cc -std=c99 -Wall -Wextra -Werror -o " + program + " " +
                                std::string(MDL_SOURCE_DIR) + "/tests/fmi/c_library_main.c -I " +
                                dir.string() + " -DMODEL=" + model_name + " '-DMODEL_HEADER=\"" +
                                model_name + ".h\"' " + link;
    INFO(command);
    REQUIRE(command.find("LLVM") == std::string::npos);
    REQUIRE(command.find("libmdl") == std::string::npos);
    REQUIRE(command.find("-lmdl") == std::string::npos);
    const Result r = run_command(command);
    INFO(r.output);
    REQUIRE(r.status == 0);
    return program;
}

// The NEEDED entries of an ELF file (readelf -d).
inline std::string needed(const std::string& file) {
    const Result r = run_command("readelf -d " + file + " | grep NEEDED");
    return r.output;
}

} // namespace fmu_test
