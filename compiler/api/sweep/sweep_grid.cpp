#include "mdl/sweep_grid.hpp"

#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

namespace mdl {

namespace {

constexpr std::size_t max_points = 100'000'000;

double parse_number(const std::string& option, const std::string& text) {
    double value = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end) {
        throw std::invalid_argument(fmt::format("-p {}: '{}' is not a number", option, text));
    }
    if (!std::isfinite(value)) {
        throw std::invalid_argument(fmt::format("-p {}: '{}' is not finite", option, text));
    }
    return value;
}

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::size_t begin = 0;
    while (true) {
        std::size_t end = text.find(separator, begin);
        parts.push_back(text.substr(begin, end - begin));
        if (end == std::string::npos) {
            return parts;
        }
        begin = end + 1;
    }
}

// lo:hi:lin|log:N
std::vector<double> parse_range(const std::string& option, const std::string& spec) {
    auto parts = split(spec, ':');
    if (parts.size() != 4) {
        throw std::invalid_argument(fmt::format(
            "-p {}: a range is lo:hi:lin:N or lo:hi:log:N (e.g. 1e3:1e8:log:6), got '{}'", option,
            spec));
    }
    double lo = parse_number(option, parts[0]), hi = parse_number(option, parts[1]);
    const std::string& scale = parts[2];
    if (scale != "lin" && scale != "log") {
        throw std::invalid_argument(fmt::format(
            "-p {}: the range's spacing must be 'lin' or 'log', got '{}'", option, scale));
    }
    std::size_t n = 0;
    const char* end = parts[3].data() + parts[3].size();
    auto [ptr, ec] = std::from_chars(parts[3].data(), end, n);
    if (parts[3].empty() || ec != std::errc() || ptr != end || n < 2 || n > max_points) {
        throw std::invalid_argument(fmt::format(
            "-p {}: the number of values of a range must be an integer of at least 2, got '{}'",
            option, parts[3]));
    }
    const bool log = scale == "log";
    if (log && !(lo > 0 && hi > 0)) {
        throw std::invalid_argument(
            fmt::format("-p {}: a log range needs positive bounds, got {} and {}", option, lo, hi));
    }
    std::vector<double> values(n);
    const double a = log ? std::log10(lo) : lo, b = log ? std::log10(hi) : hi;
    for (std::size_t i = 0; i < n; ++i) {
        // a + (b - a) i/(n-1), with both end points exact
        double u = a + (b - a) * static_cast<double>(i) / static_cast<double>(n - 1);
        values[i] = log ? std::pow(10.0, u) : u;
    }
    values.front() = lo;
    values.back() = hi;
    return values;
}

} // namespace

SweepAxis parse_sweep_axis(const std::string& text) {
    auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
        throw std::invalid_argument(fmt::format(
            "-p expects name=values (e.g. -p vmax=1,2,4 or -p omega=1e3:1e8:log:6), got '{}'",
            text));
    }
    SweepAxis axis;
    axis.name = text.substr(0, eq);
    std::string spec = text.substr(eq + 1);
    if (spec.find(':') != std::string::npos) {
        axis.values = parse_range(text, spec);
    } else {
        for (const std::string& item : split(spec, ',')) {
            axis.values.push_back(parse_number(text, item));
        }
    }
    return axis;
}

SweepGrid::SweepGrid(std::vector<SweepAxis> axes) : axes_(std::move(axes)) {
    for (std::size_t i = 0; i < axes_.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            if (axes_[i].name == axes_[j].name) {
                throw std::invalid_argument(
                    fmt::format("-p {}: the parameter is given twice", axes_[i].name));
            }
        }
        if (axes_[i].values.empty() || size_ > max_points / axes_[i].values.size()) {
            throw std::invalid_argument(fmt::format(
                "-p {}: the grid would have more than {} points", axes_[i].name, max_points));
        }
        size_ *= axes_[i].values.size();
    }
}

std::vector<std::pair<std::string, double>> SweepGrid::point(std::size_t index) const {
    std::vector<std::pair<std::string, double>> out(axes_.size());
    for (std::size_t k = axes_.size(); k-- > 0;) {
        const auto& values = axes_[k].values;
        out[k] = {axes_[k].name, values[index % values.size()]};
        index /= values.size();
    }
    return out;
}

} // namespace mdl
