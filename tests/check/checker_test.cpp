#include "check/checker.hpp"
#include "check/evaluate.hpp"
#include "check/summary.hpp"
#include "check/vibration_periodicity.hpp"
#include "parse/parser.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <memory>

using namespace mdl;
using Catch::Detail::Approx;

namespace {

struct Checked {
    source::SourceFile file;
    source::Diagnostics diagnostics;
    std::optional<check::CheckedModel> model;

    explicit Checked(std::string text) : file("test.mdl", std::move(text)), diagnostics(file) {
        if (auto ast = parse::parse_model(file, diagnostics)) {
            model = check::check_model(*ast, diagnostics);
        }
    }
    double value(const check::ExprPtr& e) const {
        auto p = model->default_parameters();
        return check::evaluate(*e, check::Values(p));
    }
};

} // namespace

TEST_CASE("the double pendulum of LANGUAGE.md: bodies, masses, starts, residuals, potential") {
    Checked c(R"(model DoublePendulum
  parameter Real m1 = 0.01, m2 = 0.005, l1 = 0.2, l2 = 0.1, g = 9.8, vmax = 4;
  parameter Real omega = 1e4;
  vibration a(theta = omega*time) = vmax*omega*cos(theta);
  body b1(m = m1, x(start = l1*sin(0.5)), y(start = l1*cos(0.5)));
  body b2(m = m2, x(start = l1*sin(0.5)), y(start = l1*cos(0.5) + l2));
  potential U = (m1*b1.y + m2*b2.y)*(g + a);
  constraint rod1: b1.x^2 + b1.y^2 = l1^2;
  constraint rod2: (b2.x - b1.x)^2 + (b2.y - b1.y)^2 = l2^2;
end DoublePendulum;)");
    INFO(c.diagnostics.render());
    REQUIRE(c.model);
    const auto& m = *c.model;
    REQUIRE(m.positions.size() == 4);
    CHECK(m.positions[0].name == "b1.x");
    CHECK(m.positions[3].name == "b2.y");
    CHECK(m.positions[3].velocity_name == "b2.vy");
    CHECK(c.value(m.positions[1].mass) == 0.01);
    CHECK(c.value(m.positions[2].mass) == 0.005);
    CHECK(c.value(m.positions[3].start) == Approx(0.2 * std::cos(0.5) + 0.1));
    CHECK(c.value(m.positions[0].velocity_start) == 0);
    REQUIRE(m.constraints.size() == 2);
    CHECK(check::to_source(*m.constraints[1].residual, m) ==
          "(b2.x - b1.x)^2 + (b2.y - b1.y)^2 - l2^2");
    // The residual at the start is zero: the initial positions satisfy both rods.
    std::vector<double> q;
    for (const auto& p : m.positions) {
        q.push_back(c.value(p.start));
    }
    auto params = m.default_parameters();
    check::Values at_start(params);
    at_start.positions = q;
    CHECK(check::evaluate(*m.constraints[0].residual, at_start) == Approx(0).margin(1e-15));
    CHECK(check::evaluate(*m.constraints[1].residual, at_start) == Approx(0).margin(1e-15));
    REQUIRE(m.vibrations.size() == 1);
    CHECK(m.vibrations[0].omega == 1e4);
    REQUIRE(m.fast_scales.size() == 1);
    CHECK(m.fast_scales[0].source == "vibration a");
    // The vibration's value at time t is vmax*omega*cos(omega t).
    at_start.model = &m;
    at_start.time = 0.3e-4;
    check::Expr ref;
    ref.kind = check::Expr::Kind::vibration;
    ref.index = 0;
    CHECK(check::evaluate(ref, at_start) == Approx(4 * 1e4 * std::cos(1e4 * 0.3e-4)));
}

TEST_CASE("parameters are evaluated in dependency order whatever their textual order") {
    Checked c("model P\n parameter Real k = w^2, w = 2*pi*f, f = 50;\n end P;");
    INFO(c.diagnostics.render());
    REQUIRE(c.model);
    const auto& m = *c.model;
    CHECK(m.parameter_order == std::vector<std::uint32_t>{2, 1, 0});
    CHECK(m.parameters[0].default_value == Approx(std::pow(2 * M_PI * 50, 2)));
}

TEST_CASE("a fast spring's frequency is sqrt(k/m) with the lighter end, or as stated") {
    Checked c(R"(model S
  parameter Real w2 = 300;
  anchor O(x = 0, y = 0);
  body b1(m = 4, x(start = 1), y(start = 0));
  body b2(m = 1, x(start = 2), y(start = 0));
  spring s1(O, b1, k = 1, length = 1) fast;
  spring s2(b1, b2, k = w2^2, length = 1) fast;
  spring s3(b1, b2, k = 1) fast(omega = 7);
end S;)");
    INFO(c.diagnostics.render());
    REQUIRE(c.model);
    const auto& f = c.model->fast_scales;
    REQUIRE(f.size() == 3);
    CHECK(f[0].omega == Approx(0.5)); // sqrt(1/4): the anchor has no mass
    CHECK(f[1].omega == Approx(300));
    CHECK(f[2].omega == 7);
    CHECK(c.value(c.model->springs[2].rest_length) == 0);
}

TEST_CASE(
    "an equation's factor is the coordinate's mass; elements may act on massive coordinates") {
    Checked c(R"(model E
  parameter Real M = 3, k = 2;
  coordinate q(start = 1, vstart = -1);
  coordinate r(m = M);
  Real x(start = 5);
  force f(q) = -0.1*der(q);
  potential U = k/2*r^2;
equation
  M*der(der(q)) = -k*q;
  der(x) = -x + q;
end E;)");
    INFO(c.diagnostics.render());
    REQUIRE(c.model);
    const auto& m = *c.model;
    CHECK(c.value(m.positions[0].mass) == 3);
    CHECK(c.value(m.positions[0].velocity_start) == -1);
    CHECK(c.value(m.positions[1].mass) == 3);
    REQUIRE(m.equations.size() == 1);
    CHECK(check::to_source(*m.equations[0].rhs, m) == "-k*q");
    REQUIRE(m.forces.size() == 1);
    CHECK(check::to_source(*m.forces[0].components[0], m) == "-0.1*der(q)");
    REQUIRE(m.states.size() == 1);
    CHECK(check::to_source(*m.states[0].rate, m) == "-x + q");
    CHECK(c.value(m.states[0].start) == 5);
}

TEST_CASE("a force on a body has one component per body axis; anchors default to 0") {
    Checked c(R"(model F
  anchor P(y = 2);
  body b(m = 1, x(start = 0), z(start = 1));
  force push(b) = {1, -time};
  spring s(P, b, k = 4);
  gravity G(z = -9.81);
end F;)");
    INFO(c.diagnostics.render());
    REQUIRE(c.model);
    const auto& m = *c.model;
    REQUIRE(m.forces[0].positions == std::vector<std::uint32_t>{0, 1});
    CHECK(m.positions[1].name == "b.z");
    CHECK(c.value(m.anchors[0].coordinate[0]) == 0);
    CHECK(c.value(m.anchors[0].coordinate[1]) == 2);
    CHECK(c.value(m.gravity[0].acceleration[2]) == Approx(-9.81));
    CHECK(m.fast_scales.empty());
}

TEST_CASE("the summary names positions, constraints, parameters and the fast scale") {
    Checked c(R"(model K "pendulum"
  parameter Real omega = 1e4 "rad/s";
  vibration a(theta = omega*time) = cos(theta);
  coordinate q(start = 0.5);
equation
  der(der(q)) = a*sin(q);
  annotation(experiment(StopTime = 1, method = "hmm"));
end K;)");
    REQUIRE(c.model);
    std::string s = check::summary(*c.model);
    CHECK(s.find("model K: pendulum") != std::string::npos);
    CHECK(s.find("fast scale: vibration a, omega = 10000 rad/s") != std::string::npos);
    CHECK(s.find("method = \"hmm\"") != std::string::npos);
    CHECK(s.find("StopTime = 1") != std::string::npos);
}

TEST_CASE("a body's mass can be used before the body is declared") {
    Checked c(R"(model B
  coordinate q(start = b.m, m = 1);
  potential U = b.m*q^2;
  body b(m = 2, x(start = b.m));
end B;)");
    INFO(c.diagnostics.render());
    REQUIRE(c.model);
    CHECK(c.value(c.model->positions[0].start) == 2);
    CHECK(c.value(c.model->positions[1].start) == 2);
    CHECK(c.value(c.model->positions[1].mass) == 2);
}

TEST_CASE("an enormous model (10^4 bodies on 10^4 springs) checks") {
    std::string text = "model Big\n  anchor O(x = 0, y = 0);\n";
    const int n = 10000;
    for (int i = 0; i < n; ++i) {
        text += "  body b" + std::to_string(i) + "(m = 1, x(start = " + std::to_string(i + 1) +
                "), y(start = 0));\n";
    }
    text += "  spring s0(O, b0, k = 1, length = 1);\n";
    for (int i = 1; i < n; ++i) {
        text += "  spring s" + std::to_string(i) + "(b" + std::to_string(i - 1) + ", b" +
                std::to_string(i) + ", k = 1, length = 1);\n";
    }
    text += "end Big;\n";
    Checked c(text);
    INFO(c.diagnostics.render());
    REQUIRE(c.model);
    CHECK(c.model->positions.size() == 2 * n);
    CHECK(c.model->springs.size() == n);
}

TEST_CASE("vibrations: 2 pi-periodicity proved from the form, else checked numerically") {
    const auto checked = [](const std::string& value) {
        return std::make_unique<Checked>("model V\n  parameter Real omega = 100, n = 3;\n"
                                         "  vibration a(theta = omega*time) = " +
                                         value +
                                         ";\n  coordinate q(start = 0);\nequation\n  "
                                         "der(der(q)) = a;\nend V;\n");
    };
    const auto verdict = [&](const std::string& value) {
        auto c = checked(value);
        REQUIRE(c->model);
        auto p = c->model->default_parameters();
        return check::vibration_periodicity(*c->model->vibrations[0].value, 0, p);
    };
    for (const char* proved :
         {"omega*cos(theta)", "cos(2*theta + 1)^2", "exp(sin(theta))", "sqrt(2 + cos(n*theta))",
          "tan(-theta)/(3 - sin(theta))", "7", "sin(theta/1*2)"}) {
        INFO(proved);
        const check::Periodicity p = verdict(proved);
        CHECK(p.periodic);
        CHECK(p.proved);
    }
    // periodic but not of a form the prover knows: accepted by the numeric check
    const check::Periodicity cancel = verdict("cos(theta) + theta - theta");
    CHECK(cancel.periodic);
    CHECK_FALSE(cancel.proved);
    // not periodic: the numeric check finds a phase where f(theta + 2 pi) != f(theta), and the
    // checker reports it at the value
    for (const char* bad : {"theta", "cos(theta/2)", "sin(theta)*theta", "cos(1.000001*theta)"}) {
        INFO(bad);
        auto c = checked(bad);
        CHECK_FALSE(c->model);
        REQUIRE(c->diagnostics.all().size() == 1);
        CHECK(c->diagnostics.all()[0].message.find(
                  "vibration 'a' is not 2*pi-periodic in its phase 'theta'") == 0);
    }
}
