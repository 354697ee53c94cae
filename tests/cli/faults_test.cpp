// Faults a user hits, through the mdl executable: a full disk or a file size limit (every
// write is checked: one message naming the file, exit 4, what was written before still a
// valid CSV) and an exception that no command expected (one line, exit 5, never
// "terminate called").
#include "cli_test_support.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

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
