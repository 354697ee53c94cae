#include "runtime/output/csv_writer.hpp"

#include <cerrno>
#include <charconv>
#include <stdexcept>
#include <system_error>

namespace mdl::runtime {

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) {
        return text;
    }
    std::string quoted = "\"";
    for (char c : text) {
        if (c == '"') {
            quoted += '"';
        }
        quoted += c;
    }
    return quoted + "\"";
}

OutputError::OutputError(int error_number, std::size_t complete_bytes)
    : std::runtime_error(error_number != 0 ? std::generic_category().message(error_number)
                                           : std::string("the stream reported a write error")),
      error_number_(error_number), complete_bytes_(complete_bytes) {}

// Writes `text` and flushes, so a row is on disk (or in the pipe) once written; errno is read
// right after the failed flush, which is where the system call that failed set it.
void CsvWriter::write_flushed(const std::string& text) {
    errno = 0;
    out_->write(text.data(), static_cast<std::streamsize>(text.size()));
    out_->flush();
    if (!*out_) {
        throw OutputError(errno, bytes_);
    }
    bytes_ += text.size();
}

CsvWriter::CsvWriter(std::ostream& out, const Model& model, CsvOptions options)
    : out_(&out), rows_of_states_(std::in_place, model, options),
      columns_(rows_of_states_->columns()), events_(model.has_events()) {
    if (events_) {
        columns_.push_back("event");
    }
    write_header();
}

CsvWriter::CsvWriter(std::ostream& out, const std::vector<std::string>& columns, bool event_column)
    : out_(&out), columns_(columns), events_(event_column) {
    if (events_) {
        columns_.push_back("event");
    }
    write_header();
}

void CsvWriter::write_header() {
    std::string header;
    for (std::size_t i = 0; i < columns_.size(); ++i) {
        if (i > 0) {
            header += ',';
        }
        header += csv_field(columns_[i]); // (not "," + field: GCC 12 -O3 -Wrestrict false alarm)
    }
    header += '\n';
    write_flushed(header);
    line_.reserve(columns_.size() * 26);
}

void CsvWriter::operator()(const State& state) {
    if (rows_of_states_->observe(state)) {
        write_row(rows_of_states_->values());
    }
}

void CsvWriter::event(const State& state, std::string_view name) {
    rows_of_states_->event(state);
    write_row(rows_of_states_->values(), name);
}

void CsvWriter::finish(const State& state) {
    if (rows_of_states_->finish(state)) {
        write_row(rows_of_states_->values());
    }
}

void CsvWriter::append(double value) {
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    if (!line_.empty()) {
        line_ += ',';
    }
    line_.append(buffer, result.ptr);
}

void CsvWriter::write_row(std::span<const double> values, std::string_view event) {
    line_.clear();
    for (double value : values) {
        append(value);
    }
    if (events_) {
        line_ += ',';
        line_ += csv_field(std::string(event));
    }
    line_ += '\n';
    write_flushed(line_);
    ++rows_;
}

} // namespace mdl::runtime
