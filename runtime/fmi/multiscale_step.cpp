#include "runtime/fmi/multiscale_step.hpp"

#include "runtime/integrate.hpp"
#include "runtime/numerical_failure.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <type_traits>

namespace mdl::runtime::fmi {

namespace ms = multiscale;

namespace {

// The tolerance of the drivers (hmm.cpp, stiff_hmm.cpp): within 1e-9 of a whole number of
// macro steps is on the grid.
constexpr double grid_tolerance = 1e-9;

// Mirrors `mdl run`'s resolution: every option the export wrote, the others at the defaults
// `mdl run` leaves them at.
ms::HmmOptions hmm_options(const mdl_fmu_model& d, double stop) {
    const mdl_fmu_multiscale& m = *d.multiscale;
    ms::HmmOptions o;
    o.macro = ms::parse_hmm_method(d.method);
    o.algorithm = static_cast<ms::HmmAlgorithm>(m.algorithm);
    o.filter = static_cast<ms::FilterKind>(m.filter);
    o.window_periods = m.window_periods;
    o.t_end = stop;
    o.macro_step = m.macro_step;
    o.macro_time_scale = m.macro_time_scale;
    o.micro_steps_per_period = static_cast<std::size_t>(m.micro_steps_per_period);
    o.force_even_in_phase = m.force_even_in_phase != 0;
    o.period = m.period;
    o.solver.constraint_tolerance = m.constraint_tolerance;
    return o;
}

ms::StroboscopicOptions strobo_options(const mdl_fmu_model& d, double stop) {
    const mdl_fmu_multiscale& m = *d.multiscale;
    ms::StroboscopicOptions o;
    o.order = m.order;
    o.macro = static_cast<ms::StroboscopicMacro>(m.macro);
    o.micro = static_cast<ms::StroboscopicMicro>(m.micro);
    o.t_end = stop;
    o.macro_step = m.macro_step;
    o.whole_steps = m.whole_steps != 0;
    o.micro_steps_per_period = static_cast<std::size_t>(m.micro_steps_per_period);
    o.rtol = m.rtol;
    o.atol = m.atol;
    o.period = m.period;
    o.solver.constraint_tolerance = m.constraint_tolerance;
    return o;
}

ms::StiffHmmOptions stiff_options(const mdl_fmu_model& d, double stop) {
    const mdl_fmu_multiscale& m = *d.multiscale;
    ms::StiffHmmOptions o;
    o.macro = static_cast<ms::StiffMacro>(m.macro);
    o.t_end = stop;
    o.macro_step = m.macro_step;
    o.omega = m.omega;
    o.window_periods = m.window_periods;
    o.micro_steps_per_period = static_cast<std::size_t>(m.micro_steps_per_period);
    o.reproject_every = m.reproject_every;
    o.reproject_steps = static_cast<std::size_t>(m.reproject_steps);
    o.drift_rtol = m.drift_rtol;
    o.drift_atol = m.drift_atol;
    o.rtol = m.rtol;
    o.atol = m.atol;
    o.solver.constraint_tolerance = m.constraint_tolerance;
    return o;
}

} // namespace

bool multiscale_method(std::string_view method) {
    return method == "strobo" || method.starts_with("hmm");
}

MultiscaleStep::MultiscaleStep(const Model& model, const mdl_fmu_model& d, double stop)
    : model_(&model), method_(d.method), stop_(stop) {
    if (d.multiscale == nullptr || !multiscale_method(method_)) {
        throw std::invalid_argument("method " + method_ + " is not a multiscale method");
    }
    macro_step_ = d.multiscale->macro_step;
    if (!(macro_step_ > 0.0) || !std::isfinite(macro_step_)) {
        throw std::invalid_argument(method_ +
                                    ": the macro step (or output interval) H must be "
                                    "positive and finite, got " +
                                    format_number(macro_step_));
    }
    if (method_ == "strobo") {
        integrator_.emplace<ms::StroboscopicIntegrator>(model, strobo_options(d, stop));
    } else if (method_ == "hmm-stiff") {
        integrator_.emplace<ms::StiffHmmIntegrator>(model, stiff_options(d, stop));
    } else {
        integrator_.emplace<ms::HmmIntegrator>(model, hmm_options(d, stop));
    }
}

void MultiscaleStep::start(State& state) {
    t0_ = state.t;
    std::visit(
        [&](auto& integrator) {
            if constexpr (!std::is_same_v<std::decay_t<decltype(integrator)>, std::monostate>) {
                integrator.start(state);
                require_finite(*model_, state, integrator.name());
            }
        },
        integrator_);
}

double MultiscaleStep::tolerance() const {
    return grid_tolerance * macro_step_;
}

std::string MultiscaleStep::check(double t, double t_end) const {
    const double h = t_end - t;
    if (t_end > stop_ + tolerance()) {
        return "the communication point t + h = " + format_number(t_end) +
               " lies beyond the stop time " + format_number(stop_) + " of " + method_ +
               " (fmi2SetupExperiment's stop time, else the default experiment's): its macro "
               "steps end there";
    }
    if (std::abs(t_end - stop_) <= tolerance()) {
        return {};
    }
    const double count = (t_end - t0_) / macro_step_;
    const double rounded = std::round(count);
    if (rounded >= 1.0 && std::abs(count - rounded) <= grid_tolerance * std::max(1.0, count)) {
        return {};
    }
    return "the communication step h = " + format_number(h) +
           " is not a multiple of the macro step H = " + format_number(macro_step_) + " of " +
           method_ + ": t + h = " + format_number(t_end) + " is " + format_number(count) +
           " macro steps from the start " + format_number(t0_) +
           "; the communication points must be t0 + k H or the stop time " + format_number(stop_);
}

void MultiscaleStep::advance(State& state, double t_end) {
    const double until = t_end - tolerance();
    std::visit(
        [&](auto& integrator) {
            if constexpr (!std::is_same_v<std::decay_t<decltype(integrator)>, std::monostate>) {
                while (!integrator.done() && state.t < until) {
                    integrator.advance(state);
                    require_finite(*model_, state, integrator.name());
                }
            }
        },
        integrator_);
    if (std::abs(state.t - t_end) > tolerance()) {
        throw std::logic_error(method_ + " stopped at t = " + format_number(state.t) +
                               ", not at the communication point " + format_number(t_end));
    }
}

} // namespace mdl::runtime::fmi
