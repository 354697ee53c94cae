#include "runtime/fmi/communication_step.hpp"

#include "runtime/integrate.hpp"
#include "runtime/numerical_failure.hpp"
#include "runtime/run_inline.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace mdl::runtime::fmi {

namespace {
// The tolerance of integrate_fixed: a time within 1e-9 steps of a grid time is on it.
constexpr double grid_tolerance = 1e-9;
} // namespace

CommunicationStep::CommunicationStep(const Model& model, const RunSettings& settings)
    : model_(&model), settings_(settings) {
    if (settings.method == Method::cvode_adams || settings.method == Method::cvode_bdf) {
        throw std::invalid_argument("the FMU runtime has no SUNDIALS: method " +
                                    std::string(info(settings.method).name) +
                                    " cannot run in an FMU");
    }
    require_applicable(settings.method, model);
    if (!info(settings.method).adaptive) {
        if (!(settings.step > 0.0) || !std::isfinite(settings.step)) {
            throw std::invalid_argument("the internal step must be positive and finite");
        }
        make_stepper(); // its constructor checks the model once more
    }
    start(0.0, -1.0);
}

void CommunicationStep::start(double t0, double stop) {
    events_.reset();
    grid_t0_ = t0;
    grid_index_ = 0;
    grid_step_ = settings_.step;
    grid_steps_ = 0;
    grid_stop_ = stop;
    if (info(settings_.method).adaptive || !std::isfinite(stop) || !(stop > t0)) {
        grid_stop_ = -1.0;
        return;
    }
    // as integrate_fixed: N steps of (stop - t0) / N when N H reaches stop up to 1e-9, else
    // steps of H and a shorter last one
    const double count = (stop - t0) / settings_.step;
    const double rounded = std::max(1.0, std::round(count));
    if (std::abs(count - rounded) <= grid_tolerance * std::max(1.0, count)) {
        grid_steps_ = static_cast<std::uint64_t>(rounded);
        grid_step_ = (stop - t0) / rounded;
    } else {
        grid_steps_ = static_cast<std::uint64_t>(std::ceil(count));
    }
}

double CommunicationStep::grid_time(std::uint64_t k) const {
    if (grid_steps_ != 0 && k == grid_steps_) {
        return grid_stop_;
    }
    return grid_t0_ + static_cast<double>(k) * grid_step_;
}

void CommunicationStep::parameters_changed() {
    if (!info(settings_.method).adaptive) {
        stepper_.emplace<std::monostate>();
    }
}

void CommunicationStep::advance(State& state, double t_end) {
    if (info(settings_.method).adaptive || model_->has_events()) {
        // dopri5 from t to t + h; a model with events (rk4 or dopri5): the event driver
        // (runtime/events/event_driver.hpp) from t to t + h, rk4 on the grid t + k H
        RunSettings settings = settings_;
        settings.stop_time = t_end;
        // no output interval: the observer ignores the states
        settings.step = info(settings_.method).adaptive ? 0.0 : settings_.step;
        const auto ignore = [](const State&) {
        };
        IntegrationStats stats;
        if (model_->has_events()) {
            if (!events_) {
                events_.emplace(*model_, info(settings_.method).name);
            }
            stats = run_with_events(*model_, state, settings, ignore, &*events_);
        } else {
            stats = run_inline(*model_, state, settings, ignore);
        }
        if (stats.terminated) {
            throw std::runtime_error("the model terminated at t = " + format_number(state.t) +
                                     ": " + stats.terminate_message);
        }
        return;
    }
    if (std::holds_alternative<std::monostate>(stepper_)) {
        make_stepper();
    }
    std::visit(
        [&](auto& stepper) {
            if constexpr (!std::is_same_v<std::decay_t<decltype(stepper)>, std::monostate>) {
                fixed_steps(stepper, state, t_end);
            }
        },
        stepper_);
}

template <class Stepper>
void CommunicationStep::fixed_steps(Stepper& stepper, State& state, double t_end) {
    // on the grid: the grid times up to t_end
    const double position = (t_end - grid_t0_) / grid_step_;
    std::uint64_t last = 0;
    bool on_grid = false;
    if (position > 0.0 && std::isfinite(position)) {
        last = static_cast<std::uint64_t>(std::max(0.0, std::round(position)));
        if (grid_steps_ != 0 && last > grid_steps_) {
            last = grid_steps_ + 1; // beyond the stop time: off the grid
        } else {
            on_grid = last > grid_index_ &&
                      std::abs(t_end - grid_time(last)) <= grid_tolerance * grid_step_;
        }
    }
    if (on_grid) {
        for (std::uint64_t k = grid_index_ + 1; k <= last; ++k) {
            step_to(stepper, state, grid_time(k));
            grid_index_ = k;
        }
        return;
    }
    // off the grid: equal steps no longer than H to t_end, and a new grid from there
    const double t0 = state.t;
    const double span = t_end - t0;
    const double count = std::max(1.0, std::ceil(span / settings_.step - grid_tolerance));
    const auto steps = static_cast<std::uint64_t>(count);
    for (std::uint64_t k = 1; k <= steps; ++k) {
        step_to(stepper, state, k == steps ? t_end : t0 + static_cast<double>(k) * (span / count));
    }
    start(t_end, grid_stop_);
}

template <class Stepper>
void CommunicationStep::step_to(Stepper& stepper, State& state, double target) {
    try {
        stepper.step(state, target - state.t);
    } catch (const NumericalFailure& failure) {
        throw failure.in_method(stepper.name()); // a model evaluation's failure (M(q))
    }
    require_finite(*model_, state, stepper.name());
}

void CommunicationStep::make_stepper() {
    const Model& model = *model_;
    const ImplicitOptions implicit{settings_.solver, settings_.project_velocities};
    switch (settings_.method) {
    case Method::verlet:
        stepper_.emplace<VelocityVerlet<>>(model, settings_.solver);
        return;
    case Method::leapfrog:
        stepper_.emplace<Leapfrog<>>(model, settings_.solver);
        return;
    case Method::stormer:
        stepper_.emplace<Stormer<>>(model);
        return;
    case Method::rk4:
        stepper_.emplace<RungeKutta4<>>(model);
        return;
    case Method::shake:
        stepper_.emplace<Shake<>>(model, settings_.solver);
        return;
    case Method::rattle:
        stepper_.emplace<Rattle<>>(model, settings_.solver);
        return;
    case Method::newmark:
        stepper_.emplace<Newmark<>>(model, implicit);
        return;
    case Method::galpha:
        stepper_.emplace<GeneralizedAlpha<>>(model, settings_.rho_inf, implicit);
        return;
    case Method::dopri5:
    case Method::cvode_adams:
    case Method::cvode_bdf:
    case Method::ida:
        break;
    }
    throw std::invalid_argument("not a fixed-step method: " +
                                std::string(info(settings_.method).name));
}

} // namespace mdl::runtime::fmi
