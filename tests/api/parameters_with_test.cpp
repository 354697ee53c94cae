// CompiledModel::parameters_with and with_parameters: per-run parameters without recompiling
// and without touching the shared model, from any number of threads (mdl sweep).
#include "mdl/compiled_model.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

namespace {

// omega and the start depend on eps; the force is -omega^2 q + c cos(theta).
const char* source = R"(model Dependent
  parameter Real eps = 0.01;
  parameter Real omega = 1/eps;
  parameter Real c = 2;
  vibration a(theta = omega*time) = c*cos(theta);
  coordinate q(start = 3*eps, vstart = 0);
equation
  der(der(q)) = -omega^2*q + a;
  annotation(experiment(StopTime = 1, step = 0.1*eps));
end Dependent;)";

double force(const mdl::CompiledModel& model, double q, double theta) {
    double v = 0, f = 0;
    model.force()(model.args(0.0, &q, &v, nullptr, &theta), &f);
    return f;
}

} // namespace

TEST_CASE("parameters_with recomputes dependents and leaves the model unchanged") {
    mdl::CompiledModel model = mdl::compile(source, "dependent.mdl");
    const std::vector<mdl::ParameterValue> overrides = {{"eps", 0.002}, {"c", 5}};
    std::vector<double> p = model.parameters_with(overrides);
    REQUIRE(model.parameter_names() == std::vector<std::string>{"eps", "omega", "c"});
    CHECK(p == std::vector<double>{0.002, 500, 5});
    CHECK(model.parameter("eps") == 0.01); // unchanged
    CHECK(model.parameter("omega") == 100);
    // a parameter set explicitly is not recomputed, as with set_parameter
    const std::vector<mdl::ParameterValue> fixed_omega = {{"omega", 7}, {"eps", 0.5}};
    CHECK(model.parameters_with(fixed_omega) == std::vector<double>{0.5, 7, 2});
    model.set_parameter("omega", 7);
    const std::vector<mdl::ParameterValue> eps_only = {{"eps", 0.5}};
    CHECK(model.parameters_with(eps_only)[1] == 7);
}

TEST_CASE("parameters_with rejects unknown names and non-finite results like set_parameter") {
    mdl::CompiledModel model = mdl::compile(source, "dependent.mdl");
    const std::vector<mdl::ParameterValue> typo = {{"c", 1}, {"epss", 1}};
    CHECK_THROWS_WITH(model.parameters_with(typo),
                      "model 'Dependent' has no parameter 'epss'; did you mean 'eps'?");
    const std::vector<mdl::ParameterValue> zero = {{"eps", 0}};
    CHECK_THROWS_WITH(model.with_parameters(zero),
                      "setting 'eps' = 0 makes parameter 'omega' non-finite (inf)");
    CHECK(model.parameter("omega") == 100);
}

TEST_CASE("with_parameters shares the kernels and evaluates everything with its own values") {
    auto model = std::make_unique<mdl::CompiledModel>(mdl::compile(source, "dependent.mdl"));
    const std::vector<mdl::ParameterValue> overrides = {{"eps", 0.05}};
    mdl::CompiledModel run = model->with_parameters(overrides);
    CHECK(run.kernels().force == model->kernels().force); // the same machine code
    CHECK(run.parameter("omega") == 20);
    CHECK(run.start_positions() == std::vector<double>{3 * 0.05});
    CHECK(run.number_setting("step", 0) == Approx(0.005));
    CHECK(run.phase_rates() == std::vector<double>{20});
    CHECK(run.force_even_in_phase(0));
    CHECK(model->parameter("omega") == 100);
    CHECK(model->start_positions() == std::vector<double>{0.03});
    // the derived model owns its share of the compilation
    model.reset();
    CHECK(force(run, 0.5, 0.0) == -400 * 0.5 + 2);
    run.set_parameter("c", 1); // its own parameters: set freely
    CHECK(force(run, 0.5, std::acos(-1.0)) == Approx(-400 * 0.5 - 1));
}

TEST_CASE("threads derive models from one shared model concurrently") {
    const mdl::CompiledModel model = mdl::compile(source, "dependent.mdl");
    constexpr int threads = 8, rounds = 200;
    std::vector<double> sums(threads);
    std::vector<std::thread> pool;
    for (int k = 0; k < threads; ++k) {
        pool.emplace_back([&, k] {
            double sum = 0;
            for (int i = 0; i < rounds; ++i) {
                // eps = 2^-k: omega = 2^k exactly
                const std::vector<mdl::ParameterValue> overrides = {{"eps", std::ldexp(1.0, -k)},
                                                                    {"c", double(i)}};
                mdl::CompiledModel run = model.with_parameters(overrides);
                sum += force(run, 1.0, 0.0) + (run.force_even_in_phase(0) ? 0 : 1e9);
            }
            sums[static_cast<std::size_t>(k)] = sum;
        });
    }
    for (auto& t : pool) {
        t.join();
    }
    for (int k = 0; k < threads; ++k) {
        // the sum over i of -omega^2 + c = -4^k + i, exactly representable
        double expected = -double(rounds) * std::ldexp(1.0, 2 * k) + rounds * (rounds - 1) / 2.0;
        CHECK(sums[static_cast<std::size_t>(k)] == expected);
    }
    CHECK(model.parameter("eps") == 0.01);
}
