// A streaming CSV observer: one header line, then one line per output row (output_rows.hpp:
// every N-th observed state and the last, columns time, positions, velocities, states,
// residuals, multipliers, energy), and for a model with events (docs/events.md) a last column
// `event`: empty, or on the two rows at an event's time, before and after its reinits, the
// event's name. Each line is formatted completely, written with one call and
// flushed, so the file stays a valid CSV up to the last good state when a run fails or is
// killed. Numbers are the shortest text that reads back to the same double.
#pragma once

#include "runtime/model.hpp"
#include "runtime/output/output_rows.hpp"
#include "runtime/state.hpp"

#include <cstddef>
#include <optional>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mdl::runtime {

// A CSV field as RFC 4180 writes it: quoted when it holds a separator, a quote or a line
// break, a quote inside doubled. Every CSV mdl writes (trajectories, sweeps' summaries, mode
// and chart tables) names its columns and events with it.
std::string csv_field(const std::string& text);

// A write to the output failed (disk full, file size limit, ...). what() is the system's
// reason ("No space left on device"); the caller, who knows the file's name, says where.
// complete_bytes: the output's length up to the last whole line; the system may have taken
// part of the failed line, which a caller truncates away to keep the file a valid CSV.
class OutputError : public std::runtime_error {
public:
    explicit OutputError(int error_number, std::size_t complete_bytes = 0);
    int error_number() const { return error_number_; }
    std::size_t complete_bytes() const { return complete_bytes_; }

private:
    int error_number_;
    std::size_t complete_bytes_;
};

using CsvOptions = OutputOptions;

class CsvWriter {
public:
    // Writes the header at once. Throws std::invalid_argument for every == 0 or energy
    // requested without a potential; OutputError when the stream fails (here or in any row).
    CsvWriter(std::ostream& out, const Model& model, CsvOptions options = {});
    CsvWriter(std::ostream&, const Model&&, CsvOptions = {}) = delete; // keeps a pointer
    // A writer of rows chosen by the caller (write_row), under the header `columns` and, with
    // event_column, a last column `event`.
    CsvWriter(std::ostream& out, const std::vector<std::string>& columns,
              bool event_column = false);

    void operator()(const State& state);
    // A row at an event, always written, with the event's name in the `event` column.
    void event(const State& state, std::string_view name);
    // The final state, written unless it was the last row already.
    void finish(const State& state);

    // One row of numbers, in the columns' order (the first constructor's operator() and
    // finish call it).
    void write_row(std::span<const double> values, std::string_view event = {});

    const std::vector<std::string>& columns() const { return columns_; }
    std::size_t rows() const { return rows_; }
    std::size_t bytes() const { return bytes_; } // header and rows written

private:
    void write_header();
    void write_flushed(const std::string& text);
    void append(double value);

    std::ostream* out_;
    std::optional<OutputRows> rows_of_states_; // the first constructor's
    std::vector<std::string> columns_;
    bool events_ = false; // the last column is `event`
    std::string line_;
    std::size_t rows_ = 0;
    std::size_t bytes_ = 0;
};

} // namespace mdl::runtime
