// Units: the Modelica unit strings against their SI definitions (BIPM, The International System
// of Units, 9th ed. 2019, tables 2 and 4: N = kg m s-2, J = N m, W = J/s, Pa = N/m2, Hz = 1/s,
// rad = 1), the readable form, and the inference and checking of a model's units.
#include "check/dimension.hpp"
#include "check/front_end.hpp"

#include <catch2/catch.hpp>
#include <string>

using namespace mdl;
using check::Dimension;

namespace {

Dimension parse(const std::string& text) {
    std::string why;
    auto d = check::parse_unit(text, why);
    INFO(text << ": " << why);
    REQUIRE(d);
    return *d;
}

std::string refusal(const std::string& text) {
    std::string why;
    CHECK_FALSE(check::parse_unit(text, why));
    return why;
}

Dimension base(Dimension::Base b, std::int64_t p = 1) {
    return Dimension::of(b, p);
}

bool identical(const Dimension& a, const Dimension& b) { // rad included
    return a.exponent == b.exponent;
}

struct Checked {
    std::optional<check::CheckedModel> model;
    std::string diagnostics;
};

Checked check_text(const std::string& text, bool require = false) {
    source::SourceFile file("u.mdl", text);
    source::Diagnostics d(file);
    check::FrontEndOptions options;
    options.require_units = require;
    Checked out;
    out.model = check::check_file(file, d, options);
    out.diagnostics = d.render();
    return out;
}

} // namespace

TEST_CASE("unit strings are their SI definitions") {
    const Dimension kg = base(Dimension::kg), m = base(Dimension::m), s = base(Dimension::s);
    CHECK(identical(parse("N"), kg * m / s.power(2)));
    CHECK(identical(parse("N.m"), kg * m.power(2) / s.power(2)));
    CHECK(identical(parse("J"), parse("N.m")));
    CHECK(identical(parse("W"), parse("J/s")));
    CHECK(identical(parse("Pa"), parse("N/m2")));
    CHECK(identical(parse("kg/(m.s2)"), parse("Pa")));
    CHECK(identical(parse("m.s-2"), parse("m/s2")));
    CHECK(identical(parse("Hz"), parse("1/s")));
    CHECK(identical(parse("kg.m2"), kg * m.power(2)));
    CHECK(identical(parse("rad/s2"), base(Dimension::rad) / s.power(2)));
    CHECK(identical(parse("1"), Dimension::one()));
    CHECK(parse("rad").dimensionless()); // an angle is a ratio of lengths
    CHECK_FALSE(parse("m").dimensionless());
    CHECK(parse("N.m/rad").same(parse("J")));
    CHECK_THAT(refusal("mm"), Catch::Contains("not a coherent SI unit"));
    CHECK_THAT(refusal("deg"), Catch::Contains("not a coherent SI unit"));
    CHECK_THAT(refusal("kg/m.s2"), Catch::Contains("needs parentheses"));
    CHECK_THAT(refusal("m/"), Catch::Contains("expected a unit symbol"));
    CHECK_THAT(refusal("parsec"), Catch::Contains("unknown unit symbol 'parsec'"));
    CHECK_THAT(refusal(""), Catch::Contains("empty"));
}

TEST_CASE("units print in their usual names") {
    CHECK(check::to_string(parse("kg.m/s2")) == "N");
    CHECK(check::to_string(parse("kg/s2")) == "N/m");
    CHECK(check::to_string(parse("N.m")) == "J");
    CHECK(check::to_string(parse("J/s")) == "W");
    CHECK(check::to_string(parse("kg.m2")) == "kg.m2");
    CHECK(check::to_string(parse("m/s2")) == "m/s2");
    CHECK(check::to_string(parse("kg/s")) == "kg/s");
    CHECK(check::to_string(parse("kg.m/s")) == "N.s");
    CHECK(check::to_string(parse("rad/s")) == "rad/s");
    CHECK(check::to_string(parse("m.rad")) == "m"); // an arc length
    CHECK(check::to_string(parse("Hz")) == "1/s");
    CHECK(check::to_string(parse("1")) == "1");
    CHECK(check::to_string(parse("m").power(check::Rational(1, 2))) == "m^(1/2)");
}

TEST_CASE("undeclared quantities take the units their use determines") {
    auto c = check_text(R"(model Infer
  parameter Real m(unit = "kg") = 2, k = 8, c = 0.1, x0 = 0.1, w = sqrt(k/m), tau = 1/w;
  parameter Real free = 3;
  body b(m = m, x(start = x0));
  potential U = k/2*b.x^2;
  force F(b) = -c*b.vx;
  Real e(start = 0);
equation
  der(e) = c*b.vx^2;
end Infer;
)");
    INFO(c.diagnostics);
    REQUIRE(c.model);
    const auto& units = c.model->units.parameters;
    REQUIRE(units.size() == 7);
    CHECK(units[0] == "kg");
    CHECK(units[1] == "N/m");  // k/2 x^2 is an energy
    CHECK(units[2] == "kg/s"); // c vx is a force: N s/m
    CHECK(units[3] == "m");    // a body's start position
    CHECK(units[4] == "1/s");  // sqrt(k/m)
    CHECK(units[5] == "s");
    CHECK(units[6] == "");                     // nothing determines it
    CHECK(c.model->units.states.at(0) == "J"); // der(e) = c v^2 in W: e in J
    CHECK(c.model->units.positions.at(0) == "m");
    CHECK(c.model->units.velocities.at(0) == "m/s");
}

TEST_CASE("a model that declares no unit is not checked, and --units checks it and warns") {
    const std::string nondimensional = R"(model Scaled
  parameter Real w = 2;
  coordinate q(start = 1);
equation
  der(der(q)) = -q;
end Scaled;
)";
    auto plain = check_text(nondimensional);
    CHECK(plain.model);
    CHECK(plain.diagnostics.empty());
    CHECK(plain.model->units.parameters.empty());
    auto strict = check_text(nondimensional, true);
    CHECK_FALSE(strict.model); // der(der(q)) is q/s2, -q is q
    CHECK_THAT(strict.diagnostics,
               Catch::Contains("u.mdl:5:15: error: the two sides of the equation of 'q' have "
                               "different units: 1/s2.(unit of 'q') and (unit of 'q')"));
    CHECK_THAT(strict.diagnostics,
               Catch::Contains("warning: the unit of parameter 'w' is not determined"));
}

TEST_CASE("functions, powers and der follow the rules of dimensional analysis") {
    const std::string head = R"(model M
  parameter Real k(unit = "N/m") = 1, l(unit = "m") = 1, p(unit = "1") = 2;
  parameter Real tau(unit = "s") = 1;
  body b(m = 1, x(start = 0.5));
  Real v(unit = "m/s", start = 0);
)";
    auto ok = check_text(
        head +
        R"(  potential U = k*l^2*(b.x/l)^p + k/2*sqrt(b.x^2)^2 + k*pow(b.x, 2)*exp(-time/tau);
equation
  der(v) = b.x/tau^2;
end M;
)");
    INFO(ok.diagnostics);
    CHECK(ok.model);
    auto errors = [&](const std::string& body) {
        auto c = check_text(head + body + "end M;\n");
        CHECK_FALSE(c.model);
        return c.diagnostics;
    };
    CHECK_THAT(errors("  potential U = k*b.x^p;\nequation\n  der(v) = 0;\n"),
               Catch::Contains("6:19: error: the base of a power whose exponent is not a "
                               "constant is in m; it must be dimensionless"));
    CHECK_THAT(errors("  potential U = k*exp(time)*b.x^2;\nequation\n  der(v) = 0;\n"),
               Catch::Contains("6:23: error: the argument of exp is in s; it must be "
                               "dimensionless"));
    CHECK_THAT(errors("  potential U = k*b.x^(tau);\nequation\n  der(v) = 0;\n"),
               Catch::Contains("error: the exponent is in s; it must be dimensionless"));
    // der divides by time: der(v) of a velocity is an acceleration
    CHECK_THAT(errors("  potential U = k*b.x^2;\nequation\n  der(v) = b.x/tau;\n"),
               Catch::Contains("8:10: error: the two sides of the equation of der(v) have "
                               "different units: m/s2 and m/s"));
    CHECK_THAT(errors("  potential U = k*b.x^2 + (if b.x > tau then k*l^2 else 0);\nequation\n"
                      "  der(v) = 0;\n"),
               Catch::Contains("6:35: error: the two sides of '>' have different units: m and "
                               "s"));
    // a tower of powers: exponents clamped, no overflow (the fuzzers run under UBSan)
    CHECK_THAT(errors("  potential U = k*((((b.x^1000000)^1000000)^1000000)^1000000)^(1/7) + "
                      "k*l^2;\nequation\n  der(v) = 0;\n"),
               Catch::Contains("error: the two sides of '+' have different units"));
}
