#include "parse/parser.hpp"

#include <catch2/catch.hpp>
#include <string>

using namespace mdl;

namespace {

struct Parsed {
    source::SourceFile file;
    source::Diagnostics diagnostics;
    std::optional<ast::Model> model;

    explicit Parsed(std::string text)
        : file("test.mdl", std::move(text)), diagnostics(file),
          model(parse::parse_model(file, diagnostics)) {}
    std::string errors() const { return diagnostics.render(); }
};

// Prints an expression fully parenthesized, to check precedence and associativity.
std::string show(const ast::Expr& e) {
    if (auto n = e.as<ast::Number>()) {
        std::string s = std::to_string(n->value);
        s.erase(s.find_last_not_of('0') + 1);
        if (s.back() == '.') {
            s.pop_back();
        }
        return s;
    }
    if (auto r = e.as<ast::NameRef>()) {
        std::string s;
        for (const auto& p : r->parts) {
            s += (s.empty() ? "" : ".") + p.text;
        }
        return s;
    }
    if (auto u = e.as<ast::Negate>()) {
        return "(-" + show(*u->operand) + ")";
    }
    if (auto b = e.as<ast::Binary>()) {
        const char* ops = "+-*/^";
        return "(" + show(*b->lhs) + ops[static_cast<int>(b->op)] + show(*b->rhs) + ")";
    }
    if (auto c = e.as<ast::Call>()) {
        std::string s = c->callee.text + "(";
        for (std::size_t i = 0; i < c->args.size(); ++i) {
            s += (i ? "," : "") + show(*c->args[i]);
        }
        return s + ")";
    }
    if (auto v = e.as<ast::VectorLiteral>()) {
        std::string s = "{";
        for (std::size_t i = 0; i < v->elements.size(); ++i) {
            s += (i ? "," : "") + show(*v->elements[i]);
        }
        return s + "}";
    }
    return "?";
}

std::string parse_expr(const std::string& text) {
    Parsed p("model M parameter Real a = " + text + "; end M;");
    REQUIRE(p.model);
    return show(*p.model->parameters.at(0).value);
}

} // namespace

TEST_CASE("the Kapitza model of LANGUAGE.md parses with every part in place") {
    Parsed p(R"(model Kapitza "pendulum whose pivot vibrates vertically"
  parameter Real l = 0.2 "rod length [m]";
  parameter Real g = 9.8, vmax = 4;
  parameter Real omega = 1e4 "pivot angular frequency [rad/s]";
  // fast forcing
  vibration a(theta = omega*time) = vmax*omega*cos(theta);
  coordinate q(start = 0.5) "angle from the upward vertical";
equation
  der(der(q)) = (g + a)/l*sin(q);
  annotation(experiment(StopTime = 1, method = "hmm"));
end Kapitza;
)");
    INFO(p.errors());
    REQUIRE(p.model);
    const ast::Model& m = *p.model;
    CHECK(m.name.text == "Kapitza");
    CHECK(m.description == "pendulum whose pivot vibrates vertically");
    REQUIRE(m.parameters.size() == 4);
    CHECK(m.parameters[0].description == "rod length [m]");
    CHECK(m.parameters[2].name.text == "vmax");
    REQUIRE(m.components.size() == 2);
    CHECK(m.components[0].kind == ast::ComponentKind::vibration);
    CHECK(m.components[0].arguments.at(0).modifier->name.text == "theta");
    CHECK(show(*m.components[0].value) == "((vmax*omega)*cos(theta))");
    CHECK(m.components[1].description == "angle from the upward vertical");
    REQUIRE(m.equations.size() == 1);
    CHECK(show(*m.equations[0].lhs) == "der(der(q))");
    CHECK(show(*m.equations[0].rhs) == "(((g+a)/l)*sin(q))");
    REQUIRE(m.annotations.size() == 1);
    const ast::Modifier& exp = m.annotations[0].modifiers.at(0);
    CHECK(exp.name.text == "experiment");
    CHECK(exp.children.at(1).text == "hmm");
    CHECK(m.end_name.text == "Kapitza");
}

TEST_CASE("precedence: ^ is right-associative and binds tighter than unary minus") {
    CHECK(parse_expr("-a^2") == "(-(a^2))");
    CHECK(parse_expr("a^b^c") == "(a^(b^c))");
    CHECK(parse_expr("2^-1") == "(2^(-1))");
    CHECK(parse_expr("a - b - c") == "((a-b)-c)");
    CHECK(parse_expr("a / b * c") == "((a/b)*c)");
    CHECK(parse_expr("a + b * c ^ 2") == "(a+(b*(c^2)))");
    CHECK(parse_expr("a * -b") == "(a*(-b))");
    CHECK(parse_expr("+a") == "a");
    CHECK(parse_expr(".5e1 + 1.") == "(5+1)");
    CHECK(parse_expr("atan2(b1.y, -x)") == "atan2(b1.y,(-x))");
    CHECK(parse_expr("{1, 2}") == "{1,2}");
}

TEST_CASE("the source range of an expression covers its text, parentheses included") {
    Parsed p("model M parameter Real a = (b + c) * d; end M;");
    REQUIRE(p.model);
    const ast::Expr& e = *p.model->parameters[0].value;
    CHECK(p.file.slice(e.range) == "(b + c) * d");
    CHECK(p.file.slice(e.as<ast::Binary>()->lhs->range) == "(b + c)");
}

TEST_CASE("components: arguments, modifiers, value, fast mark and description") {
    Parsed p(R"(model S
  body b1(m = 1, x(start = 1), vx(start = 0.5));
  spring s2(b1, b2, k = w2^2, length = 1) fast(omega = w2) "stiff";
  damper d(b1, b2, c = 0);
end S;)");
    INFO(p.errors());
    REQUIRE(p.model);
    const auto& c = p.model->components;
    REQUIRE(c.size() == 3);
    CHECK(c[0].arguments.at(1).modifier->nested);
    CHECK(c[0].arguments.at(1).modifier->children.at(0).name.text == "start");
    CHECK(show(*c[1].arguments.at(0).positional) == "b1");
    CHECK(c[1].arguments.at(2).modifier->name.text == "k");
    CHECK(c[1].fast);
    CHECK(c[1].fast_modifiers.at(0).name.text == "omega");
    CHECK(c[1].description == "stiff");
}

TEST_CASE("comments of both kinds and CRLF line ends are accepted") {
    Parsed p(
        "model M /* block\r\n comment */\r\n  // line\r\n  parameter Real a = 1;\r\nend M;\r\n");
    INFO(p.errors());
    CHECK(p.model);
}

namespace {
// The first diagnostic as "line:col: message".
std::string first_error(const std::string& text) {
    Parsed p(text);
    REQUIRE_FALSE(p.model);
    REQUIRE(!p.diagnostics.all().empty());
    const auto& d = p.diagnostics.all()[0];
    auto lc = p.file.line_column(d.range.begin);
    return std::to_string(lc.line) + ":" + std::to_string(lc.column) + ": " + d.message;
}
} // namespace

TEST_CASE("syntax errors are located where clang would put the caret") {
    CHECK(first_error("model M\n  parameter Real a = 1\n  parameter Real b = 2;\nend M;") ==
          "2:23: expected ';'");
    CHECK(first_error("model M\n  parameter Real a = ;\nend M;") == "2:22: expected an expression");
    CHECK(first_error("model M\n  parameter Real a = (1 + 2;\nend M;") == "2:28: expected ')'");
    CHECK(first_error("model M\n  parameter Real a = 1 +;\nend M;") ==
          "2:25: expected an expression");
    CHECK(first_error("model M\n  parameter Real a = 1e+;\nend M;") ==
          "2:25: expected digits in the exponent of a number");
    CHECK(first_error("model M \"desc\n  parameter Real a = 1;\nend M;") ==
          "1:14: unterminated string");
    CHECK(first_error("model M\n  /* never closed\nend M;") == "2:3: unterminated /* comment");
    CHECK(first_error("model M\n  paramter Real a = 1;\nend M;") ==
          "2:3: unknown declaration 'paramter'; did you mean 'parameter'?");
    CHECK(first_error("model M\n  coordinate q;\n  der(der(q)) = 1;\nend M;") ==
          "3:3: equations must follow the 'equation' keyword");
    CHECK(first_error("model M\n  constraint c x = 1;\nend M;") ==
          "2:16: expected ':' after the constraint's name");
    CHECK(first_error("model M\n  parameter Real a = 1;\n") ==
          "3:1: expected 'end M;' at the end of the model");
    CHECK(first_error("model M\nend M;\nx") == "3:1: expected 'model'");
    CHECK(first_error("") == "1:1: expected 'model'");
    CHECK(first_error("model M\n  parameter Real a = 1e999;\nend M;") ==
          "2:22: number '1e999' is too large for a Real");
}

TEST_CASE("the parser recovers at ';' and reports several syntax errors in one run") {
    Parsed p("model M\n  parameter Real a = ;\n  parameter Real b = 1 +;\n  body b(m = 1, x(start "
             "= ));\nequation\n  der(x) 1;\nend M;");
    REQUIRE_FALSE(p.model);
    CHECK(p.diagnostics.error_count() == 4);
    CHECK(p.errors().find("4 errors generated.") != std::string::npos);
}

TEST_CASE("deep nesting is an error, not a stack overflow") {
    std::string deep(100000, '(');
    Parsed p("model M parameter Real a = " + deep + "1; end M;");
    REQUIRE_FALSE(p.model);
    CHECK(p.errors().find("nested too deeply") != std::string::npos);
    std::string minus(100000, '-');
    Parsed q("model M parameter Real a = " + minus + "1; end M;");
    REQUIRE_FALSE(q.model);
    CHECK(q.errors().find("nested too deeply") != std::string::npos);
}

TEST_CASE("an operator chain is as deep as it is long: bounded, with one error") {
    auto sum = [](int terms) {
        std::string s = "1";
        for (int i = 1; i < terms; ++i) {
            s += "+1";
        }
        return s;
    };
    Parsed ok("model M parameter Real a = " + sum(static_cast<int>(parse::max_tree_depth)) +
              "; end M;");
    CHECK(ok.model);
    Parsed deep("model M parameter Real a = " + sum(200000) + "; parameter Real b = " + sum(5000) +
                "; end M;");
    REQUIRE_FALSE(deep.model);
    CHECK(deep.diagnostics.error_count() == 2); // one per statement, not one per level
    CHECK(deep.errors().find("expression too complex") != std::string::npos);
}

TEST_CASE("a huge literal is quoted shortened in its error") {
    Parsed p("model M parameter Real a = 1" + std::string(100000, '0') + "; end M;");
    REQUIRE_FALSE(p.model);
    CHECK(p.diagnostics.all().at(0).message ==
          "number '10000000000000000000...' is too large for a Real");
}
