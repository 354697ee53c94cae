// The SVG pictures' shared axes (runtime/output/svg_axes.hpp): ticks at round numbers worked
// out by hand, and a frame whose ticks and names stand where the plot area puts them.
#include "runtime/output/svg_axes.hpp"

#include <catch2/catch.hpp>

#include <vector>

using namespace mdl::runtime;

TEST_CASE("round_ticks: about six ticks at 1, 2 or 5 times a power of ten") {
    // (2 - 0.5) / 6 = 0.25: step 0.5
    CHECK(round_ticks(0.5, 2.0) == std::vector<double>{0.5, 1.0, 1.5, 2.0});
    // 12 / 6 = 2: step 2, zero exactly
    CHECK(round_ticks(-2.0, 10.0) == std::vector<double>{-2, 0, 2, 4, 6, 8, 10});
    // 3.15 / 6 = 0.525: step 1, the upper end not on a tick
    CHECK(round_ticks(0.0, 3.15) == std::vector<double>{0, 1, 2, 3});
    // 0.03 / 6 = 0.005: step 0.005; the tick at zero is 0, not a rounding residue
    const std::vector<double> small = round_ticks(-0.01, 0.02);
    REQUIRE(small.size() == 7);
    CHECK(small[2] == 0.0);
    CHECK(small.back() == Approx(0.02));
}

TEST_CASE("svg_axes: the frame, grid lines or tick marks, labels and names") {
    const SvgAxes area{.left = 80,
                       .top = 50,
                       .right = 770,
                       .bottom = 500,
                       .picture_height = 560,
                       .grid = true,
                       .x_name = "Omega",
                       .y_name = "a < b",
                       .y_name_x = 18};
    const std::string grid = svg_axes(area, {{310, 1.0}}, {{351.04, 1e-3}});
    CHECK(grid.find("<rect x=\"80.00\" y=\"50.00\" width=\"690.00\" height=\"450.00\"") !=
          std::string::npos);
    // a grid line across the whole area, the label 18 below it
    CHECK(grid.find("<line x1=\"310.00\" y1=\"50.00\" x2=\"310.00\" y2=\"500.00\"") !=
          std::string::npos);
    CHECK(grid.find("y=\"518.00\" text-anchor=\"middle\">1</text>") != std::string::npos);
    CHECK(grid.find("<text x=\"74.00\" y=\"355.04\" text-anchor=\"end\">0.001</text>") !=
          std::string::npos);
    CHECK(grid.find(">Omega</text>") != std::string::npos);
    CHECK(grid.find("rotate(-90 18.00 275.00)\">a &lt; b</text>") != std::string::npos);
    SvgAxes marks = area;
    marks.grid = false;
    const std::string outside = svg_axes(marks, {{310, 1.0}}, {});
    // a 5-unit mark below the frame, the label 20 below it
    CHECK(outside.find("<line x1=\"310.00\" y1=\"500.00\" x2=\"310.00\" y2=\"505.00\"") !=
          std::string::npos);
    CHECK(outside.find("y=\"520.00\" text-anchor=\"middle\">1</text>") != std::string::npos);
}

TEST_CASE("svg_start: the declaration and the font size only when asked") {
    const std::string plain = svg_start(800, 600, 13, false);
    CHECK(plain.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" height=\"600\" "
                      "viewBox=\"0 0 800 600\" font-family=\"sans-serif\" font-size=\"13\">",
                      0) == 0);
    const std::string declared = svg_start(1020, 342, 0, true);
    CHECK(declared.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg", 0) == 0);
    CHECK(declared.find("font-size") == std::string::npos);
}
