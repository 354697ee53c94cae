// The same start in every front door: the shipped slider-crank and four-bar have rough start
// values (only the crank angle is `fixed = true`). `mdl run` projects them onto the
// constraints before integrating (runtime/consistent_start.hpp); an exported FMU does the same
// in fmi2ExitInitializationMode and a C library in NAME_simulate, each reporting the changes
// (the FMI logger, the library's note callback). Stepped by the test importer (fmu_host.c) and
// run from a C program, both give `mdl run`'s numbers to the last bit; and `mdl run` is checked
// against the mechanisms' closed-form kinematics, an independent reference:
//   slider-crank: x_s = a cos(theta) + sqrt(b^2 - a^2 sin(theta)^2) and its time derivative;
//   four-bar: Freudenstein's equation
//       K1 cos(theta4) - K2 cos(theta2) + K3 = cos(theta2 - theta4),
//       K1 = d/a, K2 = d/c, K3 = (a^2 - b^2 + c^2 + d^2)/(2 a c)
//   (Freudenstein, "Approximate synthesis of four-bar linkages", Trans. ASME 77 (1955)) and its
//   time derivative,
// to 1e-8: RATTLE keeps g(q) = 0 and G v = 0 at every step to its Newton tolerance (1e-12
// relative), so the closed forms hold at every row to round-off, not to the step's error.
#include "fmu_test_support.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

using namespace cli_test;
using namespace fmu_test;
namespace fs = std::filesystem;

namespace {

const std::string rattle = "--method rattle --step 1e-4";

struct Mechanism {
    std::string file, name, identifier;
    std::vector<std::string> columns; // the outputs: positions, then velocities
};

std::vector<std::string> outputs(const std::vector<std::string>& bodies) {
    std::vector<std::string> out;
    for (const char* prefix : {"", "der("}) {
        for (const std::string& body : bodies) {
            for (const char* coordinate : {".x", ".y", ".phi"}) {
                out.push_back(prefix + body + coordinate + (*prefix != '\0' ? ")" : ""));
            }
        }
    }
    return out;
}

const Mechanism slider_crank{"slider_crank.mdl", "rough_slider_crank", "SliderCrank",
                             outputs({"crank", "rod", "slider"})};
const Mechanism four_bar{"four_bar.mdl", "rough_four_bar", "FourBar",
                         outputs({"crank", "coupler", "rocker"})};

// mdl run's reference rows (every 100th step of 1e-4: communication step 0.01) to t = 2, and
// the consistent start's report on its stderr; `tag` keeps the test cases' files apart (ctest
// runs them at once).
CsvNumbers run_reference(const Mechanism& m, const std::string& tag) {
    const fs::path csv = work_dir() / (m.name + "_" + tag + ".csv");
    const Result r = mdl("run " + model(m.file) + " -q -o " + csv.string() + " " + rattle +
                         " --stop 2 --every 100");
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("consistent start: changed '") != std::string::npos);
    return CsvNumbers(csv);
}

double cell(const CsvNumbers& run, std::size_t row, const std::string& column) {
    return run.rows[row][run.column(column)];
}

} // namespace

TEST_CASE("mdl run of the rough-start slider-crank follows the closed-form kinematics to 1e-8") {
    const double a = 0.1, b = 0.3, theta0 = 0.3; // models/slider_crank.mdl
    const CsvNumbers run = run_reference(slider_crank, "closed_form");
    REQUIRE(run.rows.size() == 201);
    CHECK(cell(run, 0, "crank.phi") == theta0); // fixed = true: kept
    for (std::size_t i = 0; i < run.rows.size(); ++i) {
        INFO("t = " << cell(run, i, "time"));
        const double theta = cell(run, i, "crank.phi"), w = cell(run, i, "der(crank.phi)");
        const double s = std::sin(theta), c = std::cos(theta);
        const double root = std::sqrt(b * b - a * a * s * s);
        REQUIRE(cell(run, i, "slider.x") == Approx(a * c + root).margin(1e-8));
        REQUIRE(cell(run, i, "slider.y") == Approx(0.0).margin(1e-8));
        REQUIRE(cell(run, i, "crank.x") == Approx(a / 2 * c).margin(1e-8));
        REQUIRE(cell(run, i, "rod.y") == Approx(a / 2 * s).margin(1e-8));
        // the rod's angle: sin(phi_rod) = -a sin(theta)/b
        REQUIRE(std::sin(cell(run, i, "rod.phi")) == Approx(-a * s / b).margin(1e-8));
        // velocities: d/dt of the closed form
        const double dx = (-a * s - a * a * s * c / root) * w;
        REQUIRE(cell(run, i, "der(slider.x)") == Approx(dx).margin(1e-8));
        REQUIRE(cell(run, i, "der(crank.y)") == Approx(a / 2 * c * w).margin(1e-8));
    }
}

TEST_CASE("mdl run of the rough-start four-bar satisfies Freudenstein's equation to 1e-8") {
    const double a = 0.1, b = 0.35, c = 0.3, d = 0.3, theta0 = 1.0; // models/four_bar.mdl
    const double K1 = d / a, K2 = d / c, K3 = (a * a - b * b + c * c + d * d) / (2 * a * c);
    const CsvNumbers run = run_reference(four_bar, "closed_form");
    REQUIRE(run.rows.size() == 201);
    CHECK(cell(run, 0, "crank.phi") == theta0);
    for (std::size_t i = 0; i < run.rows.size(); ++i) {
        INFO("t = " << cell(run, i, "time"));
        const double t2 = cell(run, i, "crank.phi"), t4 = cell(run, i, "rocker.phi");
        const double w2 = cell(run, i, "der(crank.phi)"), w4 = cell(run, i, "der(rocker.phi)");
        // the position loop; the equation's terms are O(K) ~ 3, so 1e-8 is relative to them
        REQUIRE(K1 * std::cos(t4) - K2 * std::cos(t2) + K3 - std::cos(t2 - t4) ==
                Approx(0.0).margin(1e-8));
        // and its time derivative (the velocity loop); w ~ 10 rad/s
        REQUIRE(-K1 * std::sin(t4) * w4 + K2 * std::sin(t2) * w2 + std::sin(t2 - t4) * (w2 - w4) ==
                Approx(0.0).margin(1e-8 * (1 + std::abs(w2))));
        // the rocker's pivot stays at O4 = (d, 0): the body's centre is c/2 from it
        const double xr = cell(run, i, "rocker.x"), yr = cell(run, i, "rocker.y");
        REQUIRE(std::hypot(xr - d, yr) == Approx(c / 2).margin(1e-8));
    }
}

TEST_CASE("FMUs of the rough-start slider-crank and four-bar start where mdl run does and step "
          "to its numbers bit for bit (rattle, H = 1e-4), logging the changed start values") {
    for (const Mechanism* m : {&slider_crank, &four_bar}) {
        INFO(m->file);
        const CsvNumbers run = run_reference(*m, "fmu");
        const Fmu fmu = export_fmu(model(m->file), m->name, rattle);
        const Result r = host(fmu, "run " + std::to_string(m->columns.size()) + " 0.01 2");
        INFO(r.output);
        REQUIRE(r.status == 0);
        const auto trajectory = rows(r.output);
        REQUIRE(trajectory.size() == 201);
        require_same_bits(trajectory, run, m->columns);
        // the changes are logged only when the importer asked for logging
        CHECK(r.output.find("consistent start") == std::string::npos);
        const Result logged = run_command(
            "FMU_HOST_LOGGING=1 " + std::string(FMU_HOST) + " " + fmu.path + " " + fmu.identifier +
            " '" + fmu.guid + "' run " + std::to_string(m->columns.size()) + " 0.01 0.01");
        INFO(logged.output);
        REQUIRE(logged.status == 0);
        CHECK(logged.output.find("logInfo consistent start: changed '") != std::string::npos);
    }
}

// [no-sanitizer]: the library's objects carry the sanitizers' instrumentation, which a plain
// `cc` link without their runtimes cannot resolve
TEST_CASE("C libraries of the rough-start slider-crank and four-bar give mdl run's numbers bit "
          "for bit and hand the changed start values to the note callback",
          "[no-sanitizer]") {
    for (const Mechanism* m : {&slider_crank, &four_bar}) {
        INFO(m->file);
        const CsvNumbers run = run_reference(*m, "library");
        const fs::path dir = work_dir() / (m->name + "_library");
        fs::remove_all(dir);
        const Result exported =
            mdl("export " + model(m->file) + " --c-library " + dir.string() + " " + rattle);
        INFO(exported.output);
        REQUIRE(exported.status == 0);
        const std::string program =
            c_program(dir, m->identifier, "rough_start",
                      (dir / ("lib" + m->identifier + ".a")).string() + " -lstdc++ -lm");
        const Result r = run_command(program + " 2 0.01");
        INFO(r.output);
        REQUIRE(r.status == 0);
        require_same_bits(rows(r.output), run, m->columns);
        CHECK(r.output.find("log: note consistent start: changed '") != std::string::npos);
    }
}
