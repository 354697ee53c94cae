// mdl export --fmu: FMUs of the shipped models driven by the test importer fmu_host.c (dlopen,
// the fmi2 functions in the standard's order) give `mdl run`'s positions and velocities to the
// last bit when the internal step (a multiscale method's macro step) divides the communication
// step; two instances in one process
// are independent; a tunable parameter set between steps acts from the next step; calls in the
// wrong state and a numerical failure return fmi2Error with a logged message. The model
// description is checked by check_model_description.py (python3's xml.etree).
#include "fmu_test_support.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace cli_test;
using namespace fmu_test;
namespace fs = std::filesystem;

namespace {
const std::string oscillator = model("harmonic_oscillator.mdl");
} // namespace

TEST_CASE("the harmonic oscillator's FMU steps to mdl run's numbers bit for bit (verlet, "
          "H = 1e-3, communication step 1e-2)") {
    const Fmu fmu = export_fmu(oscillator, "oscillator", "--method verlet --step 1e-3");
    const auto trajectory = stepped(fmu, "run 2 0.01 1");
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
    const auto trajectory = stepped(fmu, "run 2 0.01 1");
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
    require_same_bits(
        stepped(fmu, "run 8 0.01 1"),
        reference(pendulum, "double_pendulum", "--method rattle --step 1e-3 --stop 1 --every 10"),
        {"b1.x", "b1.y", "b2.x", "b2.y", "der(b1.x)", "der(b1.y)", "der(b2.x)", "der(b2.y)"});
}

TEST_CASE("a moving anchor's FMU steps to mdl run's numbers bit for bit (rattle, H = 1e-5)") {
    // rheonomic constraint g(t, q): the FMU's kernel table carries constraint_rate
    const std::string pendulum =
        std::string(MDL_SOURCE_DIR) + "/tests/fmi/models/moving_anchor.mdl";
    const Fmu fmu = export_fmu(pendulum, "moving_anchor", "--method rattle --step 1e-5");
    require_same_bits(
        stepped(fmu, "run 4 0.01 0.2"),
        reference(pendulum, "moving_anchor", "--method rattle --step 1e-5 --stop 0.2 --every 1000"),
        {"b.x", "b.y", "der(b.x)", "der(b.y)"});
}

TEST_CASE("an adaptive method (dopri5) steps between communication points to its tolerance") {
    const Fmu fmu = export_fmu(oscillator, "dopri5", "--method dopri5 --rtol 1e-10 --atol 1e-12");
    const auto trajectory = stepped(fmu, "run 2 0.01 1");
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
    const auto end = stepped(fmu, "me 2 1e-3 1");
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
    const auto jacobian = stepped(fmu, "jacobian 7 0 1");
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
    // the declared units, and those of the derivatives (docs/language.md, Units)
    CHECK(xml.output.find("<Unit name=\"N/m\"><BaseUnit kg=\"1\" s=\"-2\"/></Unit>") !=
          std::string::npos);
    CHECK(xml.output.find("<Real start=\"8\" unit=\"N/m\"/>") != std::string::npos);
    CHECK(xml.output.find("<Real unit=\"m/s2\" derivative=\"2\"/>") != std::string::npos);
    // the same export gives the same GUID; another step another one
    CHECK(export_fmu(oscillator, "description_again", "").guid == fmu.guid);
    CHECK(export_fmu(oscillator, "description_step", "--step 2e-3").guid != fmu.guid);
}

TEST_CASE("two instances with different parameters in one process are independent") {
    const Fmu fmu = export_fmu(oscillator, "two", "--method verlet --step 1e-3");
    // value references: q 0, der(q) 1, m 2, k 3
    auto trajectory = stepped(fmu, "two 2 0.01 1 3 8 2");
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
    const auto end = stepped(fmu, "threads 2 0.01 1 3 8 2");
    const auto sequential = rows(host(fmu, "two 2 0.01 1 3 8 2").output);
    REQUIRE(end.size() == 1);
    REQUIRE(end[0] == sequential.back());
    REQUIRE(end[0][1] == Approx(std::cos(2.0)).margin(1e-12)); // k = 8, m = 2: w = 2
    REQUIRE(end[0][3] == Approx(std::cos(1.0)).margin(1e-12)); // k = 2: w = 1
}

TEST_CASE("a tunable parameter set between steps acts from the next step") {
    const Fmu fmu = export_fmu(oscillator, "tune", "--method verlet --step 1e-3");
    const auto trajectory = stepped(fmu, "tune 2 0.01 1 3 2 0.5"); // k = 2 from t = 0.5: w = 1
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

// The multiscale methods (docs/fmi.md, "Multiscale methods"): fmi2DoStep takes the macro steps
// of the method's macro-integrator from t to t + h, h a multiple of the macro step H, so the
// FMU gives `mdl run`'s rows at the same times to the last bit.

TEST_CASE("mdl export models/kapitza.mdl: the FMU runs HMM (the annotation's method, H = 1/80) "
          "to mdl run's numbers") {
    const std::string kapitza = model("kapitza.mdl");
    const Fmu fmu = export_fmu(kapitza, "kapitza_hmm", "");
    const Result xml = run_command("unzip -p " + fmu.path + " modelDescription.xml");
    // the default experiment's step is the macro step; parameters are fixed after initialization
    CHECK(xml.output.find("stepSize=\"0.0125\"") != std::string::npos);
    CHECK(xml.output.find("name=\"omega\" valueReference=\"5\" description=\"angular frequency "
                          "of the pivot vibration [rad/s]\" causality=\"parameter\" "
                          "variability=\"fixed\"") != std::string::npos);
    const auto trajectory = stepped(fmu, "run 2 0.025 1"); // communication step 2 H
    REQUIRE(trajectory.size() == 41);
    require_same_bits(trajectory, reference(kapitza, "kapitza_hmm", "--every 2"), {"q", "der(q)"});
    // the averaged motion of Calvo & Sanz-Serna (SIAM J. Sci. Comput. 2010, eqs. 2.5-2.6):
    // Q(1) = 0.168561190029, which HMM with H = 1/80 at omega = 1e4 follows to the error of
    // the paper's Table 2.3, 5.20e-3
    REQUIRE(trajectory.back()[1] == Approx(0.168561190029).margin(5.2e-3));
}

TEST_CASE("a parameter set before initialization of an HMM FMU gives mdl run -p's numbers") {
    const std::string kapitza = model("kapitza.mdl");
    const Fmu fmu = export_fmu(kapitza, "kapitza_hmm_omega", "--method hmm --step 0.0125");
    // value references: q 0, der(q) 1, l 2, g 3, vmax 4, omega 5, theta0 6
    const auto trajectory = stepped(fmu, "run 2 0.05 1 5=2e4");
    REQUIRE(trajectory.size() == 21);
    const CsvNumbers run = reference(kapitza, "kapitza_hmm_omega", "-p omega=2e4 --every 4");
    require_same_bits(trajectory, run, {"q", "der(q)"});
    // and not the numbers of omega = 1e4 (the averaged force changes with omega at O(1/omega))
    const CsvNumbers exported = reference(kapitza, "kapitza_hmm_1e4", "--every 4");
    REQUIRE(trajectory.back()[1] != exported.rows.back()[exported.column("q")]);
}

TEST_CASE("an HMM FMU refuses a communication step that is not a multiple of H, and a "
          "parameter change after initialization") {
    const std::string kapitza = model("kapitza.mdl");
    const Fmu fmu = export_fmu(kapitza, "kapitza_hmm_grid", "--stop 0.25");
    // 0.01 is 0.8 H: refused, naming both numbers, and nothing changes: the steps of 2 H then
    // give mdl run's numbers
    Result r = host(fmu, "refuse 2 0.025 0.25 0.01");
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("fmi2DoStep: the communication step h = 0.01 is not a multiple of the "
                        "macro step H = 0.0125 of hmm") != std::string::npos);
    require_same_bits(rows(r.output),
                      reference(kapitza, "kapitza_hmm_grid", "--stop 0.25 --every 2"),
                      {"q", "der(q)"});
    // past the stop time of fmi2SetupExperiment: refused
    r = host(fmu, "run 2 0.0125 0.125");
    CHECK(r.status == 0);
    r = host(fmu, "refuse 2 0.0125 0.125 0.25");
    CHECK(r.status == 0);
    CHECK(r.output.find("lies beyond the stop time 0.125 of hmm") != std::string::npos);
    // omega (value reference 5) is fixed after initialization
    r = host(fmu, "tune 2 0.025 0.25 5 2e4 0.1");
    CHECK(r.status == 1);
    CHECK(r.output.find("fmi2SetReal: parameter 'omega' is fixed after initialization") !=
          std::string::npos);
}

TEST_CASE("a constrained multiscale FMU: the vibrated double pendulum with hmm-shake and "
          "hmm-rattle steps to mdl run's numbers") {
    const std::string pendulum = model("double_pendulum.mdl");
    const std::vector<std::string> columns = {"b1.x",      "b1.y",      "b2.x",      "b2.y",
                                              "der(b1.x)", "der(b1.y)", "der(b2.x)", "der(b2.y)"};
    for (const std::string& method : {std::string("hmm-shake"), std::string("hmm-rattle")}) {
        INFO(method);
        const Fmu fmu =
            export_fmu(pendulum, "double_pendulum_" + method, "--method " + method + " --stop 0.5");
        const auto trajectory = stepped(fmu, "run 8 0.025 0.5");
        REQUIRE(trajectory.size() == 21);
        require_same_bits(trajectory,
                          reference(pendulum, "double_pendulum_" + method,
                                    "--method " + method + " --stop 0.5 --every 2"),
                          columns);
        // on the rods: |b1| = l1 = 0.2 (the constraint tolerance, 1e-12)
        for (const auto& row : trajectory) {
            REQUIRE(std::hypot(row[1], row[2]) == Approx(0.2).margin(1e-11));
            REQUIRE(std::hypot(row[3] - row[1], row[4] - row[2]) == Approx(0.1).margin(1e-11));
        }
    }
}

TEST_CASE("a stroboscopic-averaging FMU steps to mdl run's numbers (strobo, rk4 macro)") {
    const std::string kapitza = model("kapitza_eps.mdl");
    const Fmu fmu = export_fmu(kapitza, "kapitza_strobo", "--step 0.05");
    const auto trajectory = stepped(fmu, "run 2 0.1 1");
    REQUIRE(trajectory.size() == 11);
    require_same_bits(trajectory, reference(kapitza, "kapitza_strobo", "--step 0.05 --every 2"),
                      {"q", "der(q)"});
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

TEST_CASE("events in Model Exchange: the importer's RK4 with indicator sign changes sees the "
          "bouncing ball's impacts at the closed-form times") {
    const Fmu fmu = export_fmu(model("bouncing_ball.mdl"), "ball_me", "");
    // states (b.y, der(b.y)), one indicator; RK4 h = 1e-3, each crossing bisected to 1e-14
    const Result r = host(fmu, "events 2 1 1e-3 2");
    INFO(r.output);
    REQUIRE(r.status == 0);
    std::vector<double> impacts;
    std::stringstream in(r.output);
    std::string line;
    while (std::getline(in, line)) {
        if (line.starts_with("event,")) {
            impacts.push_back(std::stod(line.substr(6)));
        }
    }
    // t1 = sqrt(2 h/g), t_{k+1} = t_k + 2 e^k v1/g with v1 = g t1 (models/bouncing_ball.mdl)
    const double g = 9.81, e = 0.8, t1 = std::sqrt(2.0 / g);
    const double expected[] = {t1, t1 * (1 + 2 * e), t1 * (1 + 2 * e + 2 * e * e)};
    REQUIRE(impacts.size() == 3); // the fourth, at 2.214, is after t = 2
    for (std::size_t k = 0; k < 3; ++k) {
        INFO("impact " << k + 1);
        REQUIRE(impacts[k] == Approx(expected[k]).margin(1e-9));
    }
}

TEST_CASE("events in Model Exchange: the runtime's tracker fires them, and the bouncing ball "
          "comes to rest at its 62nd impact and stays on the floor") {
    const Fmu fmu = export_fmu(model("bouncing_ball.mdl"), "ball_me_rest", "");
    // the importer's RK4 with h = 1e-3 sees sign changes at its step ends only: the late
    // flights (down to 1e-6 s) lie inside one step, and are seen because the FMU's watched
    // function after a bounce is below the indicator until it is negative (event_tracker.hpp)
    const Result r = host(fmu, "events 2 1 1e-3 5");
    INFO(r.output);
    REQUIRE(r.status == 0);
    std::vector<double> impacts;
    std::vector<double> last;
    std::stringstream in(r.output);
    std::string line;
    while (std::getline(in, line)) {
        if (line.starts_with("event,")) {
            impacts.push_back(std::stod(line.substr(6)));
        } else if (!line.empty()) {
            std::stringstream cells(line);
            std::string cell;
            last.clear();
            while (std::getline(cells, cell, ',')) {
                last.push_back(std::stod(cell));
            }
        }
    }
    // t1 = sqrt(2 h/g), t_{k+1} = t_k + 2 e^k v1/g; the rest at the impact whose rebound is
    // below 1e-6 of the first approach: e^62 < 1e-6 (docs/events.md)
    const double g = 9.81, e = 0.8, t1 = std::sqrt(2.0 / g), v1 = g * t1;
    REQUIRE(impacts.size() == 62);
    double t = t1;
    for (std::size_t k = 0; k < impacts.size(); ++k) {
        INFO("impact " << k + 1);
        REQUIRE(impacts[k] == Approx(t).margin(1e-9));
        t += 2.0 * std::pow(e, static_cast<double>(k + 1)) * v1 / g;
    }
    REQUIRE(last.size() == 3);
    CHECK(last[0] == Approx(5.0).margin(1e-12));
    CHECK(std::abs(last[1]) <= 1e-12); // on the floor
    CHECK(std::abs(last[2]) <= 1e-9);  // at rest
}

TEST_CASE("a stiff-HMM FMU steps to mdl run's numbers (hmm-stiff, rk4 and dopri5 macro)") {
    const std::vector<std::string> columns = {"b1.x",      "b1.y",      "b2.x",      "b2.y",
                                              "der(b1.x)", "der(b1.y)", "der(b2.x)", "der(b2.y)"};
    // rk4 macro, H = 1/32, communication step 2 H
    const std::string springs = model("stiff_springs.mdl");
    Fmu fmu = export_fmu(springs, "stiff_springs", "--stop 2");
    Result r = host(fmu, "run 8 0.0625 2");
    INFO(r.output);
    REQUIRE(r.status == 0);
    require_same_bits(rows(r.output), reference(springs, "stiff_springs", "--stop 2 --every 2"),
                      columns);
    // dopri5 macro with output interval 0.25 (the annotation's Interval): communication step 0.25
    const std::string springs_ii = model("stiff_springs_ii.mdl");
    fmu = export_fmu(springs_ii, "stiff_springs_ii", "--stop 2");
    r = host(fmu, "run 8 0.25 2");
    INFO(r.output);
    REQUIRE(r.status == 0);
    require_same_bits(rows(r.output), reference(springs_ii, "stiff_springs_ii", "--stop 2"),
                      columns);
}

// mdl export --c-library DIR: a C program linked against libNAME.a (with -lstdc++ -lm) or
// libNAME.so, with no LLVM and no libmdl on its link line, runs the model to mdl run's numbers.

// [no-sanitizer]: the library's objects carry the sanitizers' instrumentation, which a plain
// `cc` link without their runtimes cannot resolve
TEST_CASE("mdl export --c-library: a C program linked without LLVM reproduces mdl run to the "
          "last bit (static and shared library)",
          "[no-sanitizer]") {
    const fs::path dir = work_dir() / "c_library";
    fs::remove_all(dir);
    const Result exported = mdl("export " + oscillator + " --c-library " + dir.string() +
                                " --method verlet --step 1e-3");
    INFO(exported.output);
    REQUIRE(exported.status == 0);
    for (const char* file :
         {"libHarmonicOscillator.a", "libHarmonicOscillator.so", "HarmonicOscillator.h"}) {
        REQUIRE(fs::is_regular_file(dir / file));
    }
    const CsvNumbers run =
        reference(oscillator, "c_library", "--method verlet --step 1e-3 --stop 1 --every 10");
    const std::string stat =
        c_program(dir, "HarmonicOscillator", "static",
                  (dir / "libHarmonicOscillator.a").string() + " -lstdc++ -lm");
    const std::string shared =
        c_program(dir, "HarmonicOscillator", "shared",
                  "-L " + dir.string() + " -lHarmonicOscillator -Wl,-rpath," + dir.string());
    for (const std::string& program : {stat, shared}) {
        INFO(program);
        const Result r = run_command(program + " 1 0.01");
        INFO(r.output);
        REQUIRE(r.status == 0);
        CHECK(r.output.find("log: columns t,q,der(q)") != std::string::npos);
        const auto trajectory = rows(r.output);
        REQUIRE(trajectory.size() == 101);
        require_same_bits(trajectory, run, {"q", "der(q)"});
    }
    // neither program nor the shared library needs LLVM or libmdl: libc, libm (libstdc++ for
    // the program linked with the archive)
    for (const std::string& file : {stat, shared, (dir / "libHarmonicOscillator.so").string()}) {
        const std::string libraries = needed(file);
        INFO(file << ": " << libraries);
        CHECK(libraries.find("LLVM") == std::string::npos);
        CHECK(libraries.find("libmdl") == std::string::npos);
    }
    CHECK(needed((dir / "libHarmonicOscillator.so").string()).find("libstdc++") ==
          std::string::npos);
    // only HarmonicOscillator_* is global in the archive: the runtime's symbols stay inside
    const Result symbols =
        run_command("nm -g --defined-only " + (dir / "libHarmonicOscillator.a").string() +
                    " | grep -v ':$' | grep -v '^$' | grep -v ' HarmonicOscillator_'");
    INFO(symbols.output);
    CHECK(symbols.output.empty());
    // a parameter set by name: k = 2 is mdl run -p k=2; an unknown one is an error message
    const CsvNumbers soft = reference(oscillator, "c_library_k2",
                                      "--method verlet --step 1e-3 --stop 1 --every 10 -p k=2");
    require_same_bits(rows(run_command(stat + " 1 0.01 k=2").output), soft, {"q", "der(q)"});
    const Result unknown = run_command(stat + " 1 0.01 spring=2");
    CHECK(unknown.status == 1);
    CHECK(unknown.output.find("error: no parameter 'spring' (the parameters: m, k, q0, v0)") !=
          std::string::npos);
}

TEST_CASE("mdl export --c-library with a multiscale method: HMM on the Kapitza pendulum",
          "[no-sanitizer]") {
    const fs::path dir = work_dir() / "c_library_hmm";
    fs::remove_all(dir);
    const std::string kapitza = model("kapitza.mdl");
    const Result exported = mdl("export " + kapitza + " --c-library " + dir.string());
    INFO(exported.output);
    REQUIRE(exported.status == 0);
    const std::string program =
        c_program(dir, "Kapitza", "kapitza", (dir / "libKapitza.a").string() + " -lstdc++ -lm");
    const Result r = run_command(program + " 1 0.025");
    INFO(r.output);
    REQUIRE(r.status == 0);
    require_same_bits(rows(r.output), reference(kapitza, "c_library_hmm", "--every 2"),
                      {"q", "der(q)"});
    // an output interval that is not a multiple of H: the run fails naming both
    const Result refused = run_command(program + " 1 0.01");
    CHECK(refused.status == 1);
    CHECK(refused.output.find("the communication step h = 0.01 is not a multiple of the macro "
                              "step H = 0.0125 of hmm") != std::string::npos);
}

TEST_CASE("events in a Co-Simulation FMU: the ball that comes to rest stays on the floor across "
          "communication steps (dopri5, rk4)") {
    // The impacts accumulate at t_inf = 4.064 (models/bouncing_ball.mdl); mdl run then holds
    // the ball at y = 0, vy = 0. Each fmi2DoStep of 0.01 resumes the event driver with what it
    // knew at the end of the last one (held contact, armed events): a fresh start each step
    // lost the contact, so dopri5 failed (step size underflow at t = 4.07) and rk4 fell
    // through the floor (y = -4.24 at t = 5), as fmusim showed.
    const std::string ball = model("bouncing_ball.mdl");
    for (const auto& [name, arguments] :
         {std::pair<std::string, std::string>{"rest_dopri5", ""},
          std::pair<std::string, std::string>{"rest_rk4", "--method rk4 --step 1e-3"}}) {
        INFO(name);
        const Fmu fmu = export_fmu(ball, name, arguments);
        const auto trajectory = stepped(fmu, "run 2 0.01 5");
        REQUIRE(trajectory.size() == 501);
        for (const auto& row : trajectory) {
            INFO("t = " << row[0]);
            REQUIRE(row[1] >= -1e-12); // never below the floor
        }
        for (std::size_t i = 420; i < trajectory.size(); ++i) { // t >= 4.2: at rest
            INFO("t = " << trajectory[i][0]);
            REQUIRE(trajectory[i][1] == Approx(0.0).margin(1e-12));
            REQUIRE(trajectory[i][2] == Approx(0.0).margin(1e-9));
        }
    }
}

TEST_CASE("events in a Co-Simulation FMU: the bouncing ball (dopri5, rk4) bounces at mdl run's "
          "times and at the closed-form ones") {
    const std::string ball = model("bouncing_ball.mdl");
    struct Case {
        std::string name, export_arguments, run_arguments;
        double tolerance; // of the FMU's rows against mdl run's at the same times
    };
    const Case cases[] = {
        {"ball_dopri5", "", "--stop 2", 1e-9}, // the annotation's dopri5, rtol 1e-10
        {"ball_rk4", "--method rk4 --step 1e-3", "--method rk4 --step 1e-3 --stop 2", 1e-10}};
    for (const Case& c : cases) {
        INFO(c.name);
        const Fmu fmu = export_fmu(ball, c.name, c.export_arguments);
        const Result xml = run_command("unzip -p " + fmu.path + " modelDescription.xml");
        CHECK(xml.output.find("numberOfEventIndicators=\"1\"") != std::string::npos);
        const auto trajectory = stepped(fmu, "run 2 0.01 2");
        REQUIRE(trajectory.size() == 201);
        // mdl run's rows between events (the event rows have the event's name)
        const fs::path csv = work_dir() / (c.name + ".csv");
        REQUIRE(mdl("run " + ball + " -q -o " + csv.string() + " " + c.run_arguments).status == 0);
        const CsvTable table(csv);
        std::vector<std::vector<double>> run;
        for (const auto& cells : table.rows) {
            if (cells.back().empty()) {
                run.push_back({std::stod(cells[0]), std::stod(cells[1]), std::stod(cells[2])});
            }
        }
        std::size_t next = 0;
        for (const auto& row : trajectory) {
            while (next < run.size() && run[next][0] < row[0] - 1e-9) {
                ++next;
            }
            INFO("t = " << row[0]);
            REQUIRE(next < run.size());
            REQUIRE(run[next][0] == Approx(row[0]).margin(1e-9));
            REQUIRE(row[1] == Approx(run[next][1]).margin(c.tolerance));
            REQUIRE(row[2] == Approx(run[next][2]).margin(c.tolerance));
        }
        // the closed form (models/bouncing_ball.mdl): the first impact at t1 = sqrt(2 h/g), then
        // y = v1 (t - t1) - g/2 (t - t1)^2 with v1 = e g t1 until t2 = t1 + 2 v1/g
        const double g = 9.81, e = 0.8, t1 = std::sqrt(2.0 / g), v1 = e * g * t1,
                     t2 = t1 + 2 * v1 / g;
        std::size_t checked = 0;
        for (const auto& row : trajectory) {
            const double s = row[0] - t1;
            if (row[0] < t1) {
                REQUIRE(row[1] == Approx(1.0 - 0.5 * g * row[0] * row[0]).margin(1e-11));
            } else if (row[0] < t2) {
                REQUIRE(row[1] == Approx(v1 * s - 0.5 * g * s * s).margin(1e-11));
                REQUIRE(row[2] == Approx(v1 - g * s).margin(1e-11));
                ++checked;
            }
        }
        REQUIRE(checked == 72); // t = 0.46 .. 1.17
    }
}
