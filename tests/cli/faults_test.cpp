// Faults a user hits, through the mdl executable: a full disk or a file size limit (every
// write is checked: one message naming the file, exit 4, what was written before still a
// valid CSV), an exception that no command expected (one line, exit 5, never "terminate
// called"), and SIGINT/SIGTERM (the run ends at a step boundary, exit 130/143). The signal
// tests wait for rows in the CSV before signalling, so they do not depend on timing.
#include "cli_test_support.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <tuple>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace cli_test;

namespace {

namespace fs = std::filesystem;

// A fresh directory under the build tree.
fs::path fresh_directory(const std::string& name) {
    fs::path dir = fs::path(MDL_BINARY_DIR) / "tests" / "cli" / "faults" / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// A CSV whose every line is complete: it ends with a line break and each row has the
// header's width (CsvNumbers checks the widths and that every cell is a number).
void require_complete_csv(const fs::path& path, std::size_t at_least_rows) {
    const std::string text = read_file(path);
    REQUIRE(!text.empty());
    CHECK(text.back() == '\n');
    CsvNumbers csv(path);
    CHECK(csv.rows.size() >= at_least_rows);
}

// Runs `command` under a file size limit of `blocks` 512-byte blocks, SIGXFSZ ignored, so a
// write past the limit fails with EFBIG as a full disk fails with ENOSPC (the limit can cut
// a line in two: the test sees whether mdl trims it).
Result with_file_size_limit(int blocks, const std::string& command) {
    return run_command("sh -c \"trap '' XFSZ; ulimit -f " + std::to_string(blocks) + "; " +
                       command + "\"");
}

// mdl with `arguments`, its standard output to the full disk, its standard error captured.
Result mdl_to_full_disk(const std::string& arguments) {
    return run_command("{ " + std::string(MDL_EXECUTABLE) + " " + arguments + " > /dev/full; }");
}

} // namespace

TEST_CASE("mdl run to a full disk: one message naming the file, exit 4") {
    const std::string m = model("kapitza.mdl") + " -m verlet --stop 0.01";
    Result file = mdl("run " + m + " -o /dev/full");
    INFO(file.output);
    CHECK(file.status == 4);
    CHECK(contains(file.output, "mdl run: error: writing '/dev/full': No space left on device"));
    CHECK(!contains(file.output, "terminate"));
    Result standard_output = mdl_to_full_disk("run " + m);
    INFO(standard_output.output);
    CHECK(standard_output.status == 4);
    CHECK(contains(standard_output.output,
                   "mdl run: error: writing 'standard output': No space left on device"));
}

TEST_CASE("a run cut off by a file size limit leaves a CSV of complete rows") {
    const fs::path dir = fresh_directory("run_limit");
    const fs::path out = dir / "limited.csv";
    Result r =
        with_file_size_limit(4, std::string(MDL_EXECUTABLE) + " run " + model("kapitza.mdl") +
                                    " -m verlet --stop 1 -o " + out.string());
    INFO(r.output);
    CHECK(r.status == 4);
    CHECK(contains(r.output, "mdl run: error: writing '" + out.string() + "': File too large"));
    CHECK(fs::file_size(out) <= 4 * 512);
    require_complete_csv(out, 10);
}

TEST_CASE("every command's standard output is checked") {
    Result check = mdl_to_full_disk("check " + model("kapitza.mdl"));
    CHECK(check.status == 4);
    CHECK(contains(check.output, "mdl: error: writing 'standard output': No space left on device"));
    Result emit = mdl_to_full_disk("compile --emit-llvm " + model("kapitza.mdl"));
    CHECK(emit.status == 4);
    const fs::path dir = fresh_directory("plot_script");
    { std::ofstream(dir / "data.csv") << "time,q\n0,1\n1,2\n"; }
    Result script = mdl_to_full_disk("plot " + (dir / "data.csv").string() + " --y q --script");
    CHECK(script.status == 4);
    CHECK(contains(script.output, "No space left on device"));
}

TEST_CASE("a plot cut off by a file size limit is an error, not 'wrote'") {
    // gnuplot exits 0 when its writes fail: mdl checks that the image ends as a whole file
    const fs::path dir = fresh_directory("plot_limit");
    {
        std::ofstream data(dir / "data.csv");
        data << "time,q\n";
        for (int i = 0; i < 2000; ++i) {
            data << i << "," << (i * i) % 97 << "\n";
        }
    }
    for (const char* extension : {".svg", ".png"}) {
        const fs::path image = dir / (std::string("plot") + extension);
        Result r = with_file_size_limit(2, std::string(MDL_EXECUTABLE) + " plot " +
                                               (dir / "data.csv").string() + " --y q -o " +
                                               image.string());
        INFO(r.output);
        CHECK(r.status == 4);
        CHECK(contains(r.output, "mdl plot: error: writing '" + image.string() +
                                     "': the image ends after 1024 bytes, incomplete"));
        Result whole = mdl("plot " + (dir / "data.csv").string() + " --y q -o " + image.string());
        CHECK(whole.status == 0); // the same plot without the limit is complete
    }
}

TEST_CASE("mdl sweep to a full disk: the summary and each trajectory are checked, exit 4") {
    const std::string m = model("kapitza.mdl") + " -m verlet --stop 0.01 -p vmax=1,2";
    SECTION("the summary cannot be written") {
        const fs::path dir = fresh_directory("sweep_summary");
        fs::create_symlink("/dev/full", dir / "summary.csv");
        Result r = mdl("sweep " + m + " --summary-only -o " + dir.string());
        INFO(r.output);
        CHECK(r.status == 4);
        CHECK(contains(r.output, "mdl sweep: error: writing '" + (dir / "summary.csv").string() +
                                     "': No space left on device"));
    }
    SECTION("one trajectory cannot be written: its row says so, the other run is complete") {
        const fs::path dir = fresh_directory("sweep_one_run");
        fs::create_symlink("/dev/full", dir / "run_000.csv");
        Result r = mdl("sweep " + m + " -o " + dir.string());
        INFO(r.output);
        CHECK(r.status == 4);
        CHECK(contains(r.output, "1 trajectory file could not be written"));
        CsvTable summary(dir / "summary.csv");
        REQUIRE(summary.rows.size() == 2);
        CHECK(summary.text(0, "status") == "error");
        CHECK(summary.text(0, "message") ==
              "writing '" + (dir / "run_000.csv").string() + "': No space left on device");
        CHECK(summary.text(1, "status") == "ok");
        require_complete_csv(dir / "run_001.csv", 2);
    }
    SECTION("a summary cut off by a file size limit keeps complete rows") {
        const fs::path dir = fresh_directory("sweep_summary_limit");
        Result r = with_file_size_limit(
            1, std::string(MDL_EXECUTABLE) + " sweep " + model("kapitza.mdl") +
                   " --stop 0.0125 -p vmax=1:2:lin:50 --summary-only -o " + dir.string());
        INFO(r.output);
        CHECK(r.status == 4);
        CHECK(contains(r.output, "mdl sweep: error: writing '" + (dir / "summary.csv").string() +
                                     "': File too large"));
        const std::string text = read_file(dir / "summary.csv");
        REQUIRE(!text.empty());
        CHECK(text.back() == '\n');
        CsvTable summary(dir / "summary.csv"); // every row has the header's width
        CHECK(!summary.rows.empty());
        CHECK(summary.rows.size() < 50);
    }
    SECTION("every trajectory cut off by a file size limit keeps complete rows") {
        const fs::path dir = fresh_directory("sweep_limit");
        Result r =
            with_file_size_limit(4, std::string(MDL_EXECUTABLE) + " sweep " + model("kapitza.mdl") +
                                        " -m verlet --stop 1 -p vmax=1,2 -j 1 -o " + dir.string());
        INFO(r.output);
        CHECK(r.status == 4);
        CHECK(contains(r.output, "File too large"));
        require_complete_csv(dir / "run_000.csv", 10);
        require_complete_csv(dir / "run_001.csv", 10);
    }
}

TEST_CASE("an exception no command expected is one line and exit 5, never 'terminate called'") {
    for (const auto& [fault, message] :
         {std::pair<std::string, std::string>{"exception", "mdl: internal error: fault injected by "
                                                           "MDL_INJECT_FAULT (please report this)"},
          {"bad_alloc", "mdl: error: out of memory"},
          {"unknown", "mdl: internal error: an unknown exception (please report this)"}}) {
        Result r = run_command("MDL_INJECT_FAULT=" + fault + " " + MDL_EXECUTABLE + " check " +
                               model("kapitza.mdl"));
        INFO(fault << ": " << r.output);
        CHECK(r.status == 5);
        CHECK(r.output == message + "\n");
    }
}

namespace {

// mdl started in the background with its standard output and error going to `log`, so a test
// can signal it while it runs. Bounded: a process still alive when the test gives up is
// killed, and the test fails instead of hanging.
class Background {
public:
    Background(const std::vector<std::string>& arguments, const fs::path& log) {
        pid_ = fork();
        REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            std::vector<char*> argv;
            argv.push_back(const_cast<char*>(MDL_EXECUTABLE));
            for (const std::string& a : arguments) {
                argv.push_back(const_cast<char*>(a.c_str()));
            }
            argv.push_back(nullptr);
            execv(MDL_EXECUTABLE, argv.data());
            _exit(127);
        }
    }
    Background(const Background&) = delete;
    Background& operator=(const Background&) = delete;
    ~Background() {
        if (pid_ > 0) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
    }

    bool running() {
        int status = 0;
        return pid_ > 0 && waitpid(pid_, &status, WNOHANG) == 0;
    }
    void signal(int number) const { kill(pid_, number); }
    pid_t pid() const { return pid_; }

    // The exit status, waiting at most `limit` (a hang fails the test); -1 if killed.
    int wait(std::chrono::seconds limit) {
        const auto give_up = std::chrono::steady_clock::now() + limit;
        int status = 0;
        while (waitpid(pid_, &status, WNOHANG) == 0) {
            if (std::chrono::steady_clock::now() > give_up) {
                FAIL("mdl did not end within " << limit.count() << " s of the signal");
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }

private:
    pid_t pid_ = -1;
};

std::size_t lines_in(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return static_cast<std::size_t>(
        std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n'));
}

// Waits until `ready` holds (the run is under way), at most `limit`; fails if mdl ended first.
template <class Ready>
void wait_until(Background& process, Ready ready, std::chrono::seconds limit) {
    const auto give_up = std::chrono::steady_clock::now() + limit;
    while (!ready()) {
        REQUIRE(process.running());
        if (std::chrono::steady_clock::now() > give_up) {
            FAIL("the run did not start writing within " << limit.count() << " s");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

} // namespace

TEST_CASE("SIGINT and SIGTERM end mdl run at a step boundary: CSV complete, summary, 130/143") {
    for (const auto& [signal, status, name] :
         {std::tuple{SIGINT, 130, "SIGINT"}, std::tuple{SIGTERM, 143, "SIGTERM"}}) {
        const fs::path dir = fresh_directory(std::string("run_") + name);
        const fs::path out = dir / "long.csv", log = dir / "log.txt";
        // 1e11 Verlet steps: far longer than any test; only the signal ends it
        Background run({"run", model("kapitza.mdl"), "-m", "verlet", "--stop", "1e6", "--step",
                        "1e-5", "--every", "1000", "-o", out.string()},
                       log);
        wait_until(
            run, [&] { return lines_in(out) >= 3; }, std::chrono::seconds(120));
        run.signal(signal);
        CHECK(run.wait(std::chrono::seconds(60)) == status);
        std::string message = read_file(log);
        INFO(message);
        // 1e11 steps, every 1000th written: announced before the run (3 columns, 25 bytes each)
        const std::string warning = "mdl run: warning: this run will write 100000001 rows of 3 "
                                    "values to '" +
                                    out.string() +
                                    "': up to 7.5 GB at 25 bytes a value; --every N writes every "
                                    "N-th state, --stop an earlier end\n";
        REQUIRE(message.rfind(warning, 0) == 0);
        message = message.substr(warning.size());
        const std::string prefix = "mdl run: interrupted at t = ";
        REQUIRE(message.rfind(prefix, 0) == 0);
        CHECK(contains(message, std::string(" by ") + name + " (stop time 1e+06); "));
        CHECK(contains(message, "rows in '" + out.string() + "', complete to that time\n"));
        const double t = std::stod(message.substr(prefix.size()));
        require_complete_csv(out, 2);
        CsvNumbers csv(out);
        CHECK(csv.rows.back()[0] == t); // the CSV ends at the time the summary names
        CHECK(t < 1e6);
    }
}

TEST_CASE("SIGTERM ends mdl sweep: finished rows kept, the others marked interrupted, 143") {
    const fs::path dir = fresh_directory("sweep_signal");
    const fs::path log = dir.parent_path() / "sweep_signal.log";
    // one thread: k = 2 (omega = 1) takes dopri5 some 1e4 steps to t = 1e3; k = 2e12
    // (omega = 1e6) about 1e9, far longer than any test
    Background sweep({"sweep", model("harmonic_oscillator.mdl"), "-m", "dopri5", "--stop", "1e3",
                      "--every", "100", "-p", "k=2,2e12,2e12", "-j", "1", "-o", dir.string()},
                     log);
    wait_until(
        sweep, [&] { return lines_in(dir / "run_001.csv") >= 3; }, std::chrono::seconds(120));
    sweep.signal(SIGTERM);
    CHECK(sweep.wait(std::chrono::seconds(60)) == 143);
    const std::string message = read_file(log);
    INFO(message);
    CHECK(contains(message, "mdl sweep: interrupted by SIGTERM: 1 of 3 runs finished, 2 marked "
                            "'interrupted' in "));
    CsvTable summary(dir / "summary.csv");
    REQUIRE(summary.rows.size() == 3);
    CHECK(summary.text(0, "status") == "ok");
    CHECK(summary.number(0, "time") == 1e3);
    CHECK(summary.text(1, "status") == "interrupted");
    CHECK(summary.text(1, "message").rfind("interrupted at t = ", 0) == 0);
    CHECK(summary.text(1, "message").find(" by SIGTERM") != std::string::npos);
    CHECK(summary.number(1, "time") < 1e3);
    CHECK(summary.text(2, "status") == "interrupted");
    CHECK(summary.text(2, "message") == "not started: the sweep was interrupted by SIGTERM");
    CHECK(summary.text(2, "file").empty());
    CHECK(!fs::exists(dir / "run_002.csv"));
    require_complete_csv(dir / "run_000.csv", 2);
    require_complete_csv(dir / "run_001.csv", 2);
    // the interrupted run's trajectory ends at the time its row reports
    CsvNumbers interrupted(dir / "run_001.csv");
    CHECK(interrupted.rows.back()[0] == summary.number(1, "time"));
}

TEST_CASE("a reader that closes the pipe ends mdl run quietly with SIGPIPE's status 141") {
    // `mdl run | head`: the run stops at the first row the reader no longer takes, as Unix
    // filters do (killed by SIGPIPE, which mdl does not ignore), with no message, instead of
    // integrating to the stop time of 1e6 or reporting a write error (the only message is the
    // warning before the run of what it would write).
    const fs::path dir = fresh_directory("sigpipe");
    const fs::path log = dir / "stderr.txt";
    const Result r =
        run_command("bash -c '\"" + std::string(MDL_EXECUTABLE) + "\" run \"" +
                    model("kapitza.mdl") + "\" -m verlet --stop 1e6 --step 1e-5 2>\"" +
                    log.string() + "\" | head -n 3; echo \"mdl status ${PIPESTATUS[0]}\"'");
    INFO(r.output);
    CHECK(r.status == 0);
    CHECK(contains(r.output, "time,q,der(q)\n0,0.5,0\n"));
    CHECK(contains(r.output, "mdl status 141\n"));
    CHECK(read_file(log) == "mdl run: warning: this run will write 100000000001 rows of 3 values "
                            "to standard output: up to 7.5e+03 GB at 25 bytes a value; --every N "
                            "writes every N-th state, --stop an earlier end\n");
}

namespace {

// The processes whose parent is `parent` (from /proc/<pid>/stat: "pid (comm) state ppid ...").
std::vector<pid_t> children_of(pid_t parent) {
    std::vector<pid_t> children;
    for (const auto& entry : fs::directory_iterator("/proc")) {
        const std::string name = entry.path().filename().string();
        if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) {
            continue;
        }
        std::ifstream stat(entry.path() / "stat");
        std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
        const std::size_t close = text.rfind(')');
        if (close == std::string::npos || close + 4 >= text.size()) {
            continue;
        }
        const long ppid = std::strtol(text.c_str() + close + 4, nullptr, 10); // after ") S "
        if (ppid == parent) {
            children.push_back(static_cast<pid_t>(std::stol(name)));
        }
    }
    return children;
}

} // namespace

TEST_CASE("a sweep's worker killed mid-run is one failed row, and the sweep goes on") {
    // Runs are isolated in worker processes: a run that crashes the process it runs in (here:
    // its worker killed from outside, as the out-of-memory killer would) must not take the
    // sweep with it. One worker (-j 1) does the runs in order; it is killed during run 1.
    const fs::path dir = fresh_directory("sweep_worker_killed");
    const fs::path out = dir / "sweep", log = dir / "log.txt";
    Background sweep({"sweep", model("kapitza.mdl"), "-m", "verlet", "--stop", "40", "--step",
                      "1e-5", "--every", "1000", "-p", "vmax=1,2,3", "-j", "1", "-o", out.string()},
                     log);
    const fs::path running = out / "run_001.csv";
    wait_until(
        sweep, [&] { return lines_in(running) >= 3; }, std::chrono::seconds(120));
    const std::vector<pid_t> workers = children_of(sweep.pid());
    REQUIRE(workers.size() == 1);
    REQUIRE(kill(workers[0], SIGKILL) == 0);
    CHECK(sweep.wait(std::chrono::seconds(300)) == 0);
    const std::string message = read_file(log);
    INFO(message);
    CHECK(contains(message, "mdl sweep: run 1 (vmax = 2) failed: the process running it was "
                            "killed by SIGKILL (Killed); the sweep went on\n"));
    CHECK(contains(message, "(2 ok, 1 failed, 0 not started) on 1 worker process,"));
    CsvTable summary(out / "summary.csv");
    REQUIRE(summary.rows.size() == 3);
    CHECK(summary.text(0, "status") == "ok");
    CHECK(summary.text(1, "status") == "failed");
    CHECK(summary.text(2, "status") == "ok");
    CHECK(summary.number(0, "time") == 40);
    CHECK(summary.number(2, "time") == 40);
    // the killed run's row comes from what its trajectory holds: whole rows, up to its end
    require_complete_csv(running, 2);
    CsvNumbers trajectory(running);
    CHECK(summary.number(1, "time") == trajectory.rows.back()[0]);
    CHECK(summary.number(1, "time") < 40);
    CHECK(summary.text(1, "steps").empty());
}

// Resource bounds (issue 22, item 5): a warning before a run writes more than 1 GB, and models
// that would need more memory than the compiler allows refused with a message.

TEST_CASE("mdl run warns before a run that will write more than 1 GB") {
    // 1e10 steps of verlet, each a row of time, q, der(q), energy: 1e10 + 1 rows x 4 values x
    // at most 25 bytes = 1e12 bytes. The reader stops after 1000 bytes (SIGPIPE ends mdl).
    const std::string run = std::string(MDL_EXECUTABLE) + " run " +
                            model("harmonic_oscillator.mdl") + " -m verlet --step 1e-4";
    const auto head = [&](const std::string& options) {
        return run_command("{ " + run + " " + options + " | head -c 1000 > /dev/null; }");
    };
    Result large = head("--stop 1e6 --every 1");
    INFO(large.output);
    CHECK(large.output ==
          "mdl run: warning: this run will write 10000000001 rows of 3 values to standard "
          "output: up to 750 GB at 25 bytes a value; --every N writes every N-th state, "
          "--stop an earlier end\n");
    // 1333 / 1e-4 + 1 rows of 3 values: 9.9975e8 bytes at most, no warning
    CHECK(head("--stop 1333 --every 1").output.empty());
    // 1334: 1.0005e9 bytes
    CHECK(head("--stop 1334 --every 1").output.find("this run will write 13340001 rows") !=
          std::string::npos);
    // --every 10 writes a tenth of the rows: 1e9 + 1 rows, 7.5e10 bytes
    CHECK(head("--stop 1e6 --every 10").output ==
          "mdl run: warning: this run will write 1000000001 rows of 3 values to standard output: "
          "up to 75 GB at 25 bytes a value; --every N writes every N-th state, --stop an "
          "earlier end\n");
}

TEST_CASE("an adaptive run writing every step is warned of from its first 1000 steps") {
    // dopri5 writing every step has no row count in advance: after 1000 steps the count is
    // projected from their mean spacing (about 1e11 rows to t = 1e9 here); the test then
    // stops the run with SIGTERM.
    const fs::path dir = fresh_directory("large_adaptive_output");
    const fs::path csv = dir / "out.csv", log = dir / "log.txt";
    Background run({"run", model("harmonic_oscillator.mdl"), "-m", "dopri5", "--step", "0",
                    "--stop", "1e9", "--rtol", "1e-10", "-q", "-o", csv.string()},
                   log);
    wait_until(
        run, [&] { return fs::exists(log) && contains(read_file(log), "GB at 25 bytes a value"); },
        std::chrono::seconds(120));
    run.signal(SIGTERM);
    CHECK(run.wait(std::chrono::seconds(60)) == 143);
    const std::string message = read_file(log);
    INFO(message);
    CHECK(message.rfind("mdl run: warning: at the mean spacing of its first 1000 states, this "
                        "adaptive run will write about ",
                        0) == 0);
    CHECK(contains(message, " rows of 3 values to '" + csv.string() + "': up to "));
    CHECK(contains(message, "; --step T writes a row every T time units, --every N every N-th "
                            "state\n"));
}

TEST_CASE("mdl sweep warns before its trajectories take more than 1 GB together") {
    // 1e9 + 1 rows of 3 values per run, 2 runs, 25 bytes a value: 1.5e11 bytes. The runs
    // themselves end at their first step (k q overflows), so the sweep ends at once.
    const fs::path out = fresh_directory("large_sweep_output") / "sweep";
    Result r = run_command("{ " + std::string(MDL_EXECUTABLE) + " sweep " +
                           model("harmonic_oscillator.mdl") +
                           " -m verlet --stop 1e5 --step 1e-4 --every 1 -p k=1e308 -p "
                           "q0=1e308,-1e308 -j 1 -q -o " +
                           out.string() + "; echo \"exit status $?\"; }");
    INFO(r.output);
    CHECK(r.output == "mdl sweep: warning: the 2 runs will write 1000000001 rows of 3 values "
                      "each into '" +
                          out.string() +
                          "': up to 150 GB at 25 bytes a value; --every N writes every N-th "
                          "state, --summary-only no trajectories\nexit status 0\n");
    // --summary-only writes no trajectory: nothing to warn of
    Result summary = run_command("{ " + std::string(MDL_EXECUTABLE) + " sweep " +
                                 model("harmonic_oscillator.mdl") +
                                 " -m verlet --stop 1e5 --step 1e-4 --every 1 -p k=1e308 -p "
                                 "q0=1e308,-1e308 -j 1 -q --summary-only -o " +
                                 out.string() + "; echo \"exit status $?\"; }");
    CHECK(summary.output == "exit status 0\n");
}

// [no-sanitizer]: under a 2 GB address-space limit AddressSanitizer cannot map its shadow
TEST_CASE("a model that would unroll into more than the compiler holds is refused at once",
          "[no-sanitizer]") {
    // 10^8 bodies: refused at the declaration after 2,000,000 elements, under a 2 GB address
    // space limit (a compiler that tried would be killed instead of reporting).
    const std::string huge = std::string(MDL_SOURCE_DIR) + "/tests/cli/models/huge_array.mdl";
    Result r = run_command("sh -c 'ulimit -v 2000000; " + std::string(MDL_EXECUTABLE) + " check " +
                           huge + "; echo \"exit status $?\"'");
    INFO(r.output);
    CHECK(contains(r.output, "huge_array.mdl:6:10: error: an array of 100000000 elements is more "
                             "than a model may unroll into (2000000 declarations and equations); "
                             "reduce the array size\n"));
    CHECK(contains(r.output, "exit status 1\n"));
}

TEST_CASE("a model whose derivatives swell past the node limit is refused, not swapped for",
          "[no-sanitizer]") {
    const std::string blowup = std::string(MDL_SOURCE_DIR) + "/tests/cli/models/hessian_blowup.mdl";
    Result r = run_command("sh -c 'ulimit -v 4000000; " + std::string(MDL_EXECUTABLE) +
                           " compile " + blowup + "; echo \"exit status $?\"'");
    INFO(r.output);
    CHECK(contains(r.output, "hessian_blowup.mdl: error: the derived equations are too large: "));
    CHECK(contains(r.output, "exit status 1\n"));
}
