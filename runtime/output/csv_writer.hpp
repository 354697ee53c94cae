// A streaming CSV observer: one header line, then one line per observed state
//   time, <positions>, der(<positions>), <states>, residual(<constraint>)...,
//   lambda(<constraint>)..., energy
// (residuals and multipliers when the model is constrained, energy when it is conservative,
// unless chosen otherwise). Each line is formatted completely, written with one call and
// flushed, so the file stays a valid CSV up to the last good state when a run fails or is
// killed. Numbers are the shortest text that reads back to the same double.
#pragma once

#include "runtime/model.hpp"
#include "runtime/state.hpp"

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace mdl::runtime {

struct CsvOptions {
    std::size_t every = 1; // write every N-th observed state (and always the last one)
    std::optional<bool> residuals = std::nullopt;   // default: when constrained
    std::optional<bool> multipliers = std::nullopt; // default: when constrained
    std::optional<bool> energy = std::nullopt;      // default: when conservative
};

class CsvWriter {
public:
    // Writes the header at once. Throws std::invalid_argument for every == 0 or energy
    // requested without a potential; std::runtime_error when the stream fails.
    CsvWriter(std::ostream& out, const Model& model, CsvOptions options = {});
    CsvWriter(std::ostream&, const Model&&, CsvOptions = {}) = delete; // keeps a pointer

    void operator()(const State& state);
    // The final state, written unless it was the last row already.
    void finish(const State& state);

    const std::vector<std::string>& columns() const { return columns_; }
    std::size_t rows() const { return rows_; }

private:
    void write(const State& state);
    void append(double value);

    std::ostream* out_;
    const Model* model_;
    std::size_t every_;
    bool residuals_, multipliers_, energy_;
    std::vector<std::string> columns_;
    std::string line_;
    Vector g_, theta_;
    std::size_t observed_ = 0;
    std::size_t rows_ = 0;
    bool last_written_ = false;
};

} // namespace mdl::runtime
