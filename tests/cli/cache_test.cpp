// The code cache on disk as users meet it: a second mdl process reads what the first compiled,
// damaged entries and concurrent processes, --no-cache, folders that cannot be written, and
// `mdl cache info` / `mdl cache clear`. Every command runs with MDL_CACHE_DIR set to a folder
// of the test's own.
#include "cli_test_support.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace cli_test;
namespace fs = std::filesystem;

namespace {

// An empty folder of this test's own (not created: mdl creates it).
fs::path cache_folder(const std::string& name) {
    const fs::path folder = fs::path(MDL_BINARY_DIR) / "tests" / "cli" / "code_cache" / name;
    fs::remove_all(folder);
    return folder;
}

// mdl with MDL_CACHE_DIR set to `folder`.
Result mdl_in(const fs::path& folder, const std::string& arguments) {
    return run_command("MDL_CACHE_DIR='" + folder.string() + "' " + MDL_EXECUTABLE + " " +
                       arguments);
}

// The entries in the folder (files with a hex name), and whether anything else is there.
std::vector<fs::path> entries(const fs::path& folder, bool* other_files = nullptr) {
    std::vector<fs::path> out;
    if (!fs::exists(folder)) {
        return out;
    }
    for (const auto& file : fs::directory_iterator(folder)) {
        const std::string name = file.path().filename().string();
        if (name.size() == 32 && name.find_first_not_of("0123456789abcdef") == std::string::npos) {
            out.push_back(file.path());
        } else if (other_files != nullptr) {
            *other_files = true;
        }
    }
    return out;
}

std::size_t count_lines_with(const std::string& text, const std::string& part) {
    std::size_t count = 0, at = 0;
    while ((at = text.find(part, at)) != std::string::npos) {
        ++count;
        at += part.size();
    }
    return count;
}

const std::string timings = "compile --timings ";

} // namespace

TEST_CASE("a second mdl process takes the machine code from disk and computes the same bits") {
    const fs::path folder = cache_folder("second_process");
    const std::string model = cli_test::model("double_pendulum.mdl");
    Result cold = mdl_in(folder, timings + model);
    INFO(cold.output);
    REQUIRE(cold.status == 0);
    CHECK(cold.output.find("code cache miss") != std::string::npos);
    CHECK(entries(folder).size() == 1);
    Result warm = mdl_in(folder, timings + model);
    INFO(warm.output);
    REQUIRE(warm.status == 0);
    CHECK(warm.output.find("code cache disk") != std::string::npos);

    // The trajectories of a run with the cached code, and without any cache, are identical to
    // the last digit printed (17 significant digits: the same doubles).
    const fs::path csv = fs::path(MDL_BINARY_DIR) / "tests" / "cli";
    const std::string run = "run " + model + " -m rattle --stop 0.05 --step 1e-4 -q ";
    REQUIRE(mdl_in(folder, run + "-o " + (csv / "cached.csv").string()).status == 0);
    REQUIRE(mdl_in(folder, run + "--no-cache -o " + (csv / "uncached.csv").string()).status == 0);
    const std::string cached = read_file(csv / "cached.csv");
    CHECK(cached.size() > 1000);
    CHECK(cached == read_file(csv / "uncached.csv"));
    CHECK(entries(folder).size() == 1);
}

TEST_CASE("what mdl run stores, mdl compile and a second mdl run find") {
    const fs::path folder = cache_folder("run_then_compile");
    const std::string model = cli_test::model("kapitza.mdl");
    const std::string run = "run -q -m rk4 --step 1e-4 --stop 0.01 -o /dev/null " + model;
    REQUIRE(mdl_in(folder, run).status == 0);
    const auto written = entries(folder);
    REQUIRE(written.size() == 1);
    Result compiled = mdl_in(folder, timings + model);
    INFO(compiled.output);
    CHECK(compiled.output.find("code cache disk") != std::string::npos);
    // The second run reads the entry (a hit marks it used: its time moves) and adds none.
    const auto long_ago = fs::file_time_type::clock::now() - std::chrono::hours(2);
    fs::last_write_time(written[0], long_ago);
    REQUIRE(mdl_in(folder, run).status == 0);
    CHECK(fs::last_write_time(written[0]) > long_ago);
    CHECK(entries(folder).size() == 1);
}

TEST_CASE("a damaged entry is removed and recompiled by the next process, with one warning") {
    const fs::path folder = cache_folder("damaged");
    const std::string model = cli_test::model("kapitza.mdl");
    REQUIRE(mdl_in(folder, timings + model).status == 0);
    const auto written = entries(folder);
    REQUIRE(written.size() == 1);
    const std::string intact = read_file(written[0]);

    std::string flipped = intact;
    for (std::size_t i = 60; i < flipped.size(); i += 97) {
        flipped[i] = static_cast<char>(~flipped[i]);
    }
    for (const std::string& damaged : {flipped, intact.substr(0, intact.size() - 1)}) {
        std::ofstream(written[0], std::ios::binary | std::ios::trunc) << damaged;
        Result r = mdl_in(folder, timings + model);
        INFO(r.output);
        REQUIRE(r.status == 0);
        CHECK(r.output.find("code cache miss") != std::string::npos);
        CHECK(count_lines_with(r.output, "mdl: warning: code cache: removed the damaged entry") ==
              1);
        CHECK(read_file(written[0]) == intact); // compiled again, stored again
        Result again = mdl_in(folder, timings + model);
        CHECK(again.output.find("code cache disk") != std::string::npos);
        CHECK(again.output.find("warning") == std::string::npos);
    }
}

TEST_CASE("four mdl processes compiling at once on an empty cache all succeed") {
    const fs::path folder = cache_folder("concurrent");
    const std::string model = cli_test::model("double_pendulum_angles.mdl");
    const fs::path status = fs::path(MDL_BINARY_DIR) / "tests" / "cli" / "concurrent_status";
    fs::remove_all(status);
    fs::create_directories(status);
    std::string script;
    for (int i = 0; i < 4; ++i) {
        script += "(MDL_CACHE_DIR='" + folder.string() + "' " + MDL_EXECUTABLE + " compile " +
                  model + " > /dev/null; echo $? > '" + (status / std::to_string(i)).string() +
                  "') & ";
    }
    Result all = run_command(script + "wait");
    INFO(all.output);
    CHECK(all.output.empty()); // no warning from any of them
    for (int i = 0; i < 4; ++i) {
        CHECK(read_file(status / std::to_string(i)) == "0\n");
    }
    bool other_files = false;
    CHECK(entries(folder, &other_files).size() == 1);
    CHECK_FALSE(other_files); // no temporary file left
    Result warm = mdl_in(folder, timings + model);
    INFO(warm.output);
    CHECK(warm.output.find("code cache disk") != std::string::npos);
}

TEST_CASE("mdl with --no-cache writes nothing in the cache folder") {
    const fs::path folder = cache_folder("no_cache");
    const std::string model = cli_test::model("kapitza.mdl");
    CHECK(mdl_in(folder, "compile --no-cache " + model).status == 0);
    CHECK(mdl_in(folder, "run --no-cache -q -o /dev/null -m rk4 --step 1e-4 --stop 0.01 " + model)
              .status == 0);
    CHECK(mdl_in(folder, "check --no-cache " + model).status == 0);
    CHECK_FALSE(fs::exists(folder));
    // (and without it, check compiles the vibrated model into the cache)
    CHECK(mdl_in(folder, "check " + model).status == 0);
    CHECK(entries(folder).size() == 1);
}

TEST_CASE("a cache folder that cannot be written still compiles, with at most one warning") {
    const fs::path base = cache_folder("read_only");
    fs::create_directories(base);
    fs::permissions(base, fs::perms::owner_read | fs::perms::owner_exec);
    // Root writes into any folder: /proc takes no files, even from root.
    const fs::path folder = geteuid() == 0 ? fs::path("/proc") : base;
    const std::string model = cli_test::model("double_pendulum.mdl");
    Result r = mdl_in(folder, timings + model);
    INFO(r.output);
    CHECK(r.status == 0);
    CHECK(r.output.find("code cache miss") != std::string::npos);
    CHECK(count_lines_with(r.output, "warning") <= 1);
    Result run = mdl_in(folder, "run -q -m rattle --step 1e-4 --stop 0.01 -o /dev/null " + model);
    CHECK(run.status == 0);
    // A folder that cannot be created either.
    Result nested = mdl_in("/proc/mdl/cache", "compile " + model);
    CHECK(nested.status == 0);
    CHECK(count_lines_with(nested.output, "warning") == 1);
    fs::permissions(base, fs::perms::owner_all);
}

TEST_CASE("mdl cache info counts the entries and mdl cache clear removes them") {
    const fs::path folder = cache_folder("info");
    Result empty = mdl_in(folder, "cache info");
    INFO(empty.output);
    CHECK(empty.status == 0);
    CHECK(empty.output.find("folder: " + folder.string()) != std::string::npos);
    CHECK(empty.output.find("entries: 0") != std::string::npos);
    REQUIRE(mdl_in(folder, "compile " + model("kapitza.mdl")).status == 0);
    REQUIRE(mdl_in(folder, "compile " + model("double_pendulum.mdl")).status == 0);
    Result two = mdl_in(folder, "cache info");
    INFO(two.output);
    CHECK(two.output.find("entries: 2") != std::string::npos);
    Result cleared = mdl_in(folder, "cache clear");
    INFO(cleared.output);
    CHECK(cleared.status == 0);
    CHECK(cleared.output.find("removed 2 entries") != std::string::npos);
    CHECK(entries(folder).empty());
    CHECK(mdl_in(folder, "cache info").output.find("entries: 0") != std::string::npos);
    CHECK(mdl_in(folder, "cache").status == 2); // info or clear is required
}

TEST_CASE("MDL_CACHE_MAX_MB bounds the cache, and a malformed value keeps the default") {
    const fs::path folder = cache_folder("bounded");
    const std::string model = cli_test::model("kapitza.mdl");
    Result none = run_command("MDL_CACHE_MAX_MB=0 MDL_CACHE_DIR='" + folder.string() + "' " +
                              MDL_EXECUTABLE + " compile " + model);
    CHECK(none.status == 0);
    CHECK(entries(folder).empty());
    Result bad = run_command("MDL_CACHE_MAX_MB=lots MDL_CACHE_DIR='" + folder.string() + "' " +
                             MDL_EXECUTABLE + " compile " + model);
    INFO(bad.output);
    CHECK(bad.status == 0);
    CHECK(count_lines_with(bad.output, "MDL_CACHE_MAX_MB='lots' is not a number") == 1);
    CHECK(entries(folder).size() == 1);
}

TEST_CASE("without MDL_CACHE_DIR the cache is in XDG_CACHE_HOME, else in HOME") {
    const fs::path home = cache_folder("home");
    Result xdg = run_command("env -u MDL_CACHE_DIR XDG_CACHE_HOME='" + (home / "xdg").string() +
                             "' " + MDL_EXECUTABLE + " cache info");
    CHECK(xdg.output.find("folder: " + (home / "xdg" / "mdl").string()) != std::string::npos);
    Result plain = run_command("env -u MDL_CACHE_DIR -u XDG_CACHE_HOME HOME='" + home.string() +
                               "' " + MDL_EXECUTABLE + " cache info");
    CHECK(plain.output.find("folder: " + (home / ".cache" / "mdl").string()) != std::string::npos);
}
