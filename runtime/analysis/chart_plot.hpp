// The picture of a stability chart (stability_chart.hpp) as a self-contained SVG: the stable
// region shaded, the boundary curves drawn through the refined boundary points, grid points
// whose solution could not be computed marked with a cross, axes with ticks (logarithmic when
// the chart's axis is). Written directly, without gnuplot: the shading follows the refined
// boundary, which gnuplot's plot types (runtime/output/plot.hpp) cannot draw.
//
// Inside each grid cell the stable part is the polygon through its stable corners and the
// boundary points on its edges, in order around the cell (marching squares with the boundary
// points where bisection put them, not at the edges' middles); the boundary is the part of
// that polygon's outline that crosses the cell.
#pragma once

#include "runtime/analysis/stability_chart.hpp"

#include <string>

namespace mdl::runtime::analysis {

struct ChartPlotOptions {
    std::string title{};
    int width = 800, height = 600; // SVG user units
};

std::string stability_chart_svg(const StabilityChart& chart, const ChartPlotOptions& options = {});

} // namespace mdl::runtime::analysis
