// A frequency-response plot as SVG, written directly (no gnuplot): amplitude against the
// continued parameter, one curve per coordinate, stable stretches solid and unstable ones
// dashed, bifurcation points marked and labelled (`mdl continue --plot`).
#pragma once

#include <string>
#include <vector>

namespace mdl::runtime::analysis {

struct ResponseCurve {
    std::string name;      // legend entry ("amplitude(x)")
    std::vector<double> x; // parameter
    std::vector<double> y; // amplitude
    std::vector<bool> stable;
};

struct ResponseMarker {
    double x = 0.0, y = 0.0;
    std::string label; // "fold", "period-doubling", ...
};

struct ResponsePlot {
    std::vector<ResponseCurve> curves;
    std::vector<ResponseMarker> markers;
    std::string title, xlabel, ylabel;
    int width = 800, height = 560;
};

// The SVG document.
std::string response_plot_svg(const ResponsePlot& plot);

} // namespace mdl::runtime::analysis
