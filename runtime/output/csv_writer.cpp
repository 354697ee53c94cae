#include "runtime/output/csv_writer.hpp"

#include <cerrno>
#include <charconv>
#include <stdexcept>
#include <system_error>

namespace mdl::runtime {

namespace {

// RFC 4180: quote a field holding a separator, a quote or a line break.
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

} // namespace

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
    : out_(&out), model_(&model), every_(options.every),
      residuals_(options.residuals.value_or(model.constrained()) && model.constrained()),
      multipliers_(options.multipliers.value_or(model.constrained()) && model.constrained()),
      energy_(options.energy.value_or(model.conservative())), events_(model.has_events()),
      g_(Vector::Zero(model.constraints())), theta_(Vector::Zero(model.vibrations())) {
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
    if (events_) {
        columns_.push_back("event");
    }
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
    last_written_ = observed_ % every_ == 0;
    ++observed_;
    if (last_written_) {
        write(state);
    }
}

void CsvWriter::event(const State& state, std::string_view name) {
    write(state, name);
    last_written_ = true;
}

void CsvWriter::finish(const State& state) {
    if (observed_ > 0 && !last_written_) {
        write(state);
        last_written_ = true;
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

void CsvWriter::write(const State& state, std::string_view event) {
    line_.clear();
    append(state.t);
    for (const Vector* part : {&state.q, &state.v, &state.x}) {
        for (Eigen::Index i = 0; i < part->size(); ++i) {
            append((*part)[i]);
        }
    }
    if (residuals_) {
        model_->constraint(state.q, g_);
        for (Eigen::Index i = 0; i < g_.size(); ++i) {
            append(g_[i]);
        }
    }
    if (multipliers_) {
        for (Eigen::Index i = 0; i < model_->constraints(); ++i) {
            append(state.lambda[i]);
        }
    }
    if (energy_) {
        model_->phases(state.t, theta_);
        append(model_->energy(state.t, state.q, state.v, theta_));
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
