// mdl::modes (mdl/modes.hpp): the compiled model as the runtime sees it, its start projected
// onto the constraints, then runtime/analysis: equilibrium, linearization, modes.
#include "mdl/modes.hpp"

#include "compiler/api/runtime_view.hpp"
#include "runtime/analysis/equilibrium.hpp"
#include "runtime/analysis/linearization.hpp"
#include "runtime/analysis/modes.hpp"
#include "runtime/analysis/static_force.hpp"
#include "runtime/consistent_start.hpp"
#include "runtime/numerical_failure.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <numbers>
#include <stdexcept>

namespace mdl {

namespace {

// The start of the search: the start values with `at` applied, projected onto the
// constraints when that succeeds (the search itself handles a start off them).
runtime::Vector newton_start(const CompiledModel& compiled, const runtime::Model& model,
                             const ModesOptions& options) {
    runtime::State state = model.zero_state(0.0);
    const auto q0 = compiled.start_positions();
    state.q = Eigen::Map<const runtime::Vector>(q0.data(), static_cast<Eigen::Index>(q0.size()));
    const auto& names = compiled.position_names();
    // the start values marked `fixed = true` and those given are kept by the projection
    std::vector<bool> fixed = compiled.start_fixed();
    fixed.resize(names.size(), false);
    for (const auto& [name, value] : options.at) {
        const auto found = std::find(names.begin(), names.end(), name);
        if (found == names.end()) {
            throw std::invalid_argument(fmt::format("--at {}: model '{}' has no position '{}' "
                                                    "(its positions: {})",
                                                    name, compiled.name(), name,
                                                    fmt::join(names, ", ")));
        }
        const auto i = static_cast<std::size_t>(found - names.begin());
        state.q[static_cast<Eigen::Index>(i)] = value;
        fixed[i] = true;
    }
    if (model.constrained()) {
        runtime::State projected = state;
        try {
            runtime::make_start_consistent(model, projected, fixed);
            state = projected;
        } catch (const runtime::InconsistentStart&) {
            // Newton starts from the values as given
        }
    }
    return state.q;
}

std::vector<double> row_major(const runtime::Matrix& A) {
    return std::vector<double>(A.data(), A.data() + A.size());
}

} // namespace

ModesResult modes(const CompiledModel& compiled, const ModesOptions& options) {
    const runtime::Model model = runtime_model(compiled);
    const runtime::StaticForce force(model);
    ModesResult r;
    if (force.averaged()) {
        r.notes.push_back(fmt::format(
            "vibration{} {} averaged over {} phase{} ({} points): the modes of the model "
            "without its vibrations",
            model.vibrations() > 1 ? "s" : "", fmt::join(compiled.vibration_names(), ", "),
            model.vibrations() > 1 ? "their" : "its", model.vibrations() > 1 ? "s" : "",
            force.samples()));
    }
    runtime::EquilibriumOptions eo;
    eo.tolerance = options.tolerance;
    eo.max_iterations = options.max_iterations;
    if (options.search == "nearest" || (options.search == "auto" && !options.at.empty())) {
        eo.search = runtime::EquilibriumSearch::nearest;
    } else if (options.search != "rest" && options.search != "auto") {
        throw std::invalid_argument(
            fmt::format("--search: '{}' is not a search (auto, rest or nearest)", options.search));
    }
    const runtime::Vector start = newton_start(compiled, model, options);
    force.check_autonomous(start);
    runtime::Equilibrium e;
    try {
        e = runtime::find_equilibrium(force, start, eo);
    } catch (const runtime::NumericalFailure& failure) {
        throw NumericalFailure(failure.what(), std::string(runtime::to_string(failure.kind())),
                               failure.method(), failure.time(), failure.where(), failure.detail());
    }
    force.check_autonomous(e.q);
    const runtime::Linearization l = runtime::linearize(force, e);
    const std::vector<runtime::Mode> found = runtime::natural_modes(l);

    r.coordinates = compiled.position_names();
    r.constraints = compiled.constraint_names();
    r.equilibrium.assign(e.q.data(), e.q.data() + e.q.size());
    r.multipliers.assign(e.lambda.data(), e.lambda.data() + e.lambda.size());
    r.degrees_of_freedom = static_cast<std::size_t>(l.degrees_of_freedom());
    r.newton_iterations = e.iterations;
    r.search = e.method;
    r.force_residual = e.force_residual;
    r.constraint_residual = e.constraint_residual;
    for (const runtime::Mode& mode : found) {
        r.omega.push_back(mode.omega);
        r.frequency_hz.push_back(mode.omega / (2 * std::numbers::pi));
        r.damping_ratio.push_back(mode.damping_ratio);
        r.kind.emplace_back(runtime::to_string(mode.kind));
        r.shapes.insert(r.shapes.end(), mode.shape.data(), mode.shape.data() + mode.shape.size());
    }
    r.mass = row_major(l.M);
    r.damping = row_major(l.C);
    r.stiffness = row_major(l.K);
    return r;
}

} // namespace mdl
