#include "runtime/integrators/ida.hpp"

#include "runtime/integrators/dopri5.hpp"
#include "runtime/integrators/ida_residual.hpp"
#include "runtime/integrators/ida_session.hpp"
#include "runtime/numerical_failure.hpp"

#include <stdexcept>
#include <string>

namespace mdl::runtime {

namespace {
constexpr std::string_view method_name = "ida";
}

IdaOptions ida_options(const Dopri5Options& adaptive) {
    IdaOptions options;
    options.rtol = adaptive.rtol;
    options.atol = adaptive.atol;
    options.initial_step = adaptive.initial_step;
    options.max_step = adaptive.max_step;
    options.max_steps = adaptive.max_steps;
    return options;
}

#if MDL_HAVE_SUNDIALS

bool ida_available() {
    return true;
}

IdaLinearAlgebra ida_linear_algebra(const Model& model, const IdaOptions& options) {
    if (!options.model_jacobian || !IdaResidual::has_newton_matrix(model)) {
        return IdaLinearAlgebra::dense_difference_quotients;
    }
    const bool sparse = options.linear_algebra == LinearAlgebra::sparse ||
                        (options.linear_algebra == LinearAlgebra::automatic &&
                         model.positions() >= ida_sparse_threshold);
    return MDL_HAVE_SUNDIALS_KLU && sparse ? IdaLinearAlgebra::sparse : IdaLinearAlgebra::dense;
}

IntegrationStats integrate_ida(const Model& model, State& state, const IdaOptions& options,
                               double t_end, double output_interval,
                               const std::function<void(const State&)>& observer) {
    detail::require_ida_run(model, state, options, t_end, output_interval);
    const double t0 = state.t;
    if (t_end == t0) {
        // the consistent multipliers at the start
        Vector a, xdot;
        detail::ida_consistent_derivatives(model, state, a, xdot);
        require_finite(model, state, method_name);
        observer(static_cast<const State&>(state));
        IntegrationStats stats;
        stats.outputs = 1;
        return stats;
    }
    detail::IdaSession ida(model, options, state, t_end);
    IntegrationStats stats;
    require_finite(model, state, method_name);
    observer(static_cast<const State&>(state));
    ++stats.outputs;
    const double span = t_end - t0;
    // One call of IDASolve towards `target`; false when the stop time t_end was reached.
    const auto advance = [&](double target, bool one_step) {
        const bool end = ida.advance(target, one_step, state);
        observer(static_cast<const State&>(state));
        ++stats.outputs;
        return !end;
    };
    if (output_interval > 0.0) {
        for (std::size_t j = 1;; ++j) {
            const double t_out = t0 + static_cast<double>(j) * output_interval;
            if (t_end - t_out <= 1e-12 * span) {
                advance(t_end, false);
                break;
            }
            advance(t_out, false);
        }
    } else {
        while (advance(t_end, true)) {
        }
    }
    state.t = t_end;
    const IntegrationStats counts = ida.statistics();
    stats.steps = counts.steps;
    stats.rejected = counts.rejected;
    stats.force_evaluations = counts.force_evaluations;
    return stats;
}

#else // built without SUNDIALS

bool ida_available() {
    return false;
}

IdaLinearAlgebra ida_linear_algebra(const Model&, const IdaOptions&) {
    return IdaLinearAlgebra::dense_difference_quotients;
}

IntegrationStats integrate_ida(const Model&, State&, const IdaOptions&, double, double,
                               const std::function<void(const State&)>&) {
    throw MethodNotApplicable(method_name, "this build of mdl has no SUNDIALS (install "
                                           "libsundials-dev and rebuild)");
}

#endif

} // namespace mdl::runtime
