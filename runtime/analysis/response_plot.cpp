#include "runtime/analysis/response_plot.hpp"
#include "runtime/output/svg_axes.hpp"
#include "runtime/output/xml_escape.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace mdl::runtime::analysis {

namespace {

const char* const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};

} // namespace

std::string response_plot_svg(const ResponsePlot& plot) {
    double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y1 = -x0;
    for (const ResponseCurve& c : plot.curves) {
        for (std::size_t i = 0; i < c.x.size(); ++i) {
            if (std::isfinite(c.x[i]) && std::isfinite(c.y[i])) {
                x0 = std::min(x0, c.x[i]);
                x1 = std::max(x1, c.x[i]);
                y1 = std::max(y1, c.y[i]);
            }
        }
    }
    if (!(x1 > x0)) {
        x0 = std::isfinite(x0) ? x0 - 1.0 : 0.0;
        x1 = x0 + 2.0;
    }
    const double y0 = 0.0;
    if (!(y1 > y0)) {
        y1 = 1.0;
    }
    y1 *= 1.05;
    const double left = 80, right = 30, top = 50, bottom = 60;
    const double w = plot.width - left - right, h = plot.height - top - bottom;
    const auto X = [&](double x) {
        return left + (x - x0) / (x1 - x0) * w;
    };
    const auto Y = [&](double y) {
        return top + h - (y - y0) / (y1 - y0) * h;
    };
    std::string svg = svg_start(plot.width, plot.height, 13, true);
    svg +=
        fmt::format("<text x=\"{}\" y=\"28\" text-anchor=\"middle\" font-size=\"16\">{}</text>\n",
                    plot.width / 2, xml_escaped(plot.title));
    // axes, ticks, grid
    std::vector<SvgTick> x_ticks, y_ticks;
    for (const double t : round_ticks(x0, x1)) {
        x_ticks.push_back({X(t), t});
    }
    for (const double t : round_ticks(y0, y1)) {
        y_ticks.push_back({Y(t), t});
    }
    svg += svg_axes({.left = left,
                     .top = top,
                     .right = left + w,
                     .bottom = top + h,
                     .picture_height = static_cast<double>(plot.height),
                     .grid = true,
                     .x_name = plot.xlabel,
                     .y_name = plot.ylabel,
                     .y_name_x = 18},
                    x_ticks, y_ticks);
    // curves: one polyline per stretch of equal stability (neighbours share their end point)
    for (std::size_t k = 0; k < plot.curves.size(); ++k) {
        const ResponseCurve& c = plot.curves[k];
        const char* colour = colours[k % (sizeof colours / sizeof colours[0])];
        std::size_t i = 0;
        while (i + 1 < c.x.size()) {
            const bool stable = c.stable[i + 1] && c.stable[i];
            std::string points = fmt::format("{:.2f},{:.2f}", X(c.x[i]), Y(c.y[i]));
            std::size_t j = i + 1;
            for (; j < c.x.size(); ++j) {
                points += fmt::format(" {:.2f},{:.2f}", X(c.x[j]), Y(c.y[j]));
                if (j + 1 < c.x.size() && (c.stable[j + 1] && c.stable[j]) != stable) {
                    break;
                }
            }
            svg += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} "
                               "points=\"{}\"/>\n",
                               colour, stable ? "" : " stroke-dasharray=\"6,4\"", points);
            i = j;
        }
        // legend
        const double ly = top + 18 + 20 * static_cast<double>(k);
        svg +=
            fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" "
                        "stroke-width=\"2\"/><text x=\"{4}\" y=\"{5}\">{6}</text>\n",
                        left + 12, ly, left + 40, colour, left + 46, ly + 4, xml_escaped(c.name));
    }
    const double ly = top + 18 + 20 * static_cast<double>(plot.curves.size());
    svg += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#555\">solid: stable, dashed: "
                       "unstable</text>\n",
                       left + 12, ly + 4);
    for (std::size_t k = 0; k < plot.markers.size(); ++k) {
        // neighbouring markers (a peak next to its fold) get their labels on alternate lines
        const ResponseMarker& m = plot.markers[k];
        const double offset = k % 2 == 0 ? -6.0 : 14.0;
        svg += fmt::format("<circle cx=\"{0:.2f}\" cy=\"{1:.2f}\" r=\"4\" fill=\"black\"/>"
                           "<text x=\"{2:.2f}\" y=\"{3:.2f}\" font-size=\"11\">{4}</text>\n",
                           X(m.x), Y(m.y), X(m.x) + 6, Y(m.y) + offset, xml_escaped(m.label));
    }
    svg += "</svg>\n";
    return svg;
}

} // namespace mdl::runtime::analysis
