// The car axis problem (models/car_axis.mdl), an index-3 DAE with a time-dependent constraint,
// against the reference solution of the Test Set for IVP Solvers (F. Mazzia, C. Magherini et
// al., University of Bari, release 2.4, problem "caraxis"; Hairer & Wanner, Solving ODEs II,
// sect. VII.1): the wheels' four positions and four velocities at t = 3, by the constrained
// methods that take a rheonomic constraint, each to the accuracy its order gives at the
// reproduction's settings. `mdl reproduce caraxis` prints the table.
#pragma once

#include "runtime/integrate.hpp"
#include "runtime/methods.hpp"
#include "runtime/model.hpp"

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace mdl::runtime::mechanics {

struct CarAxisComponent {
    std::string_view name; // the CSV column of models/car_axis.mdl
    double reference;      // the Test Set's value at t = 3
};

// y1..y8 of the Test Set, in the order of the model's positions, then its velocities.
inline constexpr std::array<CarAxisComponent, 8> car_axis_reference{{
    {"left.x", 0.4934557842755629e-1},
    {"left.y", 0.4969894602303324},
    {"right.x", 0.1041742524885400e1},
    {"right.y", 0.3739110272652214},
    {"der(left.x)", -0.7705836840321485e-1},
    {"der(left.y)", 0.7446866596327776e-2},
    {"der(right.x)", 0.1755681574942899e-1},
    {"der(right.y)", 0.7703410437794031},
}};
// y9, y10: the multipliers of the constraints perpendicular and axle (K q'' = f + G^T lambda
// there as here).
inline constexpr std::array<double, 2> car_axis_reference_multipliers{-0.4736886750784630e-2,
                                                                      -0.1104680411345730e-2};
inline constexpr double car_axis_end_time = 3.0;
inline constexpr double car_axis_constraint_limit = 1e-9; // max |g_i(t, q)| at t = 3

// One method's setting in the reproduction: an adaptive method's tolerance (rtol = atol) or a
// fixed-step method's step, and the largest absolute error accepted on each of the eight
// components (the method's order at that setting; the reference itself agrees with dopri5 at
// rtol 1e-13 and rk4 at h = 1e-4 to 4e-10).
struct CarAxisSetting {
    Method method;
    double rtol_or_step;
    double tolerance;
};

struct CarAxisRun {
    CarAxisSetting setting;
    std::string method;
    std::array<double, 8> values{};
    std::array<double, 8> errors{}; // absolute
    std::array<double, 2> multipliers{};
    double constraint_residual = 0.0; // max |g_i(t, q)| at t = 3
    IntegrationStats stats;
    double seconds = 0.0;
    double largest_error() const;
    // the Test Set's measure: significant correct digits, -log10 of the largest relative error
    double correct_digits() const;
    bool passes() const;
};

// Integrates the model (models/car_axis.mdl, compiled) from `start` to t = 3. Throws
// std::invalid_argument when the model's coordinates and constraints are not those of
// models/car_axis.mdl.
CarAxisRun run_car_axis(const Model& model, const State& start, const CarAxisSetting& setting);

// The reproduction: ida and dopri5 at rtol = atol = 1e-12 (errors below 1e-8), rattle and
// galpha at h = 1e-5 (second order: below 1e-5).
std::vector<CarAxisSetting> car_axis_settings();
std::vector<CarAxisRun> reproduce_car_axis(const Model& model, const State& start);

// Markdown table: one row per component, the reference and each run's value and error, then
// the multipliers, the correct digits, the constraint residuals, steps and times.
std::string car_axis_markdown(const std::vector<CarAxisRun>& runs);

} // namespace mdl::runtime::mechanics
