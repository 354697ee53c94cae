// `mdl sweep` as a user runs it: the grid, the per-run and summary CSVs, failures as rows,
// the same files from any number of threads (and MPI ranks, when built with MPI).
#include "../support/vibrating_table_map.hpp"
#include "cli_test_support.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <map>
#include <numbers>
#include <string>
#include <vector>

using namespace cli_test;

namespace {

namespace fs = std::filesystem;

// A fresh output directory under the build tree.
std::string directory(const std::string& name) {
    fs::path dir = fs::path(MDL_BINARY_DIR) / "tests" / "cli" / "sweep" / name;
    fs::remove_all(dir);
    return dir.string();
}

// The summary without its timing column: what must not depend on threads or ranks.
std::string without_seconds(const fs::path& summary) {
    CsvTable t(summary);
    std::size_t seconds = t.column("seconds");
    std::string out;
    auto line = [&](const std::vector<std::string>& cells) {
        for (std::size_t i = 0; i < cells.size(); ++i) {
            if (i != seconds) {
                out += cells[i] + (i + 1 < cells.size() ? "," : "\n");
            }
        }
    };
    line(t.header);
    for (const auto& row : t.rows) {
        line(row);
    }
    return out;
}

} // namespace

TEST_CASE("mdl sweep runs the grid in order and each run matches the exact solution") {
    std::string out = directory("harmonic");
    // m q'' = -k q, m = 2, from q0 at rest: q(t) = q0 cos(sqrt(k/2) t)
    Result r =
        mdl("sweep " + model("harmonic_oscillator.mdl") +
            " -m verlet --stop 1 --step 1e-3 --every 100 -p k=2,8,18 -p q0=1,0.5 -j 2 -o " + out);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("mdl sweep: 6 runs of HarmonicOscillator (6 ok, 0 failed, 0 not "
                        "started) on 2 worker processes") != std::string::npos);
    CsvTable summary(fs::path(out) / "summary.csv");
    CHECK(summary.header == std::vector<std::string>{"run", "k", "q0", "status", "time", "q",
                                                     "der(q)", "max_abs(q)", "steps", "rejected",
                                                     "micro_steps", "force_evaluations", "rows",
                                                     "seconds", "file", "message"});
    REQUIRE(summary.rows.size() == 6);
    const double k[] = {2, 2, 8, 8, 18, 18}, q0[] = {1, 0.5, 1, 0.5, 1, 0.5};
    for (std::size_t i = 0; i < 6; ++i) {
        INFO("run " << i);
        CHECK(summary.text(i, "run") == std::to_string(i));
        CHECK(summary.number(i, "k") == k[i]); // the last -p varies fastest
        CHECK(summary.number(i, "q0") == q0[i]);
        CHECK(summary.text(i, "status") == "ok");
        CHECK(summary.text(i, "message").empty());
        CHECK(summary.number(i, "time") == 1.0);
        const double w = std::sqrt(k[i] / 2);
        // Verlet: error ~ (w h)^2 w t q0 / 24 <= 1.2e-6
        CHECK(std::fabs(summary.number(i, "q") - q0[i] * std::cos(w)) < 2e-6);
        CHECK(std::fabs(summary.number(i, "der(q)") + q0[i] * w * std::sin(w)) < 1e-5);
        CHECK(summary.number(i, "max_abs(q)") == q0[i]); // at t = 0, w t <= 3 < pi
        CHECK(summary.text(i, "steps") == "1000");
        CHECK(summary.text(i, "rows") == "11");
        // the trajectory's last row is the summary's final state, digit for digit
        std::string file = summary.text(i, "file");
        CHECK(file == "run_00" + std::to_string(i) + ".csv");
        CsvTable trajectory(fs::path(out) / file);
        REQUIRE(trajectory.rows.size() == 11);
        CHECK(trajectory.rows.back() == std::vector<std::string>{summary.text(i, "time"),
                                                                 summary.text(i, "q"),
                                                                 summary.text(i, "der(q)")});
    }
}

TEST_CASE("ranges expand to exact end points and the energy drift is reported") {
    std::string out = directory("pendulum");
    Result r = mdl("sweep " + model("pendulum.mdl") +
                   " -m verlet --stop 2 --step 1e-3 -p phi0=0.5:1:lin:3 -p "
                   "l=1e-1:1e1:log:3 --summary-only -q -o " +
                   out);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.empty()); // --quiet
    CHECK_FALSE(fs::exists(fs::path(out) / "run_000.csv"));
    CsvTable summary(fs::path(out) / "summary.csv");
    REQUIRE(summary.rows.size() == 9);
    const char* phi0[] = {"0.5", "0.5", "0.5", "0.75", "0.75", "0.75", "1", "1", "1"};
    const char* l[] = {"0.1", "1", "10", "0.1", "1", "10", "0.1", "1", "10"};
    for (std::size_t i = 0; i < 9; ++i) {
        INFO("run " << i);
        CHECK(summary.text(i, "phi0") == phi0[i]);
        CHECK(summary.text(i, "l") == l[i]);
        // E = m l^2/2 phi'^2 - m g l cos(phi) is conserved by Verlet to O(h^2), m = 1
        double scale = 9.81 * summary.number(i, "l");
        CHECK(summary.number(i, "energy_drift") < 2e-4 * scale);
        // the drift is max_k |E(t_k) - E(t_0)| over the trajectory's rows: computed here from
        // the same run's CSV (mdl run, same settings), it must be the summary's number exactly
        const std::string run_csv = out + "/check_" + std::to_string(i) + ".csv";
        Result run = mdl("run " + model("pendulum.mdl") +
                         " -m verlet --stop 2 --step 1e-3 -q -p phi0=" + phi0[i] + " -p l=" + l[i] +
                         " -o " + run_csv);
        REQUIRE(run.status == 0);
        CsvNumbers trajectory(run_csv);
        const std::size_t energy = trajectory.column("energy");
        double drift = 0;
        for (const auto& row : trajectory.rows) {
            drift = std::max(drift, std::fabs(row[energy] - trajectory.rows.front()[energy]));
        }
        CHECK(drift > 0);
        CHECK(summary.number(i, "energy_drift") == drift);
        // released at rest: |phi| <= phi0 up to Verlet's error
        CHECK(summary.number(i, "max_abs(phi)") == Approx(summary.number(i, "phi0")).margin(1e-5));
    }
}

TEST_CASE("constrained runs report the largest constraint residual") {
    std::string out = directory("double_pendulum");
    Result r = mdl("sweep " + model("double_pendulum.mdl") +
                   " -m rattle --stop 0.002 --step 1e-6 --constraint-tol 1e-14 -p "
                   "omega=1e3,2e3 --summary-only -q -o " +
                   out);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CsvTable summary(fs::path(out) / "summary.csv");
    REQUIRE(summary.rows.size() == 2);
    for (std::size_t i = 0; i < 2; ++i) {
        CHECK(summary.text(i, "status") == "ok");
        CHECK(summary.number(i, "max_abs_residual") < 1e-14);
        CHECK(summary.text(i, "rows") == "2001");
    }
    CHECK(summary.text(0, "b1.x") != summary.text(1, "b1.x")); // the vibration matters
}

TEST_CASE("a run that fails numerically is a row with its message, not a failed sweep") {
    std::string out = directory("failure");
    // Verlet is unstable for w h > 2: k = 1e8, m = 2 gives w h = 7.1
    Result r = mdl("sweep " + model("harmonic_oscillator.mdl") +
                   " -m verlet --stop 1 --step 1e-3 -p k=8,1e8,2 -j 3 -o " + out);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("mdl sweep: run 1 (k = 100000000) failed: verlet: non-finite value at "
                        "t = ") != std::string::npos);
    CHECK(r.output.find("(2 ok, 1 failed, 0 not started)") != std::string::npos);
    CsvTable summary(fs::path(out) / "summary.csv");
    REQUIRE(summary.rows.size() == 3);
    CHECK(summary.text(0, "status") == "ok");
    CHECK(summary.text(2, "status") == "ok");
    CHECK(summary.text(1, "status") == "failed");
    CHECK(summary.text(1, "message").find("non-finite value at t = ") != std::string::npos);
    CHECK(summary.text(1, "steps").empty()); // no statistics from a failed run
    double t = summary.number(1, "time");    // the last finite state written
    CHECK(t > 0.1);
    CHECK(t < 1.0);
    CHECK(std::isfinite(summary.number(1, "q")));
}

TEST_CASE("worker processes or threads change the timing column only") {
    std::string one = directory("jobs1"), three = directory("jobs3");
    std::string args =
        "sweep " + model("kapitza.mdl") + " --stop 0.25 -p omega=1e3:1e8:log:6 -p vmax=1,4 -q -o ";
    Result a = mdl(args + one + " -j 1"), b = mdl(args + three + " -j 3 --isolation thread");
    REQUIRE(a.status == 0);
    REQUIRE(b.status == 0);
    CsvTable summary(fs::path(one) / "summary.csv");
    REQUIRE(summary.rows.size() == 12);
    const char* omega[] = {"1000", "10000", "1e+05", "1e+06", "1e+07", "1e+08"}; // shortest text
    for (std::size_t i = 0; i < 12; ++i) {
        CHECK(summary.text(i, "omega") == omega[i / 2]);
        CHECK(summary.text(i, "micro_steps") != "");
    }
    CHECK(without_seconds(fs::path(one) / "summary.csv") ==
          without_seconds(fs::path(three) / "summary.csv"));
    for (std::size_t i = 0; i < 12; ++i) {
        std::string file = summary.text(i, "file");
        CHECK(read_file(fs::path(one) / file) == read_file(fs::path(three) / file));
    }
}

TEST_CASE("bad sweeps get a one-line error naming the flag") {
    std::string m = model("harmonic_oscillator.mdl"), out = directory("errors");
    Result no_output = mdl("sweep " + m + " -p k=1,2");
    CHECK(no_output.status == 2);
    CHECK(no_output.output.find("--output is required") != std::string::npos);
    Result range = mdl("sweep " + m + " -p k=1:2:log -o " + out);
    CHECK(range.status == 2);
    CHECK(range.output.find("-p k=1:2:log: a range is lo:hi:lin:N or lo:hi:log:N") !=
          std::string::npos);
    Result log = mdl("sweep " + m + " -p k=0:2:log:3 -o " + out);
    CHECK(log.status == 2);
    CHECK(log.output.find("a log range needs positive bounds") != std::string::npos);
    Result number = mdl("sweep " + m + " -p k=1,x -o " + out);
    CHECK(number.status == 2);
    CHECK(number.output.find("-p k=1,x: 'x' is not a number") != std::string::npos);
    Result twice = mdl("sweep " + m + " -p k=1 -p k=2 -o " + out);
    CHECK(twice.status == 2);
    CHECK(twice.output.find("-p k: the parameter is given twice") != std::string::npos);
    Result unknown = mdl("sweep " + m + " -p q00=1 -o " + out);
    CHECK(unknown.status == 2);
    CHECK(unknown.output.find("-p q00: model 'HarmonicOscillator' has no parameter 'q00'; did "
                              "you mean 'q0'?") != std::string::npos);
    // a method that cannot run the model: every run fails to start
    Result method =
        mdl("sweep " + model("double_pendulum.mdl") + " -m verlet -p omega=1,2 -o " + out);
    CHECK(method.status == 2);
    CHECK(method.output.find("mdl sweep: error: every run failed to start; run 0 (omega = 1): ") !=
          std::string::npos);
    Result file = mdl("sweep " + m + " -p k=1 -o /proc/no/such/dir");
    CHECK(file.status == 2);
    CHECK(file.output.find("--output: cannot create the directory '/proc/no/such/dir'") !=
          std::string::npos);
}

TEST_CASE("mdl sweep --events collects the impact phases after a transient: period 1, then 2") {
    // the ball on the vibrating table from the table's phase 0 at Gamma = 1.2 (inside the
    // period-1 orbit's range) and 1.55 (just above its period doubling), docs/events.md
    std::string out = directory("events");
    Result r = mdl("sweep " + model("vibrating_table.mdl") +
                   " -p phi0=0 -p dv=0 -p Gamma=1.2,1.55 --stop 20 --step 1 --events-after 15 "
                   "--event-period T --summary-only -j 2 -o " +
                   out);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK_FALSE(fs::exists(fs::path(out) / "run_000.csv"));
    CsvTable events(fs::path(out) / "events.csv");
    CHECK(events.header == std::vector<std::string>{"run", "phi0", "dv", "Gamma", "event", "time",
                                                    "cycle", "phase", "b.y", "b.vy"});
    impact_map::Table table;
    const double pi = std::numbers::pi, e = table.e, T = table.T();
    const double gamma1 = pi * (1 - e) / (1 + e);
    std::size_t row = 0;
    for (double gamma : {1.2, 1.55}) {
        INFO("Gamma = " << gamma);
        table.Gamma = gamma;
        // the impacts in [15, 20) by the exact impact map, independently of mdl
        std::vector<double> expected;
        for (double t : table.impact_times(table.g * T / 2, 260)) {
            if (t >= 15.0 && t < 20.0) {
                expected.push_back(t);
            }
        }
        REQUIRE(expected.size() >= 45);
        for (std::size_t k = 0; k < expected.size(); ++k, ++row) {
            INFO("impact at " << expected[k]);
            REQUIRE(row < events.rows.size());
            CHECK(events.number(row, "Gamma") == gamma);
            CHECK(events.text(row, "event") == "b.y <= A*sin(omega*time + phi0)");
            const double t = events.number(row, "time");
            CHECK(std::abs(t - expected[k]) <= 1e-9);
            CHECK(events.number(row, "cycle") == std::floor(expected[k] / T));
            CHECK(std::abs(events.number(row, "phase") - table.phase(expected[k])) <= 1e-8);
            CHECK(std::abs(events.number(row, "b.y") - table.s(t)) <= 1e-9);
            if (gamma == 1.2) { // period 1: the closed-form phase, once per cycle
                CHECK(std::abs(events.number(row, "phase") - std::acos(gamma1 / gamma)) <= 1e-8);
                CHECK(std::abs(events.number(row, "b.vy") + table.g * T / 2) <= 1e-8);
            } else if (k >= 2) { // period 2: two phases, alternating
                CHECK(std::abs(events.number(row, "phase") - events.number(row - 2, "phase")) <=
                      1e-8);
                CHECK(std::abs(events.number(row, "phase") - events.number(row - 1, "phase")) >=
                      0.4);
            }
        }
    }
    CHECK(row == events.rows.size());

    // the settings name the flag
    const std::string table_sweep =
        "sweep " + model("vibrating_table.mdl") + " -p Gamma=1.2 --stop 1 -o " + out;
    Result name = mdl(table_sweep + " --event-period Tau");
    CHECK(name.status == 2);
    CHECK(name.output.find("mdl sweep: error: --event-period: 'Tau' is neither a number nor a "
                           "Real parameter") != std::string::npos);
    Result zero = mdl(table_sweep + " --event-period 0");
    CHECK(zero.status == 2);
    CHECK(zero.output.find("--event-period: 0 is not positive") != std::string::npos);
    Result none = mdl("sweep " + model("harmonic_oscillator.mdl") + " -p k=1 --events -o " + out);
    CHECK(none.status == 2);
    CHECK(none.output.find("--events: HarmonicOscillator has no events") != std::string::npos);
}

#ifdef MDL_MPIEXEC
TEST_CASE("mpirun -np 2 mdl sweep writes the same files as the threaded sweep") {
    std::string threads = directory("mpi_threads"), dynamic = directory("mpi_dynamic"),
                blocks = directory("mpi_static");
    std::string args = " sweep " + model("harmonic_oscillator.mdl") +
                       " -m verlet --stop 1 --step 1e-3 --every 50 -p k=8,1e8,2,18,0.5 -p "
                       "q0=1,-0.25 -q -o ";
    Result a = mdl(args + threads + " -j 2");
    REQUIRE(a.status == 0);
    // root in CI containers; more ranks than cores is fine
    // Under LeakSanitizer, Open MPI's own start-up allocations (its plugins, unloaded at exit)
    // are reported as leaks; mdl's are checked by every other test of this build.
#if defined(__SANITIZE_ADDRESS__)
    const std::string leaks = "ASAN_OPTIONS=detect_leaks=0 ";
#else
    const std::string leaks;
#endif
    std::string mpirun = leaks +
                         std::string("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ") +
                         MDL_MPIEXEC + " -np 2 --oversubscribe " + MDL_EXECUTABLE;
    Result b = run_command(mpirun + args + dynamic + " -j 2 --distribute dynamic");
    INFO(b.output);
    REQUIRE(b.status == 0);
    Result c = run_command(mpirun + args + blocks + " -j 1 --distribute static");
    INFO(c.output);
    REQUIRE(c.status == 0);
    CsvTable summary(fs::path(threads) / "summary.csv");
    REQUIRE(summary.rows.size() == 10);
    CHECK(summary.text(2, "status") == "failed"); // k = 1e8: rows of failures travel too
    std::string expected = without_seconds(fs::path(threads) / "summary.csv");
    CHECK(without_seconds(fs::path(dynamic) / "summary.csv") == expected);
    CHECK(without_seconds(fs::path(blocks) / "summary.csv") == expected);
    for (std::size_t i = 0; i < 10; ++i) {
        std::string file = summary.text(i, "file");
        std::string run = read_file(fs::path(threads) / file);
        CHECK(read_file(fs::path(dynamic) / file) == run);
        CHECK(read_file(fs::path(blocks) / file) == run);
    }
}

namespace {

// `mpirun -np 3 mdl sweep` with run `crash` killing the process that starts it
// (MDL_INJECT_SWEEP_CRASH), bounded by timeout(1): a hang fails the test (status 124).
// odls_base_sigkill_timeout: when a rank dies, mpirun sends SIGTERM to the others and SIGKILL
// this many seconds later (default 1; 2 here): time for rank 0's summary on a loaded machine.
Result mpirun_with_crash(std::size_t crash, const std::string& arguments) {
#if defined(__SANITIZE_ADDRESS__)
    const std::string leaks = "ASAN_OPTIONS=detect_leaks=0 ";
#else
    const std::string leaks;
#endif
    return run_command(leaks + "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " +
                       "MDL_INJECT_SWEEP_CRASH=" + std::to_string(crash) + " timeout -k 5 120 " +
                       MDL_MPIEXEC + " -np 3 --oversubscribe --mca odls_base_sigkill_timeout 2 " +
                       MDL_EXECUTABLE + arguments);
}

// The summary's lines without the timing column, by run.
std::vector<std::string> summary_lines(const fs::path& summary) {
    std::string text = without_seconds(summary);
    std::vector<std::string> lines;
    for (std::size_t at = 0, eol = 0; (eol = text.find('\n', at)) != std::string::npos;
         at = eol + 1) {
        lines.push_back(text.substr(at, eol - at));
    }
    return lines; // header first
}

const std::string crash_grid = " -m verlet --stop 1 --step 1e-3 --every 50 -p k=2,8,18,0.5,32,4 ";

} // namespace

TEST_CASE("mpirun -np 3: a run that kills its rank's worker is one failed row naming the rank") {
    // Each rank runs its points in worker processes (--isolation process, the default), so the
    // MPI job never sees the crash: run 5 is a failed row, every other row is the threaded
    // sweep's, and the sweep exits 0 as for any failed run.
    const std::string reference = directory("mpi_crash_reference");
    REQUIRE(
        mdl("sweep " + model("harmonic_oscillator.mdl") + crash_grid + "-q -j 2 -o " + reference)
            .status == 0);
    const std::vector<std::string> expected = summary_lines(fs::path(reference) / "summary.csv");
    REQUIRE(expected.size() == 7);
    for (const std::string distribution : {"static", "dynamic"}) {
        const std::string out = directory("mpi_crash_" + distribution);
        Result r = mpirun_with_crash(5, " sweep " + model("harmonic_oscillator.mdl") + crash_grid +
                                            "-j 1 --distribute " + distribution + " -o " + out);
        INFO(distribution << ": " << r.output);
        CHECK(r.status == 0);
        // static: rank r does runs r, r + 3; dynamic: whichever rank asked for it
        const std::string rank = distribution == "static" ? "2" : "";
        const std::string failed =
            "mdl sweep: run 5 (k = 4) failed: the process running it on rank " + rank;
        CHECK(r.output.find(failed) != std::string::npos);
        CHECK(r.output.find("was killed by SIGKILL (Killed); the sweep went on\n") !=
              std::string::npos);
        CHECK(r.output.find("(5 ok, 1 failed, 0 not started) on 3 ranks x 1 worker process,") !=
              std::string::npos);
        CsvTable summary(fs::path(out) / "summary.csv");
        REQUIRE(summary.rows.size() == 6);
        CHECK(summary.text(5, "status") == "failed");
        CHECK(summary.text(5, "message").find("killed by SIGKILL") != std::string::npos);
        const std::vector<std::string> lines = summary_lines(fs::path(out) / "summary.csv");
        REQUIRE(lines.size() == 7);
        for (std::size_t i = 0; i < 6; ++i) { // header, runs 0-4
            CHECK(lines[i] == expected[i]);
        }
    }
}

TEST_CASE("mpirun -np 3 --isolation thread: a rank that dies ends the job, not a hang, and rank 0 "
          "writes the summary naming it") {
    // Run 2 (static: rank 2's first run) kills rank 2's own MPI process. Open MPI then ends the
    // job: it names the rank and signal, sends SIGTERM to ranks 0 and 1; rank 0 stops waiting
    // for rank 2, marks runs 2 and 5 interrupted and writes the summary.
    const std::string out = directory("mpi_rank_dies");
    Result r = mpirun_with_crash(2, " sweep " + model("harmonic_oscillator.mdl") + crash_grid +
                                        "-j 1 --isolation thread --distribute static -o " + out);
    INFO(r.output);
    CHECK(r.status != 124); // not a hang
    CHECK(r.status != 0);
    CHECK(r.output.find("process rank 2 with PID") != std::string::npos);
    CHECK(r.output.find("exited on signal 9 (Killed)") != std::string::npos);
    CHECK(r.output.find("mdl sweep: interrupted by SIGTERM:") != std::string::npos);
    CHECK(r.output.find("mdl sweep: rank 2 (runs 2, 5) did not report its runs: it died or was "
                        "stopped (see mpirun's message); they are marked 'interrupted'") !=
          std::string::npos);
    CsvTable summary(fs::path(out) / "summary.csv");
    REQUIRE(summary.rows.size() == 6);
    for (std::size_t i : {2, 5}) {
        CHECK(summary.text(i, "status") == "interrupted");
        CHECK(summary.text(i, "message").find("rank 2, which had the run, did not report it") !=
              std::string::npos);
    }
    for (std::size_t i : {0, 1, 3, 4}) { // finished before the SIGTERM, or interrupted by it
        const std::string status = summary.text(i, "status");
        CHECK((status == "ok" || status == "interrupted"));
    }
}
#endif
