#include "mdl/sweep.hpp"

#include "compiler/api/runtime_view.hpp"
#include "mdl/interruption.hpp"
#include "mdl/write_failure.hpp"
#include "runtime/numerical_failure.hpp"
#include "runtime/output/csv_writer.hpp"
#include "runtime/worker_threads.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <numbers>
#include <streambuf>

namespace mdl {

// The layout of a trajectory CSV (runtime/output/csv_writer.hpp) and the metrics of the
// summary, computed from the rows as they are written: every column of the last row, the
// largest |q_i|, the largest |residual|, the largest |E - E(first row)|.
struct SweepRunner::Metrics {
    std::size_t positions = 0, states = 0, constraints = 0;
    bool constrained = false, energy = false, events = false; // events: a last text column

    std::size_t rows = 0;
    std::vector<double> last;      // time, q, v, x of the last row
    std::vector<double> max_abs_q; // per position
    double max_abs_residual = 0, first_energy = 0, energy_drift = 0;

    std::size_t width() const {
        return 1 + 2 * positions + states + (constrained ? 2 * constraints : 0) + (energy ? 1 : 0) +
               (events ? 1 : 0);
    }

    void row(const std::vector<double>& cells) {
        const std::size_t n = positions;
        last.assign(cells.begin(), cells.begin() + static_cast<std::ptrdiff_t>(1 + 2 * n + states));
        max_abs_q.resize(n, 0.0);
        for (std::size_t i = 0; i < n; ++i) {
            max_abs_q[i] = std::max(max_abs_q[i], std::fabs(cells[1 + i]));
        }
        std::size_t at = 1 + 2 * n + states;
        if (constrained) {
            for (std::size_t i = 0; i < constraints; ++i) {
                max_abs_residual = std::max(max_abs_residual, std::fabs(cells[at + i]));
            }
        }
        if (energy) {
            double e = cells[width() - 1 - (events ? 1 : 0)];
            if (rows == 0) {
                first_energy = e;
            }
            energy_drift = std::max(energy_drift, std::fabs(e - first_energy));
        }
        ++rows;
    }
};

namespace {

using Clock = std::chrono::steady_clock;

// The stream the CSV writer writes to: passes the text on to the trajectory file (if any) and
// feeds each complete row, parsed back (the CSV's numbers read back exactly), to the metrics.
class RowScanner : public std::streambuf {
public:
    RowScanner(std::streambuf* sink, SweepRunner::Metrics& metrics)
        : sink_(sink), metrics_(metrics) {}

protected:
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        if (sink_ && sink_->sputn(s, n) != n) {
            return 0;
        }
        for (std::streamsize i = 0; i < n; ++i) {
            if (s[i] == '\n') {
                line_end();
            } else {
                line_ += s[i];
            }
        }
        return n;
    }
    // the CSV writer flushes each row: the row reaches the file then, so a trajectory is valid
    // up to its last row when the sweep is interrupted or the disk fills
    int sync() override { return sink_ ? sink_->pubsync() : 0; }
    int_type overflow(int_type c) override {
        if (traits_type::eq_int_type(c, traits_type::eof())) {
            return traits_type::not_eof(c);
        }
        char ch = traits_type::to_char_type(c);
        return xsputn(&ch, 1) == 1 ? c : traits_type::eof();
    }

private:
    void line_end() {
        if (header_) { // column names: the layout is known
            header_ = false;
            line_.clear();
            return;
        }
        cells_.clear();
        const char* p = line_.data();
        const char* end = p + line_.size();
        while (true) {
            const char* comma = std::find(p, end, ',');
            double value = std::nan("");
            std::from_chars(p, comma, value);
            cells_.push_back(value);
            if (comma == end) {
                break;
            }
            p = comma + 1;
        }
        if (cells_.size() == metrics_.width()) {
            metrics_.row(cells_);
        }
        line_.clear();
    }

    std::streambuf* sink_;
    SweepRunner::Metrics& metrics_;
    std::string line_;
    std::vector<double> cells_;
    bool header_ = true;
};

std::string number(double value) {
    return runtime::format_number(value);
}

} // namespace

std::string_view to_string(RunOutcome::Status status) {
    switch (status) {
    case RunOutcome::Status::ok:
        return "ok";
    case RunOutcome::Status::failed:
        return "failed";
    case RunOutcome::Status::error:
        return "error";
    case RunOutcome::Status::interrupted:
        return "interrupted";
    }
    return "error";
}

double event_setting(const CompiledModel& model, const std::string& text, std::string_view flag) {
    double value = 0.0;
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (error == std::errc() && stop == end) {
        if (!std::isfinite(value)) {
            throw std::invalid_argument(fmt::format("{}: '{}' is not finite", flag, text));
        }
        return value;
    }
    try {
        return model.parameter(text);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(fmt::format(
            "{}: '{}' is neither a number nor a Real parameter: {}", flag, text, e.what()));
    }
}

SweepRunner::SweepRunner(const CompiledModel& compiled, SweepGrid grid, SimulationSettings settings,
                         std::filesystem::path directory, bool trajectories, EventCollection events)
    : compiled_(compiled), grid_(std::move(grid)), settings_(std::move(settings)),
      directory_(std::move(directory)), trajectories_(trajectories), collect_(std::move(events)) {
    runtime::Model model = runtime_model(compiled_);
    positions_ = static_cast<std::size_t>(model.positions());
    states_ = static_cast<std::size_t>(model.states());
    constraints_ = static_cast<std::size_t>(model.constraints());
    constrained_ = model.constrained();
    energy_ = model.conservative(); // as the CSV writer decides; independent of the parameters
    events_ = model.has_events();
    if (const char* crash = std::getenv("MDL_INJECT_SWEEP_CRASH")) {
        char* end = nullptr;
        const unsigned long long run = std::strtoull(crash, &end, 10);
        if (end != crash && *end == '\0') {
            crash_run_ = static_cast<std::size_t>(run);
        }
    }
}

std::string SweepRunner::header() const {
    std::vector<std::string> columns = {"run"};
    for (const auto& axis : grid_.axes()) {
        columns.push_back(axis.name);
    }
    columns.push_back("status");
    columns.push_back("time");
    for (const auto& names :
         {compiled_.position_names(), compiled_.velocity_names(), compiled_.state_names()}) {
        columns.insert(columns.end(), names.begin(), names.end());
    }
    for (const auto& name : compiled_.position_names()) {
        columns.push_back("max_abs(" + name + ")");
    }
    if (constrained_) {
        columns.push_back("max_abs_residual");
    }
    if (energy_) {
        columns.push_back("energy_drift");
    }
    for (const char* c :
         {"steps", "rejected", "micro_steps", "force_evaluations", "rows", "seconds"}) {
        columns.push_back(c);
    }
    if (trajectories_) {
        columns.push_back("file");
    }
    columns.push_back("message");
    std::string line;
    for (const auto& c : columns) {
        line += (line.empty() ? "" : ",") + runtime::csv_field(c);
    }
    return line;
}

std::string SweepRunner::events_header() const {
    std::vector<std::string> columns = {"run"};
    for (const auto& axis : grid_.axes()) {
        columns.push_back(axis.name);
    }
    columns.push_back("event");
    columns.push_back("time");
    if (!collect_.period.empty()) {
        columns.push_back("cycle");
        columns.push_back("phase");
    }
    for (const auto& names :
         {compiled_.position_names(), compiled_.velocity_names(), compiled_.state_names()}) {
        columns.insert(columns.end(), names.begin(), names.end());
    }
    std::string line;
    for (const auto& c : columns) {
        line += (line.empty() ? "" : ",") + runtime::csv_field(c);
    }
    return line;
}

std::string SweepRunner::file_name(std::size_t index) const {
    const std::size_t digits = std::to_string(std::max<std::size_t>(size(), 2) - 1).size();
    return fmt::format("run_{:0{}}.csv", index, std::max<std::size_t>(digits, 3));
}

SweepRunner::Metrics SweepRunner::no_rows() const {
    Metrics metrics;
    metrics.positions = positions_;
    metrics.states = states_;
    metrics.constraints = constraints_;
    metrics.constrained = constrained_;
    metrics.energy = energy_;
    metrics.events = events_;
    return metrics;
}

RunOutcome SweepRunner::run(std::size_t index, std::atomic<double>* fraction) const {
    if (crash_run_ == index) {
        ::raise(SIGKILL);
    }
    const auto point = grid_.point(index);
    Metrics metrics = no_rows();
    RunOutcome outcome;
    std::optional<SimulationStatistics> result;
    auto began = Clock::now();
    std::ofstream file;
    const std::filesystem::path path = directory_ / file_name(index);
    if (trajectories_) {
        errno = 0;
        file.open(path, std::ios::binary);
    }
    if (trajectories_ && !file) {
        outcome.status = RunOutcome::Status::error;
        outcome.output_failed = true;
        outcome.message =
            fmt::format("cannot write '{}': {}", path.string(), runtime::OutputError(errno).what());
    } else {
        RowScanner scanner(trajectories_ ? file.rdbuf() : nullptr, metrics);
        std::optional<std::size_t> complete_bytes;
        std::ostream out(&scanner);
        try {
            CompiledModel model = compiled_.with_parameters(point);
            StepObserver progress = [](double) {
                return interruption_signal() == 0;
            };
            if (fraction) {
                double stop = settings_.stop.value_or(model.number_setting("StopTime", 1.0));
                progress = [fraction, stop, start = std::optional<double>()](double t) mutable {
                    if (!start) {
                        start = t;
                    }
                    double f = stop > *start ? (t - *start) / (stop - *start) : 1.0;
                    fraction->store(std::clamp(f, 0.0, 1.0), std::memory_order_relaxed);
                    return interruption_signal() == 0;
                };
            }
            const OutputLayout layout = output_layout(model);
            runtime::CsvWriter csv(out, layout.columns, layout.events);
            double last_row = 0.0;
            // events.csv: the first of the two rows of each event (before its reinits)
            const double after = collect_.after.empty()
                                     ? -HUGE_VAL
                                     : event_setting(model, collect_.after, "--events-after");
            const double period = collect_.period.empty()
                                      ? 0.0
                                      : event_setting(model, collect_.period, "--event-period");
            if (!collect_.period.empty() && !(period > 0.0)) {
                throw std::invalid_argument(fmt::format("--event-period: {} = {} is not positive",
                                                        collect_.period, number(period)));
            }
            std::string prefix = std::to_string(index);
            for (const auto& [name, value] : point) {
                prefix += "," + number(value);
            }
            std::size_t event_rows = 0;
            const auto collect = [&](const OutputRow& r) {
                if (++event_rows % 2 == 0 || r.t < after || r.event.starts_with("release: ")) {
                    return;
                }
                std::string line =
                    prefix + "," + runtime::csv_field(std::string(r.event)) + "," + number(r.t);
                if (period > 0.0) {
                    const double cycle = std::floor(r.t / period);
                    const double phase = 2.0 * std::numbers::pi * (r.t / period - cycle);
                    line += "," + number(cycle) + "," + number(phase);
                }
                for (const auto values : {r.positions, r.velocities, r.states}) {
                    for (double v : values) {
                        line += "," + number(v);
                    }
                }
                outcome.events += line + "\n";
            };
            result = simulate(
                model, settings_,
                [&](const OutputRow& r) {
                    csv.write_row(r.values, r.event);
                    last_row = r.t;
                    if (collect_.enabled && !r.event.empty()) {
                        collect(r);
                    }
                    return true;
                },
                progress);
            for (const std::string& note : result->notes) {
                outcome.notes += note + '\n';
            }
            if (result->stopped) {
                outcome.status = RunOutcome::Status::interrupted;
                outcome.message = fmt::format("interrupted at t = {} by {}", number(last_row),
                                              signal_name(interruption_signal()));
                result.reset();
            }
        } catch (const NumericalFailure& e) {
            outcome.status = RunOutcome::Status::failed;
            outcome.message = e.what();
        } catch (const runtime::OutputError& e) {
            outcome.status = RunOutcome::Status::error;
            outcome.output_failed = true;
            outcome.message = WriteFailure(path.string(), e.what()).what();
            complete_bytes = e.complete_bytes();
        } catch (const std::exception& e) { // bad settings for this point
            outcome.status = RunOutcome::Status::error;
            outcome.message = e.what();
        } catch (...) { // nothing may escape a worker thread (std::terminate)
            outcome.status = RunOutcome::Status::error;
            outcome.message = "an unknown exception (please report this)";
        }
        if (trajectories_) {
            errno = 0;
            file.close();
            std::error_code ignored; // the part of a line the system took (csv_writer.hpp)
            if (complete_bytes && std::filesystem::is_regular_file(path, ignored)) {
                std::filesystem::resize_file(path, *complete_bytes, ignored);
            }
            if (!file && !outcome.output_failed) {
                outcome.status = RunOutcome::Status::error;
                outcome.output_failed = true;
                outcome.message =
                    WriteFailure(path.string(), runtime::OutputError(errno).what()).what();
            }
        }
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - began).count();
    outcome.row = row(index, outcome, metrics, result ? &*result : nullptr, seconds, true);
    return outcome;
}

RunOutcome SweepRunner::not_started(std::size_t index, int signal) const {
    RunOutcome outcome;
    outcome.status = RunOutcome::Status::interrupted;
    outcome.message =
        fmt::format("not started: the sweep was interrupted by {}", signal_name(signal));
    Metrics none;
    outcome.row = row(index, outcome, none, nullptr, 0.0, false);
    return outcome;
}

RunOutcome SweepRunner::lost(std::size_t index, RunOutcome::Status status, std::string message,
                             double seconds) const {
    RunOutcome outcome;
    outcome.status = status;
    outcome.message = std::move(message);
    Metrics metrics = no_rows();
    if (trajectories_) {
        const std::filesystem::path path = directory_ / file_name(index);
        std::ifstream in(path, std::ios::binary);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        in.close();
        // a process killed mid-write can leave half a line: the file keeps whole rows only
        const std::size_t complete =
            text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
        if (complete < text.size()) {
            std::error_code ignored;
            std::filesystem::resize_file(path, complete, ignored);
            text.resize(complete);
        }
        RowScanner scanner(nullptr, metrics);
        scanner.sputn(text.data(), static_cast<std::streamsize>(text.size()));
    }
    outcome.row = row(index, outcome, metrics, nullptr, seconds, true);
    return outcome;
}

std::string SweepRunner::row(std::size_t index, const RunOutcome& outcome, const Metrics& metrics,
                             const SimulationStatistics* result, double seconds,
                             bool started) const {
    const auto point = grid_.point(index);
    std::string row;
    row = std::to_string(index);
    for (const auto& [name, value] : point) {
        row += "," + number(value);
    }
    row += ",";
    row += to_string(outcome.status);
    // the last row's time, q, v, x; empty cells when no row was written
    const std::size_t finals = 1 + 2 * positions_ + states_;
    for (std::size_t i = 0; i < finals; ++i) {
        row += "," + (metrics.rows ? number(metrics.last[i]) : std::string());
    }
    for (std::size_t i = 0; i < positions_; ++i) {
        row += "," + (metrics.rows ? number(metrics.max_abs_q[i]) : std::string());
    }
    if (constrained_) {
        row += "," + (metrics.rows ? number(metrics.max_abs_residual) : std::string());
    }
    if (energy_) {
        row += "," + (metrics.rows ? number(metrics.energy_drift) : std::string());
    }
    if (result) {
        row += fmt::format(",{},{},{},{}", result->steps, result->rejected, result->micro_steps,
                           result->force_evaluations);
    } else {
        row += ",,,,";
    }
    row += fmt::format(",{},{:.6f}", metrics.rows, seconds);
    if (trajectories_) {
        row += "," + (started ? file_name(index) : std::string());
    }
    row += "," + runtime::csv_field(outcome.message);
    return row;
}

SweepProgress::SweepProgress(std::size_t total, std::size_t slots, Show show)
    : total_(total), fractions_(std::make_unique<std::atomic<double>[]>(slots)), slots_(slots),
      show_(std::move(show)), began_(Clock::now()), last_(began_) {
    for (std::size_t i = 0; i < slots_; ++i) {
        fractions_[i].store(0.0);
    }
}

void SweepProgress::finished(RunOutcome::Status status) {
    if (status != RunOutcome::Status::ok) {
        ++unsuccessful_;
    }
    ++completed_;
}

void SweepProgress::draw() {
    if (!show_) {
        return;
    }
    auto now = Clock::now();
    if (now - began_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(100)) {
        return;
    }
    last_ = now;
    double runs = static_cast<double>(completed_.load());
    for (std::size_t i = 0; i < slots_; ++i) {
        runs += fractions_[i].load(std::memory_order_relaxed);
    }
    State state;
    state.fraction = total_ ? std::clamp(runs / static_cast<double>(total_), 0.0, 1.0) : 1.0;
    state.completed = completed_.load();
    state.total = total_;
    state.unsuccessful = unsuccessful_.load();
    state.seconds = std::chrono::duration<double>(now - began_).count();
    show_(state);
    shown_ = true;
}

void SweepProgress::done() {
    if (shown_) {
        State state;
        state.fraction = 1.0;
        state.completed = completed_.load();
        state.total = total_;
        state.unsuccessful = unsuccessful_.load();
        state.done = true;
        show_(state);
        shown_ = false;
    }
}

void run_on_threads(const SweepRunner& runner, std::size_t jobs, const NextRun& next,
                    const RunDone& done, SweepProgress& progress, const std::function<void()>& idle,
                    std::chrono::microseconds poll) {
    const auto worker = [&](std::size_t k) {
        while (std::optional<std::size_t> index = next()) {
            std::atomic<double>* fraction = progress.slot(k);
            fraction->store(0.0);
            RunOutcome outcome = runner.run(*index, fraction);
            RunOutcome::Status status = outcome.status;
            done(*index, std::move(outcome));
            progress.finished(status);
            fraction->store(0.0);
        }
    };
    runtime::run_workers(
        jobs, worker,
        [&] {
            if (idle) {
                idle();
            }
            progress.draw();
        },
        poll);
}

} // namespace mdl
