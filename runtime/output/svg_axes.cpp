#include "runtime/output/svg_axes.hpp"

#include "runtime/output/xml_escape.hpp"

#include <cmath>
#include <cstdio>

namespace mdl::runtime {

namespace {

std::string printed(const char* format, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

} // namespace

std::string svg_coordinate(double value) {
    return printed("%.2f", value);
}

std::string svg_tick_label(double value) {
    return printed("%g", value);
}

std::string svg_start(double width, double height, double font_size, bool declaration) {
    std::string svg = declaration ? "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" : "";
    const std::string w = printed("%g", width), h = printed("%g", height);
    svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + w + "\" height=\"" + h +
           "\" viewBox=\"0 0 " + w + " " + h + "\" font-family=\"sans-serif\"";
    if (font_size > 0) {
        svg += " font-size=\"" + printed("%g", font_size) + "\"";
    }
    return svg + ">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
}

std::vector<double> round_ticks(double low, double high) {
    const double raw = (high - low) / 6.0;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    double step = power;
    for (const double m : {1.0, 2.0, 5.0, 10.0}) {
        if (m * power >= raw) {
            step = m * power;
            break;
        }
    }
    std::vector<double> ticks;
    for (double v = std::ceil(low / step - 1e-9) * step; v <= high + 1e-9 * step; v += step) {
        ticks.push_back(std::abs(v) < 1e-12 * step ? 0.0 : v);
    }
    return ticks;
}

std::string svg_axes(const SvgAxes& a, const std::vector<SvgTick>& x,
                     const std::vector<SvgTick>& y) {
    const auto c = svg_coordinate;
    std::string svg = "<rect x=\"" + c(a.left) + "\" y=\"" + c(a.top) + "\" width=\"" +
                      c(a.right - a.left) + "\" height=\"" + c(a.bottom - a.top) +
                      "\" fill=\"none\" stroke=\"black\"/>\n";
    // grid lines span the area; tick marks stand 5 outside it, the labels 2 further out
    const double outside = a.grid ? 0.0 : 5.0;
    const char* stroke = a.grid ? "#ddd" : "black";
    for (const SvgTick& t : x) {
        const double from = a.grid ? a.top : a.bottom;
        svg += "<line x1=\"" + c(t.pixel) + "\" y1=\"" + c(from) + "\" x2=\"" + c(t.pixel) +
               "\" y2=\"" + c(a.bottom + outside) + "\" stroke=\"" + stroke + "\"/>";
        svg += "<text x=\"" + c(t.pixel) + "\" y=\"" + c(a.bottom + 18 + outside / 2.5) +
               "\" text-anchor=\"middle\">" + svg_tick_label(t.value) + "</text>\n";
    }
    for (const SvgTick& t : y) {
        const double to = a.grid ? a.right : a.left;
        svg += "<line x1=\"" + c(a.left - outside) + "\" y1=\"" + c(t.pixel) + "\" x2=\"" + c(to) +
               "\" y2=\"" + c(t.pixel) + "\" stroke=\"" + stroke + "\"/>";
        svg += "<text x=\"" + c(a.left - 6 - outside / 2.5) + "\" y=\"" + c(t.pixel + 4) +
               "\" text-anchor=\"end\">" + svg_tick_label(t.value) + "</text>\n";
    }
    svg += "<text x=\"" + c((a.left + a.right) / 2) + "\" y=\"" + c(a.picture_height - 15) +
           "\" text-anchor=\"middle\">" + xml_escaped(a.x_name) + "</text>\n";
    const std::string middle = c((a.top + a.bottom) / 2);
    svg += "<text x=\"" + c(a.y_name_x) + "\" y=\"" + middle +
           "\" text-anchor=\"middle\" transform=\"rotate(-90 " + c(a.y_name_x) + " " + middle +
           ")\">" + xml_escaped(a.y_name) + "</text>\n";
    return svg;
}

} // namespace mdl::runtime
