#include "runtime/output/output_rows.hpp"

#include <stdexcept>

namespace mdl::runtime {

OutputRows::OutputRows(const Model& model, OutputOptions options)
    : model_(&model), every_(options.every),
      residuals_(options.residuals.value_or(model.constrained()) && model.constrained()),
      multipliers_(options.multipliers.value_or(model.constrained()) && model.constrained()),
      energy_(options.energy.value_or(model.conservative())), g_(Vector::Zero(model.constraints())),
      theta_(Vector::Zero(model.vibrations())) {
    if (every_ == 0) {
        throw std::invalid_argument("csv: --every must be at least 1");
    }
    if (energy_ && !model.has_potential()) {
        throw std::invalid_argument("csv: the model has no potential, so no energy column");
    }
    columns_.push_back("time");
    for (Eigen::Index i = 0; i < model.positions(); ++i) {
        columns_.push_back(model.position_name(i));
    }
    for (Eigen::Index i = 0; i < model.positions(); ++i) {
        columns_.push_back(model.velocity_name(i));
    }
    for (Eigen::Index i = 0; i < model.states(); ++i) {
        columns_.push_back(model.state_name(i));
    }
    if (residuals_) {
        for (Eigen::Index i = 0; i < model.constraints(); ++i) {
            columns_.push_back("residual(" + model.constraint_name(i) + ")");
        }
    }
    if (multipliers_) {
        for (Eigen::Index i = 0; i < model.constraints(); ++i) {
            columns_.push_back("lambda(" + model.constraint_name(i) + ")");
        }
    }
    if (energy_) {
        columns_.push_back("energy");
    }
    values_.reserve(columns_.size());
}

bool OutputRows::observe(const State& state) {
    last_written_ = observed_ % every_ == 0;
    ++observed_;
    if (last_written_) {
        fill(state);
    }
    return last_written_;
}

void OutputRows::event(const State& state) {
    fill(state);
    last_written_ = true;
}

bool OutputRows::finish(const State& state) {
    if (observed_ > 0 && !last_written_) {
        fill(state);
        last_written_ = true;
        return true;
    }
    return false;
}

void OutputRows::fill(const State& state) {
    values_.clear();
    values_.push_back(state.t);
    for (const Vector* part : {&state.q, &state.v, &state.x}) {
        for (Eigen::Index i = 0; i < part->size(); ++i) {
            values_.push_back((*part)[i]);
        }
    }
    if (residuals_) {
        model_->constraint(state.t, state.q, g_);
        for (Eigen::Index i = 0; i < g_.size(); ++i) {
            values_.push_back(g_[i]);
        }
    }
    if (multipliers_) {
        for (Eigen::Index i = 0; i < model_->constraints(); ++i) {
            values_.push_back(state.lambda[i]);
        }
    }
    if (energy_) {
        model_->phases(state.t, theta_);
        values_.push_back(model_->energy(state.t, state.q, state.v, theta_));
    }
}

} // namespace mdl::runtime
