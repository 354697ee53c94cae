#include "runtime/analysis/response_plot.hpp"
#include "runtime/output/xml_escape.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace mdl::runtime::analysis {

namespace {

const char* const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};

// Tick positions at 1, 2 or 5 times a power of ten, about six over [low, high].
std::vector<double> ticks(double low, double high) {
    const double raw = (high - low) / 6.0;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    double step = power;
    for (const double m : {1.0, 2.0, 5.0, 10.0}) {
        if (m * power >= raw) {
            step = m * power;
            break;
        }
    }
    std::vector<double> t;
    for (double v = std::ceil(low / step) * step; v <= high + 1e-9 * step; v += step) {
        t.push_back(std::abs(v) < 1e-12 * step ? 0.0 : v);
    }
    return t;
}

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
    std::string svg = fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
        "width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" font-family=\"sans-serif\" "
        "font-size=\"13\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
        plot.width, plot.height, plot.width, plot.height);
    svg +=
        fmt::format("<text x=\"{}\" y=\"28\" text-anchor=\"middle\" font-size=\"16\">{}</text>\n",
                    plot.width / 2, xml_escaped(plot.title));
    // axes, ticks, grid
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
                       "stroke=\"black\"/>\n",
                       left, top, w, h);
    for (const double t : ticks(x0, x1)) {
        svg += fmt::format(
            "<line x1=\"{0:.2f}\" y1=\"{1}\" x2=\"{0:.2f}\" y2=\"{2}\" stroke=\"#ddd\"/>"
            "<text x=\"{0:.2f}\" y=\"{3}\" text-anchor=\"middle\">{4:g}</text>\n",
            X(t), top, top + h, top + h + 18, t);
    }
    for (const double t : ticks(y0, y1)) {
        svg += fmt::format(
            "<line x1=\"{0}\" y1=\"{1:.2f}\" x2=\"{2}\" y2=\"{1:.2f}\" stroke=\"#ddd\"/>"
            "<text x=\"{3}\" y=\"{4:.2f}\" text-anchor=\"end\">{5:g}</text>\n",
            left, Y(t), left + w, left - 6, Y(t) + 4, t);
    }
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", left + w / 2,
                       plot.height - 15, xml_escaped(plot.xlabel));
    svg += fmt::format("<text x=\"18\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 18 "
                       "{0})\">{1}</text>\n",
                       top + h / 2, xml_escaped(plot.ylabel));
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
