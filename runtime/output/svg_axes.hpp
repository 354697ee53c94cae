// What the SVG pictures share (the mode shapes, the frequency-response curves, the stability
// chart: runtime/analysis/*_plot.cpp): the picture's start, tick values at round numbers, and
// a framed plot area with its ticks, their labels and the axes' names.
#pragma once

#include <string>
#include <vector>

namespace mdl::runtime {

// An SVG number: a coordinate with two decimals ("12.35").
std::string svg_coordinate(double value);

// A tick's label as %g prints it ("0.001", "1e+06").
std::string svg_tick_label(double value);

// The XML declaration (when `declaration`), the <svg> element of width x height in user units
// with a sans-serif font (of `font_size` when positive) and a white background.
std::string svg_start(double width, double height, double font_size, bool declaration);

// Tick values at 1, 2 or 5 times a power of ten, about six of them over [low, high] (low <
// high), both ends included when they fall on a tick; a tick within 1e-12 steps of zero is 0.
std::vector<double> round_ticks(double low, double high);

// A tick: where it stands along its axis (pixels) and the value its label shows.
struct SvgTick {
    double pixel = 0;
    double value = 0;
};

// The plot area (pixels, y downwards) and how its axes are drawn.
struct SvgAxes {
    double left = 0, top = 0, right = 0, bottom = 0;
    double picture_height = 0; // the x axis' name stands 15 above the picture's bottom
    // light grid lines across the plot area at the ticks; else short tick marks outside it
    bool grid = false;
    std::string x_name, y_name;
    double y_name_x = 18; // the rotated y axis' name stands here
};

// The plot area's frame, the ticks with their labels, and the axes' names.
std::string svg_axes(const SvgAxes& axes, const std::vector<SvgTick>& x,
                     const std::vector<SvgTick>& y);

} // namespace mdl::runtime
