// Equilibrium, linearization and natural modes of a compiled model (`mdl modes`,
// docs/analysis.md "Modes"): Newton on the static equations f(q, v = 0) + G^T lambda = 0,
// g(q) = 0 with the compiled Jacobians, the linearization M, C, K about the equilibrium (on
// the tangent space of the constraints), and its natural frequencies, damping ratios and
// mass-normalized mode shapes.
//
//     mdl::CompiledModel model = mdl::compile_file("models/four_bar.mdl");
//     mdl::ModesResult r = mdl::modes(model);
//     r.omega[0], r.damping_ratio[0], r.shape(0)[j] (coordinate r.coordinates[j])
//
// Vibrations are switched off by averaging the force over their phases; a force that depends
// on time explicitly, first-order states and rheonomic constraints are refused
// (std::invalid_argument, as are unknown names in `at`). When Newton's method fails,
// mdl::NumericalFailure names the largest residual and the coordinates. Nothing is printed.
#pragma once

#include "mdl/compiled_model.hpp"
#include "mdl/simulate.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace mdl {

struct ModesOptions {
    // Start values for Newton's method by position name (the others keep their start values);
    // the start is first projected onto the constraints.
    std::vector<std::pair<std::string, double>> at;
    // How the equilibrium is searched (runtime/analysis/equilibrium.hpp): "rest" follows the
    // gradient flow M q' = f downhill by pseudo-transient continuation to a rest position;
    // "nearest" is Newton's method, converging to the equilibrium nearest the start whatever
    // its stability (falling back on "rest" when it fails); "auto": "nearest" when `at` is
    // given, else "rest".
    std::string search = "auto";
    double tolerance = 1e-10; // relative residual of the static equations
    int max_iterations = 50;
};

struct ModesResult {
    std::vector<std::string> coordinates; // the model's positions, n
    std::vector<double> equilibrium;      // q*, n
    std::vector<std::string> constraints; // m
    std::vector<double> multipliers;      // lambda*, m (the constraint forces' multipliers)
    std::size_t degrees_of_freedom = 0;   // n - rank G
    int newton_iterations = 0;            // iterations or continuation steps of the search
    std::string search;                   // how the equilibrium was found, in words
    double force_residual = 0, constraint_residual = 0; // max norms at the equilibrium

    // One entry per mode, sorted by omega: omega [rad/s] (the undamped natural frequency |s|),
    // omega / (2 pi) [Hz], the damping ratio -Re(s)/|s|, the kind ("rigid body",
    // "oscillatory", "overdamped", "unstable").
    std::vector<double> omega, frequency_hz, damping_ratio;
    std::vector<std::string> kind;
    // Mode shapes, row-major (modes x n): shape k in all coordinates, phi^T M phi = 1.
    std::vector<double> shapes;
    std::size_t modes() const { return omega.size(); }
    std::span<const double> shape(std::size_t k) const {
        return std::span<const double>(shapes).subspan(k * coordinates.size(), coordinates.size());
    }

    // The linearization in the model's coordinates (n x n, row-major): M(q*), C = -df/dv,
    // K = -df/dq - sum lambda_i d2g_i/dq2 (the constraint forces' geometric stiffness).
    std::vector<double> mass, damping, stiffness;
    // What was done beyond the plain analysis, one line each ("vibration 'a' averaged over
    // its phase: the modes of the model without its vibrations").
    std::vector<std::string> notes;
};

ModesResult modes(const CompiledModel& model, const ModesOptions& options = {});

} // namespace mdl
