#include "source/diagnostics.hpp"

#include <catch2/catch.hpp>

using namespace mdl::source;

TEST_CASE("line and column are 1-based byte positions, CRLF lines render without \\r") {
    SourceFile f("m.mdl", "model A\r\n  x;\r\nend A;");
    CHECK(f.line_column(0).line == 1);
    CHECK(f.line_column(0).column == 1);
    CHECK(f.line_column(11).line == 2);
    CHECK(f.line_column(11).column == 3);
    CHECK(f.line_text(2) == "  x;");
    CHECK(f.line_text(3) == "end A;");
}

TEST_CASE("a diagnostic renders as file:line:col, the source line and a caret with range") {
    SourceFile f("m.mdl", "model A\n  parameter Real w = omgea;\nend A;");
    Diagnostics d(f);
    d.error({29, 34}, "undefined name 'omgea'");
    CHECK(d.render() == "m.mdl:2:22: error: undefined name 'omgea'\n"
                        "  parameter Real w = omgea;\n"
                        "                     ^~~~~\n"
                        "1 error generated.\n");
}

TEST_CASE("tabs in the source line are kept under the caret") {
    SourceFile f("t.mdl", "\tx = 1;");
    Diagnostics d(f);
    d.warning({1, 2}, "w");
    CHECK(d.render() == "t.mdl:1:2: warning: w\n\tx = 1;\n\t^\n1 warning generated.\n");
}

TEST_CASE("the error limit stops collecting and says so") {
    SourceFile f("m.mdl", "x");
    Diagnostics d(f, 2);
    d.error({0, 1}, "a");
    d.error({0, 1}, "b");
    CHECK(d.saturated());
    d.error({0, 1}, "c");
    d.note({0, 1}, "dropped with c");
    CHECK(d.error_count() == 2);
    CHECK(d.all().size() == 2);
    CHECK(d.render().find("too many errors emitted") != std::string::npos);
}

TEST_CASE("closest_name suggests near misses only") {
    CHECK(closest_name("omgea", {"omega", "theta0", "l"}) == "omega");
    CHECK(closest_name("vmx", {"vmax", "g"}) == "vmax");
    CHECK(closest_name("zzz", {"omega", "g"}).empty());
}

TEST_CASE("a very long line is shown as a window around the caret") {
    std::string text = std::string(300, 'a') + "BAD" + std::string(300, 'b');
    SourceFile f("long.mdl", text);
    Diagnostics d(f);
    d.error({300, 303}, "here");
    std::string out = d.render();
    // The caret line is as long as the window's prefix up to the caret, not 300 columns.
    std::string expected_line = "..." + std::string(60, 'a') + "BAD" + std::string(57, 'b') + "...";
    std::string expected_marker = std::string(63, ' ') + "^~~";
    CHECK(out == "long.mdl:1:301: error: here\n" + expected_line + "\n" + expected_marker +
                     "\n1 error generated.\n");
}
