#include "runtime/integrate.hpp"
#include "runtime/integrators/rattle.hpp"
#include "runtime/integrators/verlet.hpp"
#include "runtime/output/csv_writer.hpp"

#include "../test_models.hpp"

#include <catch2/catch.hpp>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace mdl::runtime;
using namespace mdl::runtime::test;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
    }
    return lines;
}

// The numbers of a data line; fails the test if a field is not a complete number.
std::vector<double> fields_of(const std::string& line) {
    std::vector<double> values;
    std::size_t start = 0;
    while (start <= line.size()) {
        const std::size_t end = std::min(line.find(',', start), line.size());
        double value = 0.0;
        const auto result = std::from_chars(line.data() + start, line.data() + end, value);
        CHECK(result.ptr == line.data() + end);
        CHECK(result.ec == std::errc());
        values.push_back(value);
        start = end + 1;
    }
    return values;
}

} // namespace

TEST_CASE("the CSV header names time, positions, velocities, residuals, multipliers, energy") {
    const Model model = double_pendulum(1.0, 0.5, 1.0, 0.7, 9.81);
    std::ostringstream out;
    CsvWriter writer(out, model);
    CHECK(out.str() == "time,b1.x,b1.y,b2.x,b2.y,der(b1.x),der(b1.y),der(b2.x),der(b2.y),"
                       "residual(rod1),residual(rod2),lambda(rod1),lambda(rod2),energy\n");
    const Model filtered = oscillator_with_filter(1.0);
    std::ostringstream out2;
    CsvWriter plain(out2, filtered);
    CHECK(out2.str() == "time,q,der(q),x\n"); // not conservative: no energy column
    std::ostringstream out3;
    CHECK_THROWS_AS(CsvWriter(out3, filtered, CsvOptions{1, {}, {}, true}), std::invalid_argument);
}

TEST_CASE("CSV rows hold the state, the constraint residuals and the energy, round-trip exact") {
    const Model model = double_pendulum(1.0, 0.5, 1.0, 0.7, 9.81);
    std::ostringstream out;
    CsvWriter writer(out, model);
    Rattle rattle(model);
    State s = double_pendulum_state(model, 0.5, 0.2, 0.0, 0.0);
    State last;
    integrate_fixed(rattle, s, 0.1, 0.01, [&](const State& x) {
        writer(x);
        last = x;
    });
    const auto lines = lines_of(out.str());
    REQUIRE(lines.size() == 12); // header + t = 0, 0.01, ..., 0.1
    const auto values = fields_of(lines.back());
    REQUIRE(values.size() == 14);
    CHECK(values[0] == last.t);
    CHECK(values[3] == last.q[2]); // shortest round-trip text: exact
    CHECK(values[8] == last.v[3]);
    Vector g(2);
    model.constraint(last.q, g);
    CHECK(values[9] == g[0]);
    CHECK(values[11] == last.lambda[0]);
    CHECK(values[13] == model.energy(last.t, last.q, last.v, Vector()));
}

TEST_CASE("CSV decimation writes every N-th state and always the last one") {
    const Model model = harmonic_oscillator();
    std::ostringstream out;
    CsvWriter writer(out, model, CsvOptions{4});
    VelocityVerlet verlet(model);
    State s = model.zero_state();
    s.q[0] = 1.0;
    integrate_fixed(verlet, s, 1.0, 0.1, writer); // states 0..10: rows 0, 4, 8 and 10
    const auto lines = lines_of(out.str());
    REQUIRE(lines.size() == 5);
    CHECK(fields_of(lines[1])[0] == 0.0);
    CHECK(fields_of(lines[2])[0] == Approx(0.4));
    CHECK(fields_of(lines[3])[0] == Approx(0.8));
    CHECK(fields_of(lines[4])[0] == Approx(1.0));
    CHECK(writer.rows() == 4);
}

TEST_CASE("a CSV file written up to a numerical failure stays valid") {
    // The sqrt model fails just after t = pi/2; the file must end with the last good state
    // as a complete line, every line with the header's number of fields.
    const auto path = std::filesystem::temp_directory_path() /
                      ("mdl_csv_failure_" + std::to_string(::getpid()) + ".csv");
    const Model model = square_root_of_cosine();
    double failure_time = 0.0;
    {
        std::ofstream file(path);
        CsvWriter writer(file, model);
        VelocityVerlet verlet(model);
        State s = model.zero_state();
        s.q[0] = 1.0;
        try {
            integrate_fixed(verlet, s, 3.0, 0.01, writer);
            FAIL("no failure");
        } catch (const NumericalFailure& e) {
            failure_time = e.time();
        }
        // read the file while the writer and stream are still open: flushed line by line
        std::ifstream in(path);
        std::stringstream text;
        text << in.rdbuf();
        CHECK(text.str().back() == '\n');
        const auto lines = lines_of(text.str());
        CHECK(lines.front() == "time,q1,q2,der(q1),der(q2)");
        CHECK(lines.size() == 159); // header + t = 0, ..., 1.57
        for (std::size_t i = 1; i < lines.size(); ++i) {
            const auto values = fields_of(lines[i]);
            CHECK(values.size() == 5);
            for (double v : values) {
                CHECK(std::isfinite(v));
            }
        }
        CHECK(fields_of(lines.back())[0] == Approx(failure_time - 0.01));
    }
    std::filesystem::remove(path);
}

TEST_CASE("csv_field quotes as RFC 4180 does") {
    CHECK(mdl::runtime::csv_field("der(q)") == "der(q)");
    CHECK(mdl::runtime::csv_field("a,b") == "\"a,b\"");
    CHECK(mdl::runtime::csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
    CHECK(mdl::runtime::csv_field("two\nlines") == "\"two\nlines\"");
    CHECK(mdl::runtime::csv_field("cr\r") == "\"cr\r\"");
}
