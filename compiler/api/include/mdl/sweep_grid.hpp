// The parameter grid of `mdl sweep`: each -p gives one parameter's values, the sweep runs
// their Cartesian product.
//
//     -p vmax=4               one value
//     -p vmax=1,2.5,4         a list
//     -p omega=1e3:1e8:log:6  N values from lo to hi, both included, evenly spaced in log10
//     -p l=0.1:0.5:lin:5      N values evenly spaced
//
// Points are numbered row-major in the order the -p options were given: the first parameter
// varies slowest, the last fastest (as nested loops written in that order).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace mdl {

struct SweepAxis {
    std::string name;
    std::vector<double> values;
};

// One -p argument "name=spec". Throws std::invalid_argument naming the option and the
// problem (no '=', a value that is not a number, N < 2 in a range, log of a non-positive
// bound, a non-finite value).
SweepAxis parse_sweep_axis(const std::string& text);

class SweepGrid {
public:
    // Throws std::invalid_argument when a parameter is given twice or the grid is too large.
    explicit SweepGrid(std::vector<SweepAxis> axes);

    const std::vector<SweepAxis>& axes() const { return axes_; }
    std::size_t size() const { return size_; } // number of points (1 without axes)
    // The point's (name, value) pairs, in axis order.
    std::vector<std::pair<std::string, double>> point(std::size_t index) const;

private:
    std::vector<SweepAxis> axes_;
    std::size_t size_ = 1;
};

} // namespace mdl
