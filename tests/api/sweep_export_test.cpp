// Sweeps and export through the library's C++ and C entry points (mdl/sweep.hpp,
// mdl/export.hpp, mdl.h): the sweeps' final values against the harmonic oscillator's closed
// form q(T) = q0 cos(sqrt(k/m) T) (models/harmonic_oscillator.mdl: m = 2, q0 = 1, v0 = 0), the
// runs' notes carried from worker processes, and the C and C++ exports writing their files.
#include "mdl.h"
#include "mdl/compiled_model.hpp"
#include "mdl/export.hpp"
#include "mdl/sweep.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string model_path(const std::string& file) {
    return std::string(MDL_SOURCE_DIR) + "/models/" + file;
}

fs::path fresh_folder(const std::string& name) {
    fs::path folder = fs::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
    fs::remove_all(folder);
    return folder;
}

// The column `name` of summary.csv, one value per run.
std::vector<double> summary_column(const fs::path& summary, const std::string& name) {
    std::ifstream in(summary);
    std::string line, cell;
    std::getline(in, line);
    std::size_t column = 0;
    for (std::istringstream header(line); std::getline(header, cell, ','); ++column) {
        if (cell == name) {
            break;
        }
    }
    std::vector<double> values;
    while (std::getline(in, line)) {
        std::istringstream row(line);
        for (std::size_t i = 0; i <= column; ++i) {
            std::getline(row, cell, ',');
        }
        values.push_back(std::stod(cell));
    }
    return values;
}

std::string file_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

double closed_form(double k, double t) {
    return std::cos(std::sqrt(k / 2.0) * t);
}

} // namespace

TEST_CASE("mdl::sweep in worker processes meets the oscillator's closed form and carries notes") {
    const mdl::CompiledModel model = mdl::compile_file(model_path("harmonic_oscillator.mdl"));
    const mdl::SweepGrid grid({mdl::parse_sweep_axis("k=2,8,18")});
    mdl::SimulationSettings s;
    s.method = "dopri5";
    s.stop = 1.0;
    s.rtol = 1e-10;
    s.atol = 1e-12;
    mdl::SweepOptions o;
    o.output = fresh_folder("mdl_api_sweep");
    o.trajectories = false;
    o.jobs = 2;
    const mdl::SweepReport report = mdl::sweep(model, grid, s, o);
    REQUIRE(report.count(mdl::RunOutcome::Status::ok) == 3);
    const std::vector<double> q = summary_column(report.summary, "q");
    const std::vector<double> k = {2.0, 8.0, 18.0};
    REQUIRE(q.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(std::abs(q[i] - closed_form(k[i], 1.0)) < 1e-8);
    }
    fs::remove_all(o.output);

    // the rough start of the slider-crank (only the crank angle fixed) is each run's note
    const mdl::CompiledModel crank = mdl::compile_file(model_path("slider_crank.mdl"));
    mdl::SimulationSettings short_run;
    short_run.stop = 0.01;
    o.output = fresh_folder("mdl_api_sweep_notes");
    const mdl::SweepReport noted =
        mdl::sweep(crank, mdl::SweepGrid({mdl::parse_sweep_axis("a=0.1,0.11")}), short_run, o);
    for (const mdl::RunOutcome& r : noted.outcomes) {
        CHECK(r.notes.find("consistent start: changed") != std::string::npos);
    }
    fs::remove_all(o.output);
}

TEST_CASE("mdl::sweep_results on threads meets the oscillator's closed form") {
    const mdl::CompiledModel model = mdl::compile_file(model_path("harmonic_oscillator.mdl"));
    mdl::SimulationSettings s;
    s.method = "dopri5";
    s.stop = 1.0;
    s.rtol = 1e-10;
    s.atol = 1e-12;
    const auto points =
        mdl::sweep_results(model, mdl::SweepGrid({mdl::parse_sweep_axis("k=2,8")}), s, 2);
    REQUIRE(points.size() == 2);
    for (const mdl::SweepPoint& p : points) {
        REQUIRE(p.result);
        const std::vector<double> q = p.result->column("q");
        CHECK(std::abs(q.back() - closed_form(p.parameters[0].second, 1.0)) < 1e-8);
    }
}

TEST_CASE("mdl_sweep and mdl_export_c_library from C") {
    char* error = nullptr;
    mdl_model* model = mdl_compile_file(model_path("harmonic_oscillator.mdl").c_str(), &error);
    REQUIRE(model != nullptr);
    mdl_settings* s = mdl_settings_new();
    REQUIRE(mdl_settings_set(s, "method", "dopri5", &error) == 0);
    REQUIRE(mdl_settings_set(s, "stop", "1", &error) == 0);
    REQUIRE(mdl_settings_set(s, "rtol", "1e-10", &error) == 0);
    REQUIRE(mdl_settings_set(s, "atol", "1e-12", &error) == 0);
    const fs::path folder = fresh_folder("mdl_c_sweep");
    const char* axes[] = {"k=2,8"};
    std::size_t unsuccessful = 99;
    REQUIRE(mdl_sweep(model, s, axes, 1, folder.c_str(), 2, 0, &unsuccessful, &error) == MDL_OK);
    CHECK(unsuccessful == 0);
    const std::vector<double> q = summary_column(folder / "summary.csv", "q");
    REQUIRE(q.size() == 2);
    CHECK(std::abs(q[0] - closed_form(2.0, 1.0)) < 1e-8);
    CHECK(std::abs(q[1] - closed_form(8.0, 1.0)) < 1e-8);
    // a bad axis is the caller's error, with the option named
    const char* bad[] = {"nope=1"};
    CHECK(mdl_sweep(model, s, bad, 1, folder.c_str(), 1, 0, nullptr, &error) == MDL_BAD_SETTINGS);
    REQUIRE(error != nullptr);
    CHECK(std::string(error).find("-p nope") != std::string::npos);
    mdl_free_string(error);
    error = nullptr;
    fs::remove_all(folder);

    const fs::path library = fresh_folder("mdl_c_export");
    REQUIRE(mdl_export_c_library(model_path("harmonic_oscillator.mdl").c_str(), s, library.c_str(),
                                 &error) == MDL_OK);
    for (const char* file :
         {"libHarmonicOscillator.a", "libHarmonicOscillator.so", "HarmonicOscillator.h"}) {
        CHECK(fs::is_regular_file(library / file));
    }
    fs::remove_all(library);
    mdl_settings_free(s);
    mdl_free(model);
}

TEST_CASE("mdl::PreparedExport writes an FMU and a C library from one compile") {
    mdl::ExportSettings settings;
    settings.simulation.method = "verlet";
    settings.simulation.step = 1e-3;
    const mdl::PreparedExport prepared(model_path("harmonic_oscillator.mdl"), settings);
    const fs::path folder = fresh_folder("mdl_prepared_export");
    fs::create_directories(folder);
    const mdl::ExportSummary fmu = prepared.write_fmu((folder / "a.fmu").string());
    const mdl::ExportSummary again = prepared.write_fmu((folder / "b.fmu").string());
    const mdl::ExportSummary library = prepared.write_c_library((folder / "lib").string());
    CHECK(fmu.identifier == "HarmonicOscillator");
    CHECK(fmu.method == "verlet step 0.001");
    CHECK(library.identifier == fmu.identifier);
    CHECK(library.method == fmu.method);
    // the FMU is a zip archive; written again from the same preparation it holds the same
    // files (only the archive's time stamps may differ)
    CHECK(file_text(folder / "a.fmu").starts_with("PK"));
    CHECK(fs::file_size(folder / "a.fmu") == fs::file_size(folder / "b.fmu"));
    CHECK(again.variables == fmu.variables);
    CHECK(file_text(folder / "lib" / "HarmonicOscillator.h").find("HarmonicOscillator_simulate") !=
          std::string::npos);
    CHECK(fs::is_regular_file(folder / "lib" / "libHarmonicOscillator.so"));
    fs::remove_all(folder);
}
