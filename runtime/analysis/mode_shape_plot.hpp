// Mode shapes drawn as an SVG image (mdl modes --plot), one panel per mode (the first six):
// a planar model's bodies (positions named b.x, b.y) as points at the equilibrium (grey) and
// displaced along the mode (coloured), rigid bodies (with b.phi) as short bars turned by the
// mode; a model without planar bodies as one bar per coordinate. The displacement is scaled
// to a fifth of the mechanism's size (or half a radian): a picture of the shape, not of an
// amplitude.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace mdl::runtime {

struct ModeShapePlot {
    struct Mode {
        double omega = 0, frequency_hz = 0, damping_ratio = 0;
        std::string kind;
        std::vector<double> shape; // per coordinate
    };
    std::string title;
    std::vector<std::string> coordinates;
    std::vector<double> equilibrium;
    std::vector<Mode> modes;
    std::size_t max_panels = 6;
};

// The SVG document.
std::string mode_shape_svg(const ModeShapePlot& plot);

} // namespace mdl::runtime
