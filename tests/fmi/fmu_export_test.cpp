// mdl export --fmu: FMUs of the shipped models driven by the test importer fmu_host.c (dlopen,
// the fmi2 functions in the standard's order) give `mdl run`'s positions and velocities to the
// last bit when the internal step divides the communication step; two instances in one process
// are independent; a tunable parameter set between steps acts from the next step; calls in the
// wrong state and a numerical failure return fmi2Error with a logged message. The model
// description is checked by check_model_description.py (python3's xml.etree).
#include "cli_test_support.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace cli_test;
namespace fs = std::filesystem;

namespace {

fs::path work_dir() {
    const fs::path dir = fs::path(MDL_BINARY_DIR) / "tests" / "fmi" / "work";
    fs::create_directories(dir);
    return dir;
}

struct Fmu {
    std::string path, identifier, guid;
};

// mdl export MODEL --fmu NAME.fmu ARGUMENTS; the identifier and GUID from its description.
Fmu export_fmu(const std::string& model, const std::string& name, const std::string& arguments) {
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

Result host(const Fmu& fmu, const std::string& arguments) {
    return run_command(std::string(FMU_HOST) + " " + fmu.path + " " + fmu.identifier + " '" +
                       fmu.guid + "' " + arguments);
}

// The host's output rows: numbers separated by commas (its stderr lines "log: ..." skipped).
std::vector<std::vector<double>> rows(const std::string& output) {
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
CsvNumbers reference(const std::string& model, const std::string& name,
                     const std::string& arguments) {
    const fs::path csv = work_dir() / (name + ".csv");
    const Result r = mdl("run " + model + " -q -o " + csv.string() + " " + arguments);
    INFO(r.output);
    REQUIRE(r.status == 0);
    return CsvNumbers(csv);
}

// Columns `names` of the reference, row by row, equal to the host's columns from `first` on.
void require_same_bits(const std::vector<std::vector<double>>& fmu, const CsvNumbers& run,
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

const std::string oscillator = model("harmonic_oscillator.mdl");

} // namespace

TEST_CASE("the harmonic oscillator's FMU steps to mdl run's numbers bit for bit (verlet, "
          "H = 1e-3, communication step 1e-2)") {
    const Fmu fmu = export_fmu(oscillator, "oscillator", "--method verlet --step 1e-3");
    const Result r = host(fmu, "run 2 0.01 1");
    INFO(r.output);
    REQUIRE(r.status == 0);
    const auto trajectory = rows(r.output);
    REQUIRE(trajectory.size() == 101);
    require_same_bits(trajectory,
                      reference(oscillator, "oscillator",
                                "--method verlet --step 1e-3 --stop 1 "
                                "--every 10"),
                      {"q", "der(q)"});
    // and the analytic solution q = cos 2t, to Verlet's O(h^2)
    for (const auto& row : trajectory) {
        REQUIRE(row[1] == Approx(std::cos(2 * row[0])).margin(2e-6));
    }
}

TEST_CASE("the Kapitza pendulum's FMU steps to mdl run's numbers bit for bit (rk4, H = 1e-5)") {
    const std::string kapitza = model("kapitza.mdl");
    const Fmu fmu = export_fmu(kapitza, "kapitza", "--method rk4 --step 1e-5");
    const Result r = host(fmu, "run 2 0.01 1");
    INFO(r.output);
    REQUIRE(r.status == 0);
    const auto trajectory = rows(r.output);
    require_same_bits(
        trajectory, reference(kapitza, "kapitza", "--method rk4 --step 1e-5 --stop 1 --every 1000"),
        {"q", "der(q)"});
    // the averaged motion of Calvo & Sanz-Serna (SIAM J. Sci. Comput. 2010, eqs. 2.5-2.6):
    // Q(1) = 0.168561190029, the fast oscillation about it of amplitude ~ vmax/(omega l) = 2e-3
    REQUIRE(trajectory.back()[1] == Approx(0.168561190029).margin(5e-3));
}

TEST_CASE("the double pendulum's FMU steps to mdl run's numbers bit for bit (rattle, H = 1e-3)") {
    const std::string pendulum = model("double_pendulum.mdl");
    const Fmu fmu = export_fmu(pendulum, "double_pendulum", "--method rattle --step 1e-3");
    const Result r = host(fmu, "run 8 0.01 1");
    INFO(r.output);
    REQUIRE(r.status == 0);
    require_same_bits(
        rows(r.output),
        reference(pendulum, "double_pendulum", "--method rattle --step 1e-3 --stop 1 --every 10"),
        {"b1.x", "b1.y", "b2.x", "b2.y", "der(b1.x)", "der(b1.y)", "der(b2.x)", "der(b2.y)"});
}

TEST_CASE("an adaptive method (dopri5) steps between communication points to its tolerance") {
    const Fmu fmu = export_fmu(oscillator, "dopri5", "--method dopri5 --rtol 1e-10 --atol 1e-12");
    const Result r = host(fmu, "run 2 0.01 1");
    INFO(r.output);
    REQUIRE(r.status == 0);
    const auto trajectory = rows(r.output);
    REQUIRE(trajectory.size() == 101);
    for (const auto& row : trajectory) { // q = cos 2t, der(q) = -2 sin 2t
        REQUIRE(row[1] == Approx(std::cos(2 * row[0])).margin(1e-8));
        REQUIRE(row[2] == Approx(-2 * std::sin(2 * row[0])).margin(1e-8));
    }
}

TEST_CASE("Model Exchange: the importer's RK4 on the FMU's derivatives follows the analytic "
          "solution") {
    // the harmonic oscillator: states (q, der(q)), derivatives (der(q), -k/m q)
    const Fmu fmu = export_fmu(oscillator, "model_exchange", "--method verlet --step 1e-3");
    const Result r = host(fmu, "me 2 1e-3 1");
    INFO(r.output);
    REQUIRE(r.status == 0);
    const auto end = rows(r.output);
    REQUIRE(end.size() == 1);
    REQUIRE(end[0][1] == Approx(std::cos(2.0)).margin(1e-11)); // RK4: O(h^4) = 1e-12
    REQUIRE(end[0][2] == Approx(-2 * std::sin(2.0)).margin(1e-11));
}

TEST_CASE("fmi2GetDirectionalDerivative gives the Jacobian of the derivatives from the symbolic "
          "force Jacobians") {
    // m b.x'' = -k b.x - c b.vx: d der(b.vx) / d b.x = -k/m = -4, d der(b.vx) / d b.vx =
    // -c/m = -0.4; value references b.x 0, b.vx 1, m k c x0 v0 2-6, der(b.vx) 7
    const Fmu fmu = export_fmu(model("damped_oscillator.mdl"), "jacobian", "");
    const Result xml = run_command("unzip -p " + fmu.path + " modelDescription.xml");
    REQUIRE(xml.output.find("providesDirectionalDerivative=\"true\"") != std::string::npos);
    const Result r = host(fmu, "jacobian 7 0 1");
    INFO(r.output);
    REQUIRE(r.status == 0);
    const auto jacobian = rows(r.output);
    REQUIRE(jacobian.size() == 1);
    REQUIRE(jacobian[0][0] == Approx(-4.0).epsilon(1e-15));
    REQUIRE(jacobian[0][1] == Approx(-0.4).epsilon(1e-15));
    // and d der(b.x) / d b.vx = 1: the velocity is the derivative of the position
    REQUIRE(rows(host(fmu, "jacobian 1 0 1").output)[0] == std::vector<double>{0.0, 1.0});
}

TEST_CASE("modelDescription.xml is well formed and names the variables, parameters, outputs "
          "and default experiment") {
    const Fmu fmu = export_fmu(oscillator, "description", "");
    const Result r =
        run_command("python3 " + std::string(MDL_SOURCE_DIR) +
                    "/tests/fmi/check_model_description.py " + fmu.path +
                    " q=output/continuous/1 'der(q)=output/continuous/0' "
                    "k=parameter/tunable/8 m=parameter/tunable/2 "
                    "q0=local/constant/1 v0=local/constant/0 'der(der(q))=local/continuous'");
    INFO(r.output);
    REQUIRE(r.status == 0);
    const Result xml = run_command("unzip -p " + fmu.path + " modelDescription.xml");
    // the annotation's experiment, and the description strings of the model
    CHECK(xml.output.find("<DefaultExperiment startTime=\"0\" stopTime=\"10\" "
                          "stepSize=\"0.01\"/>") != std::string::npos);
    CHECK(xml.output.find("description=\"spring constant [N/m]\"") != std::string::npos);
    CHECK(xml.output.find("modelName=\"HarmonicOscillator\"") != std::string::npos);
    // the same export gives the same GUID; another step another one
    CHECK(export_fmu(oscillator, "description_again", "").guid == fmu.guid);
    CHECK(export_fmu(oscillator, "description_step", "--step 2e-3").guid != fmu.guid);
}

TEST_CASE("two instances with different parameters in one process are independent") {
    const Fmu fmu = export_fmu(oscillator, "two", "--method verlet --step 1e-3");
    // value references: q 0, der(q) 1, m 2, k 3
    const Result r = host(fmu, "two 2 0.01 1 3 8 2");
    INFO(r.output);
    REQUIRE(r.status == 0);
    auto trajectory = rows(r.output);
    const CsvNumbers stiff =
        reference(oscillator, "two_k8", "--method verlet --step 1e-3 --stop 1 --every 10");
    const CsvNumbers soft =
        reference(oscillator, "two_k2", "--method verlet --step 1e-3 --stop 1 --every 10 -p k=2");
    REQUIRE(trajectory.size() == 100); // the host prints the rows after each step
    for (std::size_t i = 0; i < trajectory.size(); ++i) {
        REQUIRE(trajectory[i][1] == stiff.rows[i + 1][stiff.column("q")]);
        REQUIRE(trajectory[i][3] == soft.rows[i + 1][soft.column("q")]);
    }
}

TEST_CASE("two instances stepped on two threads at once give their sequential results") {
    const Fmu fmu = export_fmu(oscillator, "threads", "--method rk4 --step 1e-5");
    const Result r = host(fmu, "threads 2 0.01 1 3 8 2");
    INFO(r.output);
    REQUIRE(r.status == 0);
    const auto end = rows(r.output);
    const auto sequential = rows(host(fmu, "two 2 0.01 1 3 8 2").output);
    REQUIRE(end.size() == 1);
    REQUIRE(end[0] == sequential.back());
    REQUIRE(end[0][1] == Approx(std::cos(2.0)).margin(1e-12)); // k = 8, m = 2: w = 2
    REQUIRE(end[0][3] == Approx(std::cos(1.0)).margin(1e-12)); // k = 2: w = 1
}

TEST_CASE("a tunable parameter set between steps acts from the next step") {
    const Fmu fmu = export_fmu(oscillator, "tune", "--method verlet --step 1e-3");
    const Result r = host(fmu, "tune 2 0.01 1 3 2 0.5"); // k = 2 from t = 0.5: w = 1
    INFO(r.output);
    REQUIRE(r.status == 0);
    const auto trajectory = rows(r.output);
    const CsvNumbers run =
        reference(oscillator, "tune", "--method verlet --step 1e-3 --stop 1 --every 10");
    REQUIRE(trajectory.size() == 101);
    for (std::size_t i = 0; i <= 50; ++i) { // up to t = 0.5: as without the change
        REQUIRE(trajectory[i][1] == run.rows[i][run.column("q")]);
    }
    // then q = q(0.5) cos(t - 0.5) + v(0.5) sin(t - 0.5), to Verlet's O(h^2)
    const double q = trajectory[50][1], v = trajectory[50][2];
    REQUIRE(trajectory[100][1] == Approx(q * std::cos(0.5) + v * std::sin(0.5)).margin(2e-6));
    REQUIRE(trajectory[100][1] != Approx(run.rows[100][run.column("q")]).margin(1e-3));
}

TEST_CASE("calls in the wrong state return fmi2Error with a logged message") {
    const Fmu fmu = export_fmu(oscillator, "states", "--method verlet --step 1e-3");
    const Result r = host(fmu, "states");
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("fmi2DoStep: not allowed in state 'instantiated'") != std::string::npos);
    CHECK(r.output.find("fmi2SetReal: value reference 0 is an output") != std::string::npos);
}

TEST_CASE("a numerical failure in fmi2DoStep is fmi2Error with the time, variable and method") {
    const Fmu fmu =
        export_fmu(std::string(MDL_SOURCE_DIR) + "/tests/fmi/models/blow_up.mdl", "blow_up", "");
    const Result r = host(fmu, "fail 0.01 1");
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("failed at step") != std::string::npos);
    CHECK(r.output.find("verlet") != std::string::npos);
}

TEST_CASE("mdl export refuses a multiscale method, naming the classical methods it supports") {
    const fs::path out = work_dir() / "refused.fmu";
    const Result r = mdl("export " + model("kapitza.mdl") + " --fmu " + out.string());
    INFO(r.output);
    CHECK(r.status == 2);
    CHECK(r.output.find("method 'hmm'") != std::string::npos);
    CHECK(r.output.find("verlet, leapfrog") != std::string::npos);
    CHECK(!fs::exists(out));
}

TEST_CASE("mdl export: a missing compiler, cvode and an unwritable FMU are one-line errors") {
    const fs::path out = work_dir() / "errors.fmu";
    Result r = run_command("CXX=no-such-compiler " + std::string(MDL_EXECUTABLE) + " export " +
                           oscillator + " --fmu " + out.string());
    CHECK(r.status == 2);
    CHECK(r.output.find("no C++ compiler 'no-such-compiler' found ($CXX)") != std::string::npos);
    r = mdl("export " + oscillator + " --fmu " + out.string() + " --method cvode-bdf");
    CHECK(r.status == 2);
    CHECK(r.output.find("an FMU's runtime has no SUNDIALS") != std::string::npos);
    r = mdl("export " + oscillator + " --fmu " + (work_dir() / "no" / "such" / "x.fmu").string());
    CHECK(r.status == 4);
    CHECK(r.output.find("mdl export: error: writing") != std::string::npos);
    CHECK(!fs::exists(out));
}
