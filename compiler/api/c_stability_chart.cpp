// The C API's stability charts (mdl.h: mdl_stability_chart ...) over mdl/stability_chart.hpp.
#include "mdl.h"

#include "c_model.hpp"
#include "mdl/stability_chart.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

struct mdl_chart {
    mdl::StabilityChart chart;
    std::vector<int> verdicts;
    std::vector<double> multipliers, boundary;
};

namespace {

using mdl::c_api::store;

mdl::ChartRange range_of(const mdl_chart_range& r) {
    if (r.name == nullptr) {
        throw std::invalid_argument("a chart range needs a parameter name");
    }
    return {r.name, r.lo, r.hi, r.points, r.log != 0};
}

// "q=3.14,der(q)=0"
std::vector<mdl::ParameterValue> replacements(const char* at) {
    std::vector<mdl::ParameterValue> out;
    if (at == nullptr) {
        return out;
    }
    std::string text = at;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t comma = text.find(',', start);
        // a comma inside a name's parentheses does not occur: names are positions, der(...)
        const std::string item =
            text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const auto eq = item.find('=');
        double value = 0;
        const char* first = item.data() + (eq == std::string::npos ? 0 : eq + 1);
        const char* last = item.data() + item.size();
        const auto [ptr, error] = std::from_chars(first, last, value);
        if (eq == std::string::npos || eq == 0 || error != std::errc() || ptr != last ||
            first == last) {
            throw std::invalid_argument("at: expected name=value[,name=value...], got '" + item +
                                        "'");
        }
        out.emplace_back(item.substr(0, eq), value);
        start = comma == std::string::npos ? text.size() : comma + 1;
    }
    return out;
}

void write(const char* path, const std::string& text) {
    if (path == nullptr) {
        return;
    }
    errno = 0;
    std::ofstream out(path, std::ios::binary);
    out << text;
    out.flush();
    if (!out) {
        throw std::runtime_error(std::string("writing '") + path +
                                 "': " + (errno != 0 ? std::strerror(errno) : "the stream failed"));
    }
}

} // namespace

extern "C" {

int mdl_stability_chart(const mdl_model* model, mdl_chart_range x, mdl_chart_range y,
                        const char* at, int orbit, size_t threads, mdl_chart** chart,
                        char** error) {
    try {
        mdl::StabilityChartSettings s;
        s.x = range_of(x);
        s.y = range_of(y);
        s.at = replacements(at);
        s.orbit = orbit != 0;
        s.threads = threads;
        auto* c = new mdl_chart{mdl::stability_chart(model->model, s), {}, {}, {}};
        for (const mdl::ChartPoint& p : c->chart.points) {
            c->verdicts.push_back(p.verdict == mdl::ChartPoint::Verdict::stable     ? 1
                                  : p.verdict == mdl::ChartPoint::Verdict::unstable ? 0
                                                                                    : -1);
            c->multipliers.push_back(p.max_multiplier);
        }
        for (const mdl::ChartBoundaryPoint& p : c->chart.boundary) {
            c->boundary.push_back(p.x);
            c->boundary.push_back(p.y);
        }
        *chart = c;
        return MDL_OK;
    } catch (const std::bad_alloc&) {
        store(error, "mdl: error: out of memory");
    } catch (const std::exception& e) {
        store(error, e.what());
    }
    return MDL_BAD_SETTINGS;
}

void mdl_chart_free(mdl_chart* chart) {
    delete chart;
}

const int* mdl_chart_verdicts(const mdl_chart* chart) {
    return chart->verdicts.data();
}

const double* mdl_chart_max_multipliers(const mdl_chart* chart) {
    return chart->multipliers.data();
}

size_t mdl_chart_boundary_size(const mdl_chart* chart) {
    return chart->chart.boundary.size();
}

const double* mdl_chart_boundary(const mdl_chart* chart) {
    return chart->boundary.data();
}

int mdl_chart_write(const mdl_chart* chart, const char* grid_csv, const char* boundary_csv,
                    const char* svg, char** error) {
    try {
        std::ostringstream grid, boundary;
        mdl::write_chart_grid_csv(grid, chart->chart);
        mdl::write_chart_boundary_csv(boundary, chart->chart);
        write(grid_csv, grid.str());
        write(boundary_csv, boundary.str());
        if (svg != nullptr) {
            write(svg, mdl::stability_chart_svg(chart->chart));
        }
        return 0;
    } catch (const std::exception& e) {
        store(error, e.what());
        return 1;
    }
}

} // extern "C"
