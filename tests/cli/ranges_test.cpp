// Extreme values in every numeric option of `mdl run` and in -p, table-driven: each value is
// either run to the stop time (exit 0), refused with a message naming the option (exit 2), or
// a numerical failure located in time (exit 3), as the table says; never 0 steps with exit 0,
// a hang or a crash. (Before: --step 1e300 ran 0 steps, HMM --stop 1e300 took 0 macro steps
// and exited 0, --window 1e-300 ran hmm-stiff without averaging, nan passed --rho-inf and
// --constraint-tol.)
#include "cli_test_support.hpp"

#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

using namespace cli_test;

namespace {

namespace fs = std::filesystem;

// The extreme values, in the order of the outcome strings below.
const std::vector<std::string> extremes = {"1e-300", "1e300", "4e-320", "-0", "nan", "inf"};

struct Row {
    std::string label;
    std::string arguments; // {} stands for the value
    std::string names;     // what a refusal's message must name (the option); a|b: either
    std::string stop;      // the last row's time when it runs ({}: the value)
    // per value: o runs to the stop time, R refused (exit 2), f numerical failure (exit 3)
    std::string outcomes;
};

std::string with_value(std::string text, const std::string& value) {
    for (std::size_t at; (at = text.find("{}")) != std::string::npos;) {
        text.replace(at, 2, value);
    }
    return text;
}

std::string first_line(const std::string& text) {
    return text.substr(0, text.find('\n'));
}

// Whether `line` contains one of the |-separated alternatives of `names`.
bool names_one_of(const std::string& line, const std::string& names) {
    std::size_t begin = 0;
    while (true) {
        const std::size_t end = names.find('|', begin);
        if (line.find(names.substr(begin, end - begin)) != std::string::npos) {
            return true;
        }
        if (end == std::string::npos) {
            return false;
        }
        begin = end + 1;
    }
}

} // namespace

TEST_CASE("extreme values in every numeric option run, or are refused naming the option") {
    const std::string ho = model("harmonic_oscillator.mdl"), kapitza = model("kapitza.mdl"),
                      stiff = model("stiff_springs.mdl"), pendulum = model("double_pendulum.mdl");
    // values:                                     1e-300 1e300 4e-320 -0 nan inf
    const std::vector<Row> table = {
        {"verlet step", ho + " -m verlet --stop 1 --step {}", "--step", "1", "RoRRRR"},
        {"verlet stop", ho + " -m verlet --stop {}", "--stop", "{}", "oRRRRR"},
        {"verlet start", ho + " -m verlet --stop 1 --start {}", "--st", "1", "oRooRR"},
        {"every", ho + " -m verlet --stop 1 --every {}", "--every", "1", "RRRRRR"},
        {"dopri5 rtol", ho + " -m dopri5 --stop 1 --rtol {}", "--rtol", "1", "oRooRR"},
        // a tiny atol is pure relative control: dopri5 cannot step from v = 0 (exit 3)
        {"dopri5 atol", ho + " -m dopri5 --stop 1 --atol {}", "--atol", "1", "fofRRR"},
        {"dopri5 output interval", ho + " -m dopri5 --stop 1 --step {}", "--step", "1", "RoRoRR"},
        {"dopri5 every step, stop", ho + " -m dopri5 --step 0 --stop {}", "--stop", "{}", "oRRRRR"},
        // CVODE refuses a stop time below its own resolution of t (exit 3, located)
        {"cvode every step, stop", ho + " -m cvode-bdf --step 0 --stop {}", "--stop", "{}",
         "fRRRRR"},
        {"galpha rho_inf", ho + " -m galpha --stop 1 --rho-inf {}", "--rho-inf", "1", "oRooRR"},
        // a tolerance below round-off: Newton's iteration cannot meet it (exit 3)
        {"rattle constraint tolerance",
         pendulum + " -m rattle --stop 1e-4 --step 1e-5 --constraint-tol {}", "--constraint-tol",
         "1e-4", "fofRRR"},
        {"hmm macro step", kapitza + " --step {}", "--step", "1", "RRRRRR"},
        {"hmm stop", kapitza + " --stop {}", "--stop", "{}", "RRRRRR"},
        {"hmm window", kapitza + " --filter exp --window {}", "--window", "1", "RRRRRR"},
        {"hmm macro time", kapitza + " --macro-time {}", "--macro-time", "1", "RRRRRR"},
        // a period of 1e300 is a whole number of the vibration's periods, and the micro step
        // it implies does not resolve them: located (exit 3)
        {"hmm period", kapitza + " --period {}", "--period", "1", "RfRRRR"},
        {"hmm micro steps per period", kapitza + " --micro-steps-per-period {}",
         "--micro-steps-per-period", "1", "RRRRRR"},
        {"strobo macro step", kapitza + " -m strobo --stop 0.1 --step {}", "--step", "0.1",
         "RoRRRR"},
        // the multiscale dopri5 macro needs rtol > 0: -0 is refused here, not by the method
        {"strobo dopri5 rtol", kapitza + " -m strobo --macro dopri5 --stop 0.1 --rtol {}", "--rtol",
         "0.1", "oRoRRR"},
        {"strobo order", kapitza + " -m strobo --stop 0.1 --order {}", "--order", "0.1", "RRRRRR"},
        // omega = 1e-300: a kernel window of 1e301 time units overflows the micro-run; 1e300:
        // a window of 1e-299 averages nothing, and the stiff spring's whole force is left to
        // the rk4 macro step, which does not resolve it (both exit 3)
        {"hmm-stiff omega", stiff + " -m hmm-stiff --stop 0.5 --omega {}", "--omega", "0.5",
         "ffRRRR"},
        {"hmm-stiff re-projection", stiff + " -m hmm-stiff --stop 0.5 --reproject-every {}",
         "--reproject-every", "0.5", "RRRoRR"},
        {"relaxed constraints", pendulum + " -m rk4 --stop 1e-4 --step 1e-6 --relax-constraints {}",
         "--relax-constraints", "1e-4", "RRRRRR"},
        // the model's own failures at those parameters are located (exit 3); -0 stops the
        // vibration, which HMM refuses naming it
        {"-p omega", kapitza + " -p omega={}", "vibration 'a'|-p omega", "1", "fofRRR"},
        {"-p k", ho + " -m verlet --stop 1 -p k={}", "-p k", "1", "ofooRR"},
    };
    const fs::path csv = fs::path(MDL_BINARY_DIR) / "tests" / "cli" / "ranges.csv";
    for (const Row& row : table) {
        REQUIRE(row.outcomes.size() == extremes.size());
        for (std::size_t i = 0; i < extremes.size(); ++i) {
            const std::string& value = extremes[i];
            fs::remove(csv);
            Result r = mdl("run " + with_value(row.arguments, value) + " -o " + csv.string());
            INFO(row.label << " = " << value << ":\n" << r.output);
            switch (row.outcomes[i]) {
            case 'o': {
                REQUIRE(r.status == 0);
                CsvNumbers out(csv);
                REQUIRE(out.rows.size() >= 2); // at least one step
                CHECK(out.rows.back()[0] ==
                      std::strtod(with_value(row.stop, value).c_str(), nullptr));
                CHECK(r.output.find(" 0 steps") == std::string::npos);
                CHECK(r.output.find(" 0 macro steps") == std::string::npos);
                break;
            }
            case 'R':
                CHECK(r.status == 2);
                CHECK(names_one_of(first_line(r.output), row.names));
                CHECK((r.output.rfind("mdl run: error: ", 0) == 0 ||
                       r.output.rfind("Could not convert: ", 0) == 0));
                break;
            case 'f':
                CHECK(r.status == 3);
                CHECK(r.output.rfind("mdl: error: ", 0) == 0);
                CHECK(first_line(r.output).find(" at t = ") != std::string::npos);
                CHECK(r.output.find('\n') == r.output.size() - 1); // one line
                break;
            default:
                FAIL("bad outcome letter in the table: " << row.outcomes[i]);
            }
        }
    }
}

TEST_CASE("a run whose step count is known only as it goes ends once it projects past 1e15") {
    // adaptive methods writing every step: dopri5 and CVODE to t = 1e14 (an oscillation of
    // period pi: some 1e15 steps) end after 1000 rows instead of running for days
    for (const char* method : {"dopri5", "cvode-bdf"}) {
        const fs::path csv = fs::path(MDL_BINARY_DIR) / "tests" / "cli" / "projection.csv";
        Result r = mdl("run " + model("harmonic_oscillator.mdl") + " -m " + method +
                       " --step 0 --stop 1e14 -o " + csv.string());
        INFO(r.output);
        CHECK(r.status == 3);
        CHECK(r.output.rfind(std::string("mdl: error: ") + method + ": too many steps at t = ",
                             0) == 0);
        CHECK(r.output.find("reaching t = 1e+14 would take") != std::string::npos);
        CHECK(CsvNumbers(csv).rows.size() == 1000);
    }
}

TEST_CASE("sweep grids and settings with extreme values are refused naming the option") {
    const std::string kapitza = model("kapitza.mdl");
    const fs::path dir = fs::path(MDL_BINARY_DIR) / "tests" / "cli" / "ranges_sweep";
    struct Case {
        std::string arguments, names;
    };
    for (const Case& c : std::vector<Case>{
             {"-p vmax=1:2:lin:1e300", "-p vmax=1:2:lin:1e300"},
             {"-p vmax=1:2:lin:0", "-p vmax=1:2:lin:0"},
             {"-p vmax=nan,1", "-p vmax=nan,1: 'nan' is not finite"},
             {"-p vmax=1:inf:lin:3", "is not finite"},
             {"-p vmax=1:2:lin:10000 -p l=1:2:lin:10000 -p g=1:2:lin:10000",
              "the grid would have more than"},
             {"-p vmax=1,2 --step 1e-300", "--step"},
             {"-p vmax=1,2 --stop 1e300", "--stop"},
             {"-p vmax=1,2 --rtol nan", "--rtol"},
             {"-p vmax=1,2 --window 1e-300", "--window"},
             {"-p vmax=1,2 --every 0", "--every"},
             {"-p vmax=1,2 -j 0", "--jobs"},
             {"-p vmax=1,2 -j 4e-320", "--jobs"},
             {"-p vmax=1,2 -j nan", "--jobs"},
         }) {
        Result r = mdl("sweep " + kapitza + " " + c.arguments + " -o " + dir.string());
        INFO(c.arguments << ":\n" << r.output);
        CHECK(r.status == 2);
        CHECK(first_line(r.output).find(c.names) != std::string::npos);
    }
}
