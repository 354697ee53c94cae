#include "runtime/analysis/chart_plot.hpp"
#include "runtime/output/svg_axes.hpp"
#include "runtime/output/xml_escape.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

namespace mdl::runtime::analysis {

namespace {

constexpr double left_margin = 80, right_margin = 30, top_margin = 50, bottom_margin = 60;
constexpr const char* stable_fill = "#9ecae1";
constexpr const char* boundary_colour = "#08306b";
constexpr const char* failed_colour = "#d62728";

// The map from an axis' values to a pixel interval [from, to].
struct Scale {
    const ChartAxis& axis;
    double from, to;
    double operator()(double value) const {
        const double s = axis.distance(axis.lo, value) / axis.span();
        const bool beyond_lo = axis.lo < axis.hi ? value < axis.lo : value > axis.lo;
        return from + (beyond_lo ? -s : s) * (to - from);
    }
};

// Tick values: 1, 2, 5 times a power of ten, about 6 of them; decades on a log axis.
std::vector<double> ticks(const ChartAxis& axis) {
    const double lo = std::min(axis.lo, axis.hi), hi = std::max(axis.lo, axis.hi);
    std::vector<double> values;
    if (axis.log) {
        for (double e = std::ceil(std::log10(lo) - 1e-9); e <= std::log10(hi) + 1e-9; e += 1) {
            values.push_back(std::pow(10.0, e));
        }
        if (values.size() >= 2) {
            return values;
        }
        values.clear(); // less than a decade: linear ticks
    }
    return round_ticks(lo, hi);
}

struct Point {
    double x, y;
};

class ChartDrawing {
public:
    ChartDrawing(const StabilityChart& chart, const ChartPlotOptions& options)
        : chart_(chart), options_(options), sx_{chart.x, left_margin, options.width - right_margin},
          sy_{chart.y, options.height - bottom_margin, top_margin} {
        const std::size_t nx = chart.x.points, ny = chart.y.points;
        along_x_.assign(nx * ny, std::nullopt);
        along_y_.assign(nx * ny, std::nullopt);
        for (std::size_t k = 0; k < chart.boundary.size(); ++k) {
            const BoundaryPoint& p = chart.boundary[k];
            (p.along_x ? along_x_ : along_y_)[p.i * ny + p.j] = k;
        }
    }

    std::string draw() {
        svg_ += svg_start(options_.width, options_.height, 13, false);
        cells();
        failed_points();
        axes();
        legend();
        svg_ += "</svg>\n";
        return std::move(svg_);
    }

private:
    Point at(double x, double y) const { return {sx_(x), sy_(y)}; }
    Point grid(std::size_t i, std::size_t j) const {
        return at(chart_.x.value(i), chart_.y.value(j));
    }
    bool stable(std::size_t i, std::size_t j) const {
        return chart_.at(i, j).kind == Verdict::Kind::stable;
    }

    // The cell's outline in order: corner, edge, corner, ... Each entry is a corner (stable or
    // not) or a boundary point.
    struct Vertex {
        Point p;
        bool corner;
        bool stable; // corners only
    };

    std::vector<Vertex> outline(std::size_t i, std::size_t j) const {
        const std::size_t ny = chart_.y.points;
        std::vector<Vertex> v;
        auto corner = [&](std::size_t a, std::size_t b) {
            v.push_back({grid(a, b), true, stable(a, b)});
        };
        auto edge = [&](const std::vector<std::optional<std::size_t>>& index, std::size_t a,
                        std::size_t b) {
            if (const auto k = index[a * ny + b]) {
                const BoundaryPoint& p = chart_.boundary[*k];
                v.push_back({at(p.x, p.y), false, false});
            }
        };
        corner(i, j);
        edge(along_x_, i, j);
        corner(i + 1, j);
        edge(along_y_, i + 1, j);
        corner(i + 1, j + 1);
        edge(along_x_, i, j + 1);
        corner(i, j + 1);
        edge(along_y_, i, j);
        return v;
    }

    static std::string points(const std::vector<Point>& ps) {
        std::string text;
        for (const Point& p : ps) {
            text += (text.empty() ? "" : " ") + svg_coordinate(p.x) + ',' + svg_coordinate(p.y);
        }
        return text;
    }

    void cells() {
        std::string fill, lines;
        for (std::size_t i = 0; i + 1 < chart_.x.points; ++i) {
            for (std::size_t j = 0; j + 1 < chart_.y.points; ++j) {
                const std::vector<Vertex> v = outline(i, j);
                std::vector<Point> polygon;
                for (const Vertex& w : v) {
                    if (!w.corner || w.stable) {
                        polygon.push_back(w.p);
                    }
                }
                if (polygon.size() >= 3) {
                    fill += "<polygon points=\"" + points(polygon) + "\"/>\n";
                }
                // a boundary segment joins two boundary points with only unstable (or failed)
                // corners between them along the outline
                for (std::size_t a = 0; a < v.size(); ++a) {
                    if (v[a].corner) {
                        continue;
                    }
                    std::size_t b = (a + 1) % v.size();
                    bool cut = false, crosses_stable = false;
                    while (v[b].corner) {
                        cut = true;
                        crosses_stable = crosses_stable || v[b].stable;
                        b = (b + 1) % v.size();
                    }
                    if (b != a && cut && !crosses_stable) {
                        lines += "<line x1=\"" + svg_coordinate(v[a].p.x) + "\" y1=\"" +
                                 svg_coordinate(v[a].p.y) + "\" x2=\"" + svg_coordinate(v[b].p.x) +
                                 "\" y2=\"" + svg_coordinate(v[b].p.y) + "\"/>\n";
                    }
                }
            }
        }
        svg_ += std::string("<g fill=\"") + stable_fill + "\" stroke=\"" + stable_fill +
                "\" stroke-width=\"0.5\">\n" + fill + "</g>\n";
        svg_ += std::string("<g stroke=\"") + boundary_colour +
                "\" stroke-width=\"1.5\" stroke-linecap=\"round\">\n" + lines + "</g>\n";
    }

    void failed_points() {
        std::string marks;
        for (std::size_t i = 0; i < chart_.x.points; ++i) {
            for (std::size_t j = 0; j < chart_.y.points; ++j) {
                if (chart_.at(i, j).kind != Verdict::Kind::failed) {
                    continue;
                }
                const Point p = grid(i, j);
                marks += "<path d=\"M" + svg_coordinate(p.x - 3) + ',' + svg_coordinate(p.y - 3) +
                         "l6,6m0,-6l-6,6\"/>\n";
            }
        }
        if (!marks.empty()) {
            svg_ += std::string("<g stroke=\"") + failed_colour + "\" stroke-width=\"1\">\n" +
                    marks + "</g>\n";
        }
    }

    void axes() {
        const double x0 = left_margin, x1 = options_.width - right_margin;
        const double y0 = options_.height - bottom_margin, y1 = top_margin;
        std::vector<SvgTick> x_ticks, y_ticks;
        for (double t : ticks(chart_.x)) {
            x_ticks.push_back({sx_(t), t});
        }
        for (double t : ticks(chart_.y)) {
            y_ticks.push_back({sy_(t), t});
        }
        svg_ += svg_axes({.left = x0,
                          .top = y1,
                          .right = x1,
                          .bottom = y0,
                          .picture_height = static_cast<double>(options_.height),
                          .grid = false,
                          .x_name = chart_.x.name,
                          .y_name = chart_.y.name,
                          .y_name_x = 20},
                         x_ticks, y_ticks);
        if (!options_.title.empty()) {
            svg_ += "<text x=\"" + svg_coordinate((x0 + x1) / 2) +
                    "\" y=\"30\" text-anchor=\"middle\" font-size=\"16\">" +
                    xml_escaped(options_.title) + "</text>\n";
        }
    }

    void legend() {
        const double x = options_.width - right_margin - 150, y = 12;
        svg_ += "<rect x=\"" + svg_coordinate(x) + "\" y=\"" + svg_coordinate(y) +
                "\" width=\"14\" height=\"10\" fill=\"" + stable_fill + "\"/>\n";
        svg_ += "<text x=\"" + svg_coordinate(x + 20) + "\" y=\"" + svg_coordinate(y + 10) +
                "\">stable</text>\n";
        svg_ += "<line x1=\"" + svg_coordinate(x + 70) + "\" y1=\"" + svg_coordinate(y + 5) +
                "\" x2=\"" + svg_coordinate(x + 84) + "\" y2=\"" + svg_coordinate(y + 5) +
                "\" stroke=\"" + boundary_colour + "\" stroke-width=\"1.5\"/>\n";
        svg_ += "<text x=\"" + svg_coordinate(x + 90) + "\" y=\"" + svg_coordinate(y + 10) +
                "\">boundary</text>\n";
        if (chart_.count(Verdict::Kind::failed) > 0) {
            svg_ += "<text x=\"" + svg_coordinate(x) + "\" y=\"" + svg_coordinate(y + 26) +
                    "\" fill=\"" + failed_colour + "\">x: not computed</text>\n";
        }
    }

    const StabilityChart& chart_;
    const ChartPlotOptions& options_;
    Scale sx_, sy_;
    std::vector<std::optional<std::size_t>> along_x_, along_y_;
    std::string svg_;
};

} // namespace

std::string stability_chart_svg(const StabilityChart& chart, const ChartPlotOptions& options) {
    return ChartDrawing(chart, options).draw();
}

} // namespace mdl::runtime::analysis
