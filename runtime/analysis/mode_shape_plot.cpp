#include "runtime/analysis/mode_shape_plot.hpp"
#include "runtime/output/svg_axes.hpp"
#include "runtime/output/xml_escape.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <string>

namespace mdl::runtime {

namespace {

constexpr double panel_width = 340, panel_height = 300, header = 40;
constexpr int columns = 3;

std::string number(double x, const char* format = "%.4g") {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, x);
    return buffer;
}

// A body drawn in the plane: the indices of its two drawn coordinates, and of phi for a
// planar rigid body.
struct PlanarBody {
    std::size_t x = 0, y = 0;
    std::ptrdiff_t phi = -1;
};

// The bodies (positions named b.x, b.y, b.z) with the two axes drawn: x and y, or for 3-D
// models the two axes along which the equilibrium spreads most (a hanging chain in x-z).
// `axes` gets their names ("x-z").
std::vector<PlanarBody> planar_bodies(const std::vector<std::string>& names,
                                      const std::vector<double>& q, std::string& axes) {
    std::map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < names.size(); ++i) {
        index[names[i]] = i;
    }
    std::vector<std::array<std::ptrdiff_t, 4>> found; // x, y, z, phi
    for (std::size_t i = 0; i < names.size(); ++i) {
        const std::string& name = names[i];
        if (name.size() < 3 || name.compare(name.size() - 2, 2, ".x") != 0) {
            continue;
        }
        const std::string prefix = name.substr(0, name.size() - 2);
        std::array<std::ptrdiff_t, 4> body = {static_cast<std::ptrdiff_t>(i), -1, -1, -1};
        const std::array<const char*, 3> suffixes = {".y", ".z", ".phi"};
        for (std::size_t slot = 1; slot < 4; ++slot) {
            if (const auto it = index.find(prefix + suffixes[slot - 1]); it != index.end()) {
                body[slot] = static_cast<std::ptrdiff_t>(it->second);
            }
        }
        if (body[1] >= 0) {
            found.push_back(body);
        }
    }
    // the spread of the equilibrium along each axis
    std::array<double, 3> spread{};
    for (std::size_t a = 0; a < 3; ++a) {
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;
        for (const auto& body : found) {
            if (body[a] >= 0) {
                lo = std::min(lo, q[static_cast<std::size_t>(body[a])]);
                hi = std::max(hi, q[static_cast<std::size_t>(body[a])]);
            }
        }
        spread[a] = hi > lo ? hi - lo : 0.0;
    }
    std::size_t first = 0, second = 1;
    const bool three_d = !found.empty() && std::all_of(found.begin(), found.end(),
                                                       [](const auto& b) { return b[2] >= 0; });
    if (three_d) {
        // drop the axis of least spread (y before z, x last when they tie)
        std::size_t dropped = 1;
        if (spread[2] < spread[dropped]) {
            dropped = 2;
        }
        if (spread[0] < spread[dropped]) {
            dropped = 0;
        }
        first = dropped == 0 ? 1 : 0;
        second = dropped == 2 ? 1 : 2;
    }
    const std::array<const char*, 3> axis_names = {"x", "y", "z"};
    axes = std::string(axis_names[first]) + "-" + axis_names[second];
    std::vector<PlanarBody> bodies;
    for (const auto& body : found) {
        bodies.push_back({static_cast<std::size_t>(body[first]),
                          static_cast<std::size_t>(body[second]), three_d ? -1 : body[3]});
    }
    return bodies;
}

std::string panel_title(std::size_t k, const ModeShapePlot::Mode& mode) {
    std::string title = "mode " + std::to_string(k + 1) + ": ";
    if (mode.kind == "rigid body") {
        return title + "rigid body";
    }
    title += number(mode.frequency_hz) + " Hz (" + number(mode.omega) + " rad/s)";
    if (mode.damping_ratio != 0) {
        title += ", zeta " + number(mode.damping_ratio, "%.3g");
    }
    if (mode.kind != "oscillatory") {
        title += ", " + mode.kind;
    }
    return title;
}

// One panel of a planar mechanism, in the box (x0, y0) + panel size.
std::string planar_panel(const ModeShapePlot& plot, const std::vector<PlanarBody>& bodies,
                         const ModeShapePlot::Mode& mode, double x0, double y0) {
    const auto& q = plot.equilibrium;
    double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin, ymin = xmin, ymax = -xmin;
    double largest_move = 0, largest_turn = 0;
    for (const PlanarBody& b : bodies) {
        xmin = std::min(xmin, q[b.x]);
        xmax = std::max(xmax, q[b.x]);
        ymin = std::min(ymin, q[b.y]);
        ymax = std::max(ymax, q[b.y]);
        largest_move = std::max(largest_move, std::hypot(mode.shape[b.x], mode.shape[b.y]));
        if (b.phi >= 0) {
            largest_turn =
                std::max(largest_turn, std::abs(mode.shape[static_cast<std::size_t>(b.phi)]));
        }
    }
    const double size = std::max(xmax - xmin, ymax - ymin);
    const double extent = size > 0 ? size : 1.0; // one body: a unit view
    double scale = std::numeric_limits<double>::infinity();
    // every translation counts, also along an axis not drawn (a 3-D body's third one): a
    // mode out of the drawing's plane is drawn as the small motion it is there
    std::vector<bool> turn(mode.shape.size(), false);
    for (const PlanarBody& b : bodies) {
        if (b.phi >= 0) {
            turn[static_cast<std::size_t>(b.phi)] = true;
        }
    }
    for (std::size_t i = 0; i < mode.shape.size(); ++i) {
        if (!turn[i]) {
            largest_move = std::max(largest_move, std::abs(mode.shape[i]));
        }
    }
    if (largest_move > 0) {
        scale = 0.2 * extent / largest_move;
    }
    if (largest_turn > 0) {
        scale = std::min(scale, 0.5 / largest_turn);
    }
    if (!std::isfinite(scale)) {
        scale = 0;
    }
    // the view: the equilibrium's box with a margin, square pixels
    const double margin = 0.35 * extent, bar = 0.1 * extent;
    const double cx = 0.5 * (xmin + xmax), cy = 0.5 * (ymin + ymax);
    const double span = extent + 2 * margin;
    const double pixels = std::min(panel_width - 20, panel_height - header - 10) / span;
    const auto px = [&](double x) {
        return x0 + panel_width / 2 + (x - cx) * pixels;
    };
    const auto py = [&](double y) {
        return y0 + header + (panel_height - header) / 2 - (y - cy) * pixels;
    };
    std::string svg;
    const auto draw_body = [&](double x, double y, double phi, bool rigid, const char* colour,
                               bool filled) {
        if (rigid) {
            const double dx = bar * std::cos(phi), dy = bar * std::sin(phi);
            svg += "<line x1=\"" + number(px(x - dx)) + "\" y1=\"" + number(py(y - dy)) +
                   "\" x2=\"" + number(px(x + dx)) + "\" y2=\"" + number(py(y + dy)) +
                   "\" stroke=\"" + colour + "\" stroke-width=\"3\"/>\n";
        }
        svg += "<circle cx=\"" + number(px(x)) + "\" cy=\"" + number(py(y)) + "\" r=\"4\" " +
               (filled ? std::string("fill=\"") + colour + "\"" : "fill=\"none\"") + " stroke=\"" +
               colour + "\"/>\n";
    };
    for (const PlanarBody& b : bodies) {
        const bool rigid = b.phi >= 0;
        const double phi = rigid ? q[static_cast<std::size_t>(b.phi)] : 0.0;
        draw_body(q[b.x], q[b.y], phi, rigid, "#999999", false);
    }
    for (const PlanarBody& b : bodies) {
        const bool rigid = b.phi >= 0;
        const double x = q[b.x] + scale * mode.shape[b.x], y = q[b.y] + scale * mode.shape[b.y];
        const double phi = rigid ? q[static_cast<std::size_t>(b.phi)] +
                                       scale * mode.shape[static_cast<std::size_t>(b.phi)]
                                 : 0.0;
        svg += "<line x1=\"" + number(px(q[b.x])) + "\" y1=\"" + number(py(q[b.y])) + "\" x2=\"" +
               number(px(x)) + "\" y2=\"" + number(py(y)) +
               "\" stroke=\"#c0392b\" stroke-dasharray=\"3,2\"/>\n";
        draw_body(x, y, phi, rigid, "#1f5fa6", true);
    }
    return svg;
}

// One panel of bars, one per coordinate, for a model without planar bodies.
std::string bar_panel(const ModeShapePlot& plot, const ModeShapePlot::Mode& mode, double x0,
                      double y0) {
    const std::size_t n = mode.shape.size();
    double largest = 0;
    for (const double x : mode.shape) {
        largest = std::max(largest, std::abs(x));
    }
    const double top = y0 + header + 10, bottom = y0 + panel_height - 40;
    const double axis = 0.5 * (top + bottom), half = 0.5 * (bottom - top);
    const double left = x0 + 20,
                 width = (panel_width - 40) / static_cast<double>(std::max<std::size_t>(n, 1));
    std::string svg = "<line x1=\"" + number(left) + "\" y1=\"" + number(axis) + "\" x2=\"" +
                      number(left + width * static_cast<double>(n)) + "\" y2=\"" + number(axis) +
                      "\" stroke=\"#999999\"/>\n";
    for (std::size_t j = 0; j < n; ++j) {
        const double h = largest > 0 ? mode.shape[j] / largest * half : 0.0;
        const double x = left + width * static_cast<double>(j) + 0.15 * width;
        svg += "<rect x=\"" + number(x) + "\" y=\"" + number(h > 0 ? axis - h : axis) +
               "\" width=\"" + number(0.7 * width) + "\" height=\"" + number(std::abs(h)) +
               "\" fill=\"#1f5fa6\"/>\n";
        if (n <= 12) {
            svg += "<text x=\"" + number(x + 0.35 * width) + "\" y=\"" + number(bottom + 16) +
                   "\" font-size=\"10\" text-anchor=\"middle\">" +
                   xml_escaped(plot.coordinates[j]) + "</text>\n";
        }
    }
    return svg;
}

} // namespace

std::string mode_shape_svg(const ModeShapePlot& plot) {
    std::string axes;
    const std::vector<PlanarBody> bodies = planar_bodies(plot.coordinates, plot.equilibrium, axes);
    const std::size_t panels = std::min(plot.modes.size(), plot.max_panels);
    const int cols = static_cast<int>(std::min<std::size_t>(panels, columns));
    const int rows = static_cast<int>((panels + columns - 1) / columns);
    const double top = 42;
    const double width = panel_width * std::max(cols, 2);
    const double height = top + panel_height * std::max(rows, 1);
    std::string svg = svg_start(width, height, 0, true);
    svg += "<text x=\"10\" y=\"18\" font-size=\"13\">" + xml_escaped(plot.title) + ": mode shapes" +
           (panels < plot.modes.size() ? ", the first " + std::to_string(panels) : "") +
           "</text>\n";
    svg +=
        "<text x=\"10\" y=\"34\" font-size=\"10\">" +
        (bodies.empty() ? std::string("one bar per coordinate")
                        : "bodies in the " + axes + " plane; grey: equilibrium, blue: displaced") +
        "</text>\n";
    if (panels == 0) {
        svg += "<text x=\"10\" y=\"60\" font-size=\"12\">no modes</text>\n";
    }
    for (std::size_t k = 0; k < panels; ++k) {
        const double x0 = panel_width * static_cast<double>(k % columns);
        const double y0 = top + panel_height * static_cast<double>(k / columns);
        svg += "<g>\n<rect x=\"" + number(x0 + 2) + "\" y=\"" + number(y0 + 2) + "\" width=\"" +
               number(panel_width - 4) + "\" height=\"" + number(panel_height - 4) +
               "\" fill=\"none\" stroke=\"#dddddd\"/>\n<text x=\"" + number(x0 + 10) + "\" y=\"" +
               number(y0 + 22) + "\" font-size=\"12\">" +
               xml_escaped(panel_title(k, plot.modes[k])) + "</text>\n";
        svg += bodies.empty() ? bar_panel(plot, plot.modes[k], x0, y0)
                              : planar_panel(plot, bodies, plot.modes[k], x0, y0);
        svg += "</g>\n";
    }
    return svg + "</svg>\n";
}

} // namespace mdl::runtime
