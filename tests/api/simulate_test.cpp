// Front-door consistency (not correctness evidence: `mdl run` calls mdl::simulate): mdl::simulate
// (mdl/simulate.hpp) against `mdl run`: the same settings give the same numbers to the last bit
// (the CSV holds the shortest text that reads back to the same double, read here with
// std::from_chars), the same messages for bad settings and numerical failures, and an observer that
// stops a run where it asks.
#include "mdl/compiled_model.hpp"
#include "mdl/simulate.hpp"

#include <catch2/catch.hpp>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string model_path(const std::string& file) {
    return std::string(MDL_SOURCE_DIR) + "/models/" + file;
}

struct CliRun {
    std::vector<std::string> columns;
    std::vector<std::vector<double>> rows;
    std::string errors; // standard error
    int status = 0;
};

std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> fields;
    std::stringstream in(line);
    for (std::string field; std::getline(in, field, ',');) {
        fields.push_back(field);
    }
    return fields;
}

// `mdl run MODEL ARGS -q` with its CSV read back exactly.
CliRun run_cli(const std::string& model, const std::string& args) {
    const auto dir = std::filesystem::temp_directory_path();
    const std::string csv = (dir / ("mdl-simulate-test-" + std::to_string(::getpid()) + ".csv"));
    const std::string err = csv + ".err";
    const std::string command = std::string(MDL_BINARY_DIR) + "/cli/mdl run " + model_path(model) +
                                " " + args + " -q -o " + csv + " 2>" + err;
    CliRun run;
    run.status = WEXITSTATUS(std::system(command.c_str()));
    std::ifstream errors(err);
    run.errors.assign(std::istreambuf_iterator<char>(errors), {});
    std::ifstream in(csv);
    std::string line;
    if (std::getline(in, line)) {
        run.columns = split(line);
    }
    while (std::getline(in, line)) {
        std::vector<double> row;
        for (const std::string& field : split(line)) {
            double value = 0;
            std::from_chars(field.data(), field.data() + field.size(), value);
            row.push_back(value);
        }
        run.rows.push_back(row);
    }
    std::filesystem::remove(csv);
    std::filesystem::remove(err);
    return run;
}

// The API's rows in the CSV's column order.
std::vector<std::vector<double>> rows_of(const mdl::SimulationResult& r) {
    const auto& l = r.layout;
    std::vector<std::vector<double>> rows(r.rows());
    for (std::size_t i = 0; i < r.rows(); ++i) {
        auto& row = rows[i];
        row.push_back(r.t[i]);
        const auto append = [&](const std::vector<double>& m, std::size_t width) {
            for (std::size_t j = 0; j < width; ++j) {
                row.push_back(m[i * width + j]);
            }
        };
        append(r.positions, l.positions);
        append(r.velocities, l.positions);
        append(r.states, l.states);
        if (l.residuals) {
            append(r.residuals, l.constraints);
        }
        if (l.multipliers) {
            append(r.multipliers, l.constraints);
        }
        if (l.energy) {
            row.push_back(r.energy[i]);
        }
    }
    return rows;
}

// Equal bit for bit (also the sign of a zero).
bool identical(const std::vector<std::vector<double>>& a,
               const std::vector<std::vector<double>>& b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].size() != b[i].size()) {
            return false;
        }
        for (std::size_t j = 0; j < a[i].size(); ++j) {
            if (std::bit_cast<std::uint64_t>(a[i][j]) != std::bit_cast<std::uint64_t>(b[i][j])) {
                return false;
            }
        }
    }
    return true;
}

void check_same_as_cli(const std::string& model, const std::string& args,
                       const mdl::SimulationSettings& settings) {
    INFO("mdl run " << model << " " << args);
    const CliRun cli = run_cli(model, args);
    REQUIRE(cli.status == 0);
    const mdl::CompiledModel compiled = mdl::compile_file(model_path(model));
    const mdl::SimulationResult r = mdl::simulate(compiled, settings);
    CHECK(r.layout.columns == cli.columns);
    CHECK(r.rows() > 2);
    CHECK(r.statistics.rows == r.rows());
    CHECK(identical(rows_of(r), cli.rows));
}

} // namespace

TEST_CASE(
    "front-door consistency: simulate's HMM on the Kapitza pendulum equals mdl run bit for bit",
    "[simulate]") {
    mdl::SimulationSettings s;
    s.method = "hmm";
    s.stop = 1.0;
    s.step = 1.0 / 80;
    check_same_as_cli("kapitza.mdl", "--method hmm --stop 1 --step 0.0125", s);
}

TEST_CASE("front-door consistency: simulate's classical methods with the model's annotation equal "
          "mdl run",
          "[simulate]") {
    mdl::SimulationSettings verlet; // pendulum.mdl: verlet, step 1e-3, Interval 0.01
    verlet.stop = 2.0;
    check_same_as_cli("pendulum.mdl", "--stop 2", verlet);
    mdl::SimulationSettings dopri5;
    dopri5.method = "dopri5";
    dopri5.stop = 2.0;
    dopri5.rtol = 1e-8;
    dopri5.step = 0.05;
    check_same_as_cli("pendulum.mdl", "--method dopri5 --stop 2 --rtol 1e-8 --step 0.05", dopri5);
}

TEST_CASE(
    "front-door consistency: simulate's constrained RATTLE (residuals, multipliers) equals mdl run",
    "[simulate]") {
    mdl::SimulationSettings s; // two_pendulums.mdl: rattle, step 1e-4
    s.stop = 0.05;
    s.every = 10;
    const mdl::CompiledModel compiled = mdl::compile_file(model_path("two_pendulums.mdl"));
    REQUIRE(compiled.sizes().constraints > 0);
    check_same_as_cli("two_pendulums.mdl", "--stop 0.05 --every 10", s);
}

TEST_CASE("front-door consistency: simulate's strobo and hmm-stiff equal mdl run", "[simulate]") {
    mdl::SimulationSettings strobo;
    strobo.method = "strobo";
    strobo.stop = 0.5;
    strobo.order = 2;
    check_same_as_cli("kapitza.mdl", "--method strobo --stop 0.5 --order 2", strobo);
    mdl::SimulationSettings stiff; // stiff_springs.mdl: hmm-stiff, rk4 macro, H = 1/32
    stiff.stop = 0.5;
    check_same_as_cli("stiff_springs.mdl", "--stop 0.5", stiff);
}

TEST_CASE("simulate: bad settings give mdl run's message", "[simulate]") {
    const mdl::CompiledModel compiled = mdl::compile_file(model_path("kapitza.mdl"));
    const auto message_of = [&](const mdl::SimulationSettings& s) {
        try {
            mdl::simulate(compiled, s);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    mdl::SimulationSettings step;
    step.step = 0.3; // not a whole number of macro steps in [0, 1]
    CliRun cli = run_cli("kapitza.mdl", "--step 0.3");
    CHECK(cli.status == 2);
    CHECK(cli.errors == "mdl run: error: " + message_of(step) + "\n");
    mdl::SimulationSettings filter;
    filter.filter = "gauss";
    cli = run_cli("kapitza.mdl", "--filter gauss");
    CHECK(cli.status == 2);
    CHECK(cli.errors == "mdl run: error: " + message_of(filter) + "\n");
    mdl::SimulationSettings rtol;
    rtol.rtol = 2.0;
    CHECK(message_of(rtol) == "--rtol: the relative tolerance must lie in [0, 1), got 2");
}

TEST_CASE("simulate: a numerical failure names time, variable and method as mdl run does",
          "[simulate]") {
    // Verlet on the oscillator (omega = 1) with h = 3 > 2/omega: |q| grows by ~7 per step
    // and overflows to infinity.
    const mdl::CompiledModel compiled = mdl::compile_file(model_path("harmonic_oscillator.mdl"));
    mdl::SimulationSettings s;
    s.method = "verlet";
    s.step = 3.0;
    s.stop = 3000.0;
    const CliRun cli = run_cli("harmonic_oscillator.mdl", "--method verlet --step 3 --stop 3000");
    CHECK(cli.status == 3);
    try {
        mdl::simulate(compiled, s);
        FAIL("no numerical failure");
    } catch (const mdl::NumericalFailure& e) {
        CHECK(cli.errors == "mdl: error: " + std::string(e.what()) + "\n");
        CHECK(e.method() == "verlet");
        CHECK(e.time() > 0.0);
        CHECK(e.time() < 3000.0);
        CHECK(!e.where().empty());
        CHECK(e.kind() == "non-finite value");
    }
}

TEST_CASE("simulate: the streaming form hands each row over and stops where asked", "[simulate]") {
    const mdl::CompiledModel compiled = mdl::compile_file(model_path("pendulum.mdl"));
    mdl::SimulationSettings s;
    s.stop = 1.0;
    s.every = 1;
    std::vector<double> times;
    const mdl::SimulationStatistics stats =
        mdl::simulate(compiled, s, [&](const mdl::OutputRow& row) {
            times.push_back(row.t);
            CHECK(row.positions.size() == 1);
            CHECK(row.energy.has_value());
            return times.size() < 5;
        });
    CHECK(stats.stopped);
    REQUIRE(times.size() == 5);
    CHECK(times.back() == Approx(4e-3).epsilon(1e-12));
    CHECK(stats.rows == 5);
    // a step observer stops too: the state it stopped at is the last row (also one --every
    // skips)
    s.every = 100;
    std::size_t states = 0, rows = 0;
    double last = 0.0;
    const mdl::SimulationStatistics by_steps = mdl::simulate(
        compiled, s,
        [&](const mdl::OutputRow& row) {
            ++rows;
            last = row.t;
            return true;
        },
        [&](double) { return ++states < 150; });
    CHECK(by_steps.stopped);
    CHECK(rows == 3); // the states 0 and 100, then 149 where it stopped
    CHECK(last == Approx(0.149).epsilon(1e-12));
}

TEST_CASE("simulate: a result's columns by their CSV names", "[simulate]") {
    const mdl::CompiledModel compiled = mdl::compile_file(model_path("pendulum.mdl"));
    mdl::SimulationSettings s;
    s.stop = 0.1;
    const mdl::SimulationResult r = mdl::simulate(compiled, s);
    CHECK(r.column("time") == r.t);
    CHECK(r.column("phi") == r.positions);
    CHECK(r.column("energy") == r.energy);
    CHECK_THROWS_WITH(r.column("psi"), Catch::Contains("no column 'psi'"));
}

// The forecast of what a run writes (OutputForecast), against the rows the run then writes.
TEST_CASE("forecast_output counts the rows a run writes before it runs") {
    const mdl::CompiledModel oscillator = mdl::compile_file(model_path("harmonic_oscillator.mdl"));
    const mdl::CompiledModel kapitza = mdl::compile_file(model_path("kapitza.mdl"));
    struct Case {
        const mdl::CompiledModel* model;
        std::string method;
        double stop, step;
        std::optional<std::size_t> every;
    };
    // the oscillator's annotation asks for Interval = 0.01: every 10th step of 1e-3
    const std::vector<Case> cases = {{&oscillator, "verlet", 1.0, 1e-3, std::nullopt},
                                     {&oscillator, "verlet", 1.0, 1e-3, 7},
                                     {&oscillator, "rk4", 0.95, 0.1, std::nullopt},
                                     {&oscillator, "rk4", 0.95, 0.1, 3},
                                     {&oscillator, "dopri5", 2.0, 0.01, 4},
                                     {&kapitza, "hmm", 1.0, 1.0 / 80, 3}};
    for (const Case& c : cases) {
        mdl::SimulationSettings s;
        s.method = c.method;
        s.stop = c.stop;
        s.step = c.step;
        s.every = c.every;
        INFO(c.method << " --stop " << c.stop << " --step " << c.step << " --every "
                      << c.every.value_or(0));
        const std::optional<mdl::OutputForecast> forecast = mdl::forecast_output(*c.model, s);
        REQUIRE(forecast);
        CHECK_FALSE(forecast->projected);
        CHECK(forecast->columns == mdl::output_layout(*c.model).columns.size());
        std::size_t rows = 0;
        std::vector<mdl::OutputForecast> told;
        mdl::simulate(
            *c.model, s,
            [&](const mdl::OutputRow&) {
                ++rows;
                return true;
            },
            {}, [&](const mdl::OutputForecast& f) { told.push_back(f); });
        CHECK(forecast->rows == static_cast<double>(rows));
        REQUIRE(told.size() == 1); // before the run, once
        CHECK(told[0].rows == forecast->rows);
        CHECK(forecast->max_csv_bytes() ==
              forecast->rows * static_cast<double>(forecast->columns) * 25.0);
    }
}

TEST_CASE("an adaptive run writing every step has its output projected after 1000 states") {
    const mdl::CompiledModel model = mdl::compile_file(model_path("harmonic_oscillator.mdl"));
    mdl::SimulationSettings s;
    s.method = "dopri5";
    s.stop = 200.0;
    s.step = 0.0; // every step
    s.rtol = 1e-10;
    s.atol = 1e-12;
    CHECK_FALSE(mdl::forecast_output(model, s));
    std::size_t rows = 0;
    std::vector<mdl::OutputForecast> told;
    mdl::simulate(
        model, s,
        [&](const mdl::OutputRow&) {
            ++rows;
            return true;
        },
        {}, [&](const mdl::OutputForecast& f) { told.push_back(f); });
    REQUIRE(rows > 1000);
    REQUIRE_FALSE(told.empty());
    CHECK(told[0].projected);
    CHECK(told[0].states == 1000);
    // the oscillator's steps are nearly uniform: the projection is the count, to a few percent
    const double ratio = told[0].rows / static_cast<double>(rows);
    CHECK(ratio > 0.9);
    CHECK(ratio < 1.1);
}

// An independent check: the rough-start slider-crank (models/slider_crank.mdl, only the crank
// angle fixed) starts on its loop, tells the changes through statistics.notes (the library
// prints nothing), and follows the closed form x_s = a cos(theta) + sqrt(b^2 - a^2 sin(theta)^2)
// to 1e-8 (RATTLE keeps g(q) = 0 to its Newton tolerance at every step).
TEST_CASE("simulate: the rough-start slider-crank's changed start values come back as notes and "
          "its slider follows the closed form",
          "[simulate]") {
    const mdl::CompiledModel compiled = mdl::compile_file(model_path("slider_crank.mdl"));
    mdl::SimulationSettings s; // the annotation's rattle, step 1e-4
    s.stop = 0.2;
    s.every = 100;
    const mdl::SimulationResult r = mdl::simulate(compiled, s);
    REQUIRE(!r.statistics.notes.empty());
    CHECK(r.statistics.notes[0].rfind("consistent start: changed '", 0) == 0);
    bool rod_x = false;
    for (const std::string& note : r.statistics.notes) {
        rod_x =
            rod_x || note.rfind("consistent start: changed 'rod.x' from 0.25 to 0.2448", 0) == 0;
    }
    CHECK(rod_x);
    const double a = 0.1, b = 0.3;
    const auto theta = r.column("crank.phi"), slider = r.column("slider.x");
    REQUIRE(theta.size() == 21);
    CHECK(theta[0] == 0.3); // fixed = true: kept
    for (std::size_t i = 0; i < theta.size(); ++i) {
        const double sn = std::sin(theta[i]);
        REQUIRE(slider[i] ==
                Approx(a * std::cos(theta[i]) + std::sqrt(b * b - a * a * sn * sn)).margin(1e-8));
    }
}
