// mdl::sweep (mdl/sweep.hpp): the checks before the runs, the runs on this process's workers or
// across the ranks of a SweepDistribution, and the summary and events files after them.
#include "mdl/sweep.hpp"

#include "local_runs.hpp"
#include "mdl/interruption.hpp"
#include "mdl/write_failure.hpp"
#include "runtime/output/csv_writer.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>

namespace mdl {

namespace {

namespace fs = std::filesystem;

// The runs at once by default: the hardware threads, shared by the MPI ranks of a node.
std::size_t default_jobs() {
    std::size_t hardware = std::max(1u, std::thread::hardware_concurrency());
    long local = 1;
    for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"}) {
        if (const char* value = std::getenv(name)) {
            char* end = nullptr;
            const long number = std::strtol(value, &end, 10);
            if (end != value && *end == '\0') {
                local = number;
                break;
            }
        }
    }
    return std::max<std::size_t>(1, hardware / static_cast<std::size_t>(std::max(1L, local)));
}

// Each axis a Real parameter of the model ("-p name: ..." otherwise).
void check_axes(const CompiledModel& compiled, const SweepGrid& grid) {
    for (const auto& axis : grid.axes()) {
        for (const auto& [name, value] : compiled.structural_parameters()) {
            if (name == axis.name) {
                throw std::invalid_argument(
                    fmt::format("-p {}: '{}' is an Integer parameter (= {}), fixed when the "
                                "model is compiled; a sweep varies Real parameters (run one "
                                "sweep per value of '{}')",
                                axis.name, name, value, name));
            }
        }
        try {
            (void)compiled.parameter(axis.name);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(fmt::format("-p {}: {}", axis.name, e.what()));
        }
    }
}

// --events-after and --event-period imply --events; both name numbers or Real parameters.
EventCollection checked_events(const CompiledModel& compiled, EventCollection events) {
    if (!events.enabled && (!events.after.empty() || !events.period.empty())) {
        events.enabled = true;
    }
    if (events.enabled && compiled.events().empty()) {
        throw std::invalid_argument(fmt::format(
            "--events: {} has no events (when-clauses, docs/events.md)", compiled.name()));
    }
    if (!events.after.empty()) {
        (void)event_setting(compiled, events.after, "--events-after");
    }
    if (!events.period.empty() &&
        !(event_setting(compiled, events.period, "--event-period") > 0.0)) {
        throw std::invalid_argument(
            fmt::format("--event-period: {} is not positive", events.period));
    }
    return events;
}

// summary.csv or events.csv, a header and then the rows of each run: `rows` gives a run's
// lines (none, one or several, each ending '\n'). When a write fails, the file is cut back to
// its last complete row (a full disk must not leave half a row) and the failure names the file.
void write_rows(const fs::path& path, const std::string& header,
                const std::vector<RunOutcome>& outcomes,
                const std::function<std::string(const RunOutcome&)>& rows) {
    errno = 0;
    std::ofstream out(path, std::ios::binary);
    if (!out) {
        throw WriteFailure(path.string(), runtime::OutputError(errno).what());
    }
    std::uintmax_t complete = 0;
    const auto line = [&](const std::string& text) {
        errno = 0;
        out << text;
        out.flush();
        if (!out) {
            const int error = errno;
            out.close();
            std::error_code ignored;
            if (fs::is_regular_file(path, ignored)) {
                fs::resize_file(path, complete, ignored);
            }
            throw WriteFailure(path.string(), runtime::OutputError(error).what());
        }
        complete += text.size();
    };
    line(header + '\n');
    for (const RunOutcome& r : outcomes) {
        std::string text = rows(r);
        if (!text.empty()) {
            line(text);
        }
    }
}

// The runs on this process's workers: every outcome in grid order, the runs an interruption
// kept from starting marked so.
std::vector<RunOutcome> run_here(const SweepRunner& runner, const SweepOptions& options,
                                 std::size_t jobs, SweepProgress& progress) {
    std::vector<std::optional<RunOutcome>> results =
        run_strided(runner, options.isolation, jobs, 0, 1, progress);
    std::vector<RunOutcome> outcomes;
    outcomes.reserve(results.size());
    for (std::size_t i = 0; i < results.size(); ++i) {
        outcomes.push_back(results[i] ? std::move(*results[i])
                                      : runner.not_started(i, interruption_signal()));
    }
    return outcomes;
}

} // namespace

std::size_t SweepReport::count(RunOutcome::Status status) const {
    return static_cast<std::size_t>(std::count_if(
        outcomes.begin(), outcomes.end(), [&](const RunOutcome& r) { return r.status == status; }));
}

std::size_t SweepReport::output_failures() const {
    return static_cast<std::size_t>(std::count_if(
        outcomes.begin(), outcomes.end(), [](const RunOutcome& r) { return r.output_failed; }));
}

std::string describe_point(const SweepGrid& grid, std::size_t index) {
    std::string text;
    for (const auto& [name, value] : grid.point(index)) {
        text += fmt::format("{}{} = {}", text.empty() ? "" : ", ", name, value);
    }
    return text;
}

SweepReport sweep(const CompiledModel& compiled, const SweepGrid& grid,
                  const SimulationSettings& settings, const SweepOptions& options) {
    validate_settings(settings);
    check_axes(compiled, grid);
    SweepReport report;
    report.jobs =
        std::clamp<std::size_t>(options.jobs ? options.jobs : default_jobs(), 1, grid.size());
    SweepDistribution* const mpi = options.distribution;
    report.root = !mpi || mpi->rank() == 0;
    report.ranks = mpi ? mpi->size() : 1;

    std::string directory_error;
    if (report.root) {
        std::error_code ec;
        fs::create_directories(options.output, ec);
        if (ec || !fs::is_directory(options.output)) {
            directory_error = fmt::format("--output: cannot create the directory '{}'{}",
                                          options.output.string(), ec ? ": " + ec.message() : "");
        }
    }
    const bool directory_ok =
        mpi ? mpi->broadcast(directory_error.empty()) : directory_error.empty();
    if (!directory_ok) {
        if (report.root) {
            throw std::invalid_argument(directory_error);
        }
        return report;
    }
    const EventCollection events = checked_events(compiled, options.events);
    SweepRunner runner(compiled, grid, settings, options.output, options.trajectories, events);
    SweepProgress progress(grid.size(), report.jobs, report.root ? options.progress : nullptr);
    if (mpi) {
        report.outcomes = mpi->run(runner, options.isolation, report.jobs, progress);
    } else {
        report.outcomes = run_here(runner, options, report.jobs, progress);
    }
    progress.done();
    report.interrupted_by = interruption_signal();
    if (mpi && report.interrupted_by) {
        report.silent_ranks = mpi->silent_ranks();
    }
    if (!report.root) {
        return report;
    }
    report.summary = options.output / "summary.csv";
    write_rows(report.summary, runner.header(), report.outcomes,
               [](const RunOutcome& r) { return r.row + '\n'; });
    if (events.enabled) {
        write_rows(options.output / "events.csv", runner.events_header(), report.outcomes,
                   [](const RunOutcome& r) { return r.events; });
    }
    if (report.count(RunOutcome::Status::error) == report.outcomes.size()) {
        // a bad setting or a full disk, not one bad point
        if (report.outcomes[0].output_failed) {
            throw WriteFailure(report.outcomes[0].message);
        }
        throw std::invalid_argument(fmt::format("every run failed to start; run {} ({}): {}", 0,
                                                describe_point(grid, 0),
                                                report.outcomes[0].message));
    }
    return report;
}

} // namespace mdl
