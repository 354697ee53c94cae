// Andrews' squeezing mechanism (models/andrews.mdl) against the reference solution of the IVP
// Test Set (Mazzia & Magherini, Test Set for IVP Solvers, problem "andrews"; Hairer & Wanner,
// Solving ODEs II, sect. VII.7): the seven angles at t = 0.03, each to 1e-6 relative, with
// the constraints satisfied to 1e-8, by two independent methods (IDA on the index-2 DAE,
// DOPRI5 on the index-1 form with projection). `mdl reproduce andrews` prints the table.
#pragma once

#include "runtime/integrate.hpp"
#include "runtime/methods.hpp"
#include "runtime/model.hpp"

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace mdl::runtime::mechanics {

struct AndrewsAngle {
    std::string_view name; // the coordinate of models/andrews.mdl
    double reference;      // the Test Set's value at t = 0.03
};

// In the order of the model's coordinates.
inline constexpr std::array<AndrewsAngle, 7> andrews_reference{{
    {"beta", 15.81077119629904},
    {"Theta", -15.75637105984298},
    {"gamma", 0.04082224013073101},
    {"Phi", -0.5347301163226948},
    {"delta", 0.5244099658805304},
    {"Omega", 0.5347301163226948},
    {"epsilon", 1.048080741042263},
}};
inline constexpr double andrews_end_time = 0.03;
inline constexpr double andrews_tolerance = 1e-6;        // relative, each angle
inline constexpr double andrews_constraint_limit = 1e-8; // max |g_i(q)| at the end [m]

struct AndrewsRun {
    std::string method;
    double rtol = 0.0;
    std::array<double, 7> angles{};
    std::array<double, 7> relative_errors{};
    double constraint_residual = 0.0; // max |g_i(q(0.03))|
    IntegrationStats stats;
    double seconds = 0.0; // wall time of the integration
    bool passes() const;
};

// Integrates the model (models/andrews.mdl, compiled) from `start` to t = 0.03 with `method`
// at tolerance rtol (atol = rtol: the angles are of order 0.01 to 16 rad). Throws
// std::invalid_argument when the model's coordinates are not the seven angles.
AndrewsRun run_andrews(const Model& model, const State& start, Method method, double rtol);

// The methods and tolerances of the reproduction: ida and dopri5 at rtol 1e-10.
std::vector<AndrewsRun> reproduce_andrews(const Model& model, const State& start);

// Markdown table: one row per angle, the reference and each run's value and relative error,
// then the constraint residuals, steps and times.
std::string andrews_markdown(const std::vector<AndrewsRun>& runs);

} // namespace mdl::runtime::mechanics
