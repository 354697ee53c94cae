// The model's annotation(experiment(...)) settings as `mdl run` uses them: every key the checker
// accepts is used by every method it applies to (every, Interval, Tolerance), and
// docs/language.md lists exactly those keys.
#include "cli_test_support.hpp"

#include <catch2/catch.hpp>
#include <cstddef>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace cli_test;

namespace {

std::string temp_csv(const std::string& name) {
    return std::string(MDL_BINARY_DIR) + "/tests/cli/" + name + ".csv";
}

// models/<name> with `from` replaced by `to` in its text, written under the build tree.
std::string edited_model(const std::string& name, const std::string& from, const std::string& to,
                         const std::string& as) {
    std::string text = read_file(model(name));
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    const std::string path = std::string(MDL_BINARY_DIR) + "/tests/cli/" + as + ".mdl";
    std::ofstream(path) << text;
    return path;
}

std::vector<double> times(const CsvNumbers& csv) {
    std::vector<double> t;
    for (const auto& row : csv.rows) {
        t.push_back(row[0]);
    }
    return t;
}

} // namespace

TEST_CASE("every accepted experiment setting is used: every, Interval, Tolerance") {
    const std::string kapitza_step = "step = 1/80))";
    SECTION("every = 10 writes every 10th HMM macro step (it was accepted and ignored)") {
        const std::string m =
            edited_model("kapitza.mdl", kapitza_step, "step = 1/80, every = 10))", "every10");
        const std::string out = temp_csv("every10");
        Result r = mdl("run " + m + " -o " + out);
        INFO(r.output);
        REQUIRE(r.status == 0);
        CsvNumbers csv(out);
        REQUIRE(csv.rows.size() == 9); // t = 0, 1/8, ..., 1 of 80 macro steps
        CHECK(csv.rows[1][0] == Approx(0.125).epsilon(1e-12));
        CHECK(csv.rows.back()[0] == 1.0);
    }
    SECTION("Interval is the output spacing of a fixed-step method (it was ignored)") {
        // models/spring_chain.mdl: Interval = 0.01, galpha steps of 1e-3
        const std::string out = temp_csv("spring_chain_interval");
        Result r = mdl("run " + model("spring_chain.mdl") + " --stop 0.1 -o " + out);
        INFO(r.output);
        REQUIRE(r.status == 0);
        CsvNumbers csv(out);
        REQUIRE(csv.rows.size() == 11);
        for (std::size_t k = 0; k < csv.rows.size(); ++k) {
            CHECK(csv.rows[k][0] == Approx(0.01 * static_cast<double>(k)).margin(1e-12));
        }
        // HMM: Interval = 1/40 is every 2nd macro step of 1/80
        const std::string m = edited_model("kapitza.mdl", kapitza_step,
                                           "step = 1/80, Interval = 1/40))", "interval_hmm");
        Result hmm = mdl("run " + m + " -o " + temp_csv("interval_hmm"));
        INFO(hmm.output);
        REQUIRE(hmm.status == 0);
        CHECK(CsvNumbers(temp_csv("interval_hmm")).rows.size() == 41);
    }
    SECTION("Interval is the output interval of an adaptive macro (hmm-stiff with dopri5)") {
        // models/stiff_springs_ii.mdl: Interval = 0.25 (was: a row per accepted step)
        const std::string out = temp_csv("stiff_interval");
        Result r = mdl("run " + model("stiff_springs_ii.mdl") + " --stop 1 -o " + out);
        INFO(r.output);
        REQUIRE(r.status == 0);
        // the annotation fixes the macro tolerance: a warning naming the start's fast
        // oscillation (x1 = 1 + 20/w1: amplitude 0.04), which the averaged motion leaves out
        CHECK(r.output.find("warning: the error estimate") != std::string::npos);
        CHECK(r.output.find("the fast oscillation the start values carry") != std::string::npos);
        CHECK(times(CsvNumbers(out)) == std::vector<double>{0, 0.25, 0.5, 0.75, 1});
    }
    SECTION("an Interval that is not a whole number of steps is refused; --every overrides it") {
        Result r = mdl("run " + model("harmonic_oscillator.mdl") + " --step 3e-3 -o " +
                       temp_csv("interval_refused"));
        CHECK(r.status == 2);
        CHECK(r.output ==
              "mdl run: error: annotation(experiment(Interval = 0.01)): the output interval is "
              "not a whole number of steps of 0.003 (3.3333333333333335 steps); choose a --step "
              "that divides it, or --every N\n");
        const std::string out = temp_csv("every_overrides");
        Result every = mdl("run " + model("harmonic_oscillator.mdl") +
                           " --step 3e-3 --stop 0.3 --every 1 -o " + out);
        REQUIRE(every.status == 0);
        CHECK(CsvNumbers(out).rows.size() == 101);
        const std::string both = edited_model("kapitza.mdl", kapitza_step,
                                              "step = 1/80, every = 2, Interval = 1/40))", "both");
        Result twice = mdl("run " + both + " -o " + temp_csv("both"));
        CHECK(twice.status == 2);
        CHECK(twice.output.find("give one output spacing, not both") != std::string::npos);
    }
    SECTION("Tolerance reaches the dopri5 macro of strobo (it reached only classical methods)") {
        std::vector<unsigned long> macro_steps;
        for (const char* tolerance : {"1e-3", "1e-9"}) {
            const std::string m =
                edited_model("kapitza.mdl", "method = \"hmm\", step = 1/80))",
                             std::string("method = \"strobo\", macro = \"dopri5\", Tolerance = ") +
                                 tolerance + "))",
                             "tolerance");
            Result r = mdl("run " + m + " --stop 0.2 -o " + temp_csv("tolerance"));
            INFO(r.output);
            REQUIRE(r.status == 0);
            const std::size_t end = r.output.find(" macro steps");
            REQUIRE(end != std::string::npos);
            const std::size_t begin = r.output.rfind(' ', end - 1) + 1;
            macro_steps.push_back(std::stoul(r.output.substr(begin, end - begin)));
        }
        CHECK(macro_steps[1] > 2 * macro_steps[0]); // (before: 16 steps for both)
    }
}

TEST_CASE("docs/language.md lists experiment keys the checker accepts, each without a warning") {
    // the keys of section 9's table: the first column's `name`s
    const std::string docs = read_file(std::string(MDL_SOURCE_DIR) + "/docs/language.md");
    const std::size_t begin = docs.find("| Key | Value | Meaning | Flag |");
    REQUIRE(begin != std::string::npos);
    const std::size_t end = docs.find("\n\n", begin);
    std::vector<std::pair<std::string, bool>> keys; // name, string-valued
    std::stringstream table(docs.substr(begin, end - begin));
    for (std::string line; std::getline(table, line);) {
        const std::size_t value = line.find(" | ") + 3;
        const bool text = line.compare(value, 6, "string") == 0;
        for (std::size_t at = line.find('`'); at != std::string::npos && at < line.find(" | ");
             at = line.find('`', line.find('`', at + 1) + 1)) {
            keys.emplace_back(line.substr(at + 1, line.find('`', at + 1) - at - 1), text);
        }
    }
    REQUIRE(keys.size() == 19); // 14 numbers and 5 strings, as compiler/check/checker.cpp
    const std::map<std::string, std::string> text_values = {{"method", "\"verlet\""},
                                                            {"algorithm", "\"async\""},
                                                            {"filter", "\"simple\""},
                                                            {"macro", "\"rk4\""},
                                                            {"micro", "\"rk4\""}};
    for (const auto& [key, text] : keys) {
        INFO(key);
        const std::string value = text ? text_values.at(key) : "1";
        const std::string m =
            edited_model("kapitza.mdl",
                         "annotation(experiment(StartTime = 0, StopTime = 1, method = \"hmm\", "
                         "step = 1/80));",
                         "annotation(experiment(" + key + " = " + value + "));", "key");
        Result r = mdl("check " + m);
        CHECK(r.status == 0);
        CHECK(r.output.find("warning") == std::string::npos);
    }
    // and a key the docs do not list is warned about (the check above can fail)
    Result unknown = mdl("check " + edited_model("kapitza.mdl", "step = 1/80))",
                                                 "step = 1/80, period = 1))", "key"));
    CHECK(unknown.output.find("warning: ignoring unknown experiment setting 'period'") !=
          std::string::npos);
}
