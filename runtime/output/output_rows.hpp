// The output rows of a run: which observed states become rows (every N-th, and always the
// last) and the numbers of each row, in the order of its columns
//   time, <positions>, der(<positions>), <states>, residual(<constraint>)...,
//   lambda(<constraint>)..., energy
// (residuals and multipliers when the model is constrained, energy when it is conservative,
// unless chosen otherwise). The CSV writer formats these rows; the simulation API hands the
// same numbers to a host program, so both carry the same doubles.
#pragma once

#include "runtime/model.hpp"
#include "runtime/state.hpp"

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mdl::runtime {

struct OutputOptions {
    std::size_t every = 1; // a row of every N-th observed state (and always of the last one)
    std::optional<bool> residuals = std::nullopt;   // default: when constrained
    std::optional<bool> multipliers = std::nullopt; // default: when constrained
    std::optional<bool> energy = std::nullopt;      // default: when conservative
};

class OutputRows {
public:
    // Throws std::invalid_argument for every == 0 or energy requested without a potential.
    OutputRows(const Model& model, OutputOptions options = {});
    OutputRows(const Model&&, OutputOptions = {}) = delete; // keeps a pointer

    const std::vector<std::string>& columns() const { return columns_; }
    bool residuals() const { return residuals_; }
    bool multipliers() const { return multipliers_; }
    bool energy() const { return energy_; }

    // Whether `state` makes a row (every N-th observed state); its numbers are then in
    // values() until the next call.
    bool observe(const State& state);
    // A row at an event (always made); its numbers are then in values().
    void event(const State& state);
    // Whether the final state `state` still makes a row (it was not the last row already).
    bool finish(const State& state);
    std::span<const double> values() const { return values_; }

private:
    void fill(const State& state);

    const Model* model_;
    std::size_t every_;
    bool residuals_, multipliers_, energy_;
    std::vector<std::string> columns_;
    std::vector<double> values_;
    Vector g_, theta_;
    std::size_t observed_ = 0;
    bool last_written_ = false;
};

} // namespace mdl::runtime
