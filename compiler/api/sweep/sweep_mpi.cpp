#include "mdl/sweep_mpi.hpp"

#include "local_runs.hpp"
#include "mdl/interruption.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <fmt/format.h>
#include <map>
#include <mpi.h>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace mdl {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int tag = 1011;

// One outcome as bytes: "index status output_failed message_size row_size events_size
// notes_size\n" message row events notes.
std::string serialize(std::size_t index, const RunOutcome& o) {
    return fmt::format("{} {} {} {} {} {} {}\n", index, static_cast<int>(o.status),
                       o.output_failed ? 1 : 0, o.message.size(), o.row.size(), o.events.size(),
                       o.notes.size()) +
           o.message + o.row + o.events + o.notes;
}

// Appends the outcomes of `bytes` (serialize's, concatenated) to `out`; returns their indices.
std::vector<std::size_t> deserialize(const std::string& bytes,
                                     std::vector<std::optional<RunOutcome>>& out) {
    std::vector<std::size_t> indices;
    std::size_t at = 0;
    while (at < bytes.size()) {
        std::size_t eol = bytes.find('\n', at);
        std::istringstream head(bytes.substr(at, eol - at));
        std::size_t index = 0, message = 0, row = 0, events = 0, notes = 0;
        int status = 0, output_failed = 0;
        if (eol == std::string::npos ||
            !(head >> index >> status >> output_failed >> message >> row >> events >> notes) ||
            index >= out.size() || eol + 1 + message + row + events + notes > bytes.size()) {
            throw std::runtime_error("mdl sweep: garbled result message between MPI ranks");
        }
        RunOutcome o;
        o.status = static_cast<RunOutcome::Status>(status);
        o.output_failed = output_failed != 0;
        o.message = bytes.substr(eol + 1, message);
        o.row = bytes.substr(eol + 1 + message, row);
        o.events = bytes.substr(eol + 1 + message + row, events);
        o.notes = bytes.substr(eol + 1 + message + row + events, notes);
        out[index] = std::move(o);
        indices.push_back(index);
        at = eol + 1 + message + row + events + notes;
    }
    return indices;
}

void send(const std::string& bytes, int to) {
    MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_CHAR, to, tag, MPI_COMM_WORLD);
}

// The next message from `from` (MPI_ANY_SOURCE: anyone) if one has arrived, else nullopt.
std::optional<std::string> try_receive(int from, int* source = nullptr) {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(from, tag, MPI_COMM_WORLD, &flag, &status);
    if (!flag) {
        return std::nullopt;
    }
    int count = 0;
    MPI_Get_count(&status, MPI_CHAR, &count);
    std::string bytes(static_cast<std::size_t>(count), '\0');
    MPI_Recv(bytes.data(), count, MPI_CHAR, status.MPI_SOURCE, tag, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    if (source) {
        *source = status.MPI_SOURCE;
    }
    return bytes;
}

// Waits for a message politely: Open MPI's blocking calls spin on a core, which the ranks'
// workers need. Once the sweep is interrupted, waits at most twice
// give_up_after_interruption (the sender may have died): nullopt then.
std::optional<std::string> receive(int from, int* source = nullptr) {
    std::optional<Clock::time_point> give_up;
    while (true) {
        if (auto bytes = try_receive(from, source)) {
            return bytes;
        }
        if (interruption_signal() != 0) {
            const auto now = Clock::now();
            if (!give_up) {
                give_up = now + 2 * give_up_after_interruption;
            } else if (now > *give_up) {
                return std::nullopt;
            }
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
}

// Whether rank 0 should stop waiting for the other ranks: interrupted, and waited long enough.
class Patience {
public:
    bool exhausted() {
        if (interruption_signal() == 0) {
            return false;
        }
        const auto now = Clock::now();
        if (!give_up_) {
            give_up_ = now + give_up_after_interruption;
        }
        return now > *give_up_;
    }

private:
    std::optional<Clock::time_point> give_up_;
};

} // namespace

MpiSweep::MpiSweep(Distribution distribution) : distribution_(distribution) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    threads_may_call_mpi_ = provided >= MPI_THREAD_SERIALIZED;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSweep::~MpiSweep() {
    // MPI_Finalize waits for every rank, also one that died: when interrupted (mpirun ending
    // the job, or Ctrl-C), each rank leaves without it once its rows are sent or written.
    if (interruption_signal() == 0) {
        MPI_Finalize();
    }
}

bool MpiSweep::broadcast(bool ok) const {
    int value = ok ? 1 : 0;
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return value != 0;
}

std::vector<RunOutcome> MpiSweep::run(const SweepRunner& runner, Isolation isolation,
                                      std::size_t jobs, SweepProgress& progress) {
    isolation_ = isolation;
    return distribution_ == Distribution::dynamic ? run_dynamic(runner, jobs, progress)
                                                  : run_static(runner, jobs, progress);
}

void MpiSweep::execute(const SweepRunner& runner, std::size_t jobs, const NextRun& next,
                       const RunDone& done, SweepProgress& progress,
                       const std::function<void()>& idle) {
    // rank 0 serving the other ranks (`idle`) answers within a millisecond
    run_locally(runner, isolation_, jobs, next, done, progress, idle,
                fmt::format(" on rank {}", rank_));
}

std::vector<RunOutcome> MpiSweep::complete(const SweepRunner& runner,
                                           std::vector<std::optional<RunOutcome>> results,
                                           const std::vector<int>& owner) {
    std::map<int, std::vector<std::size_t>> unreported;
    std::vector<RunOutcome> out;
    out.reserve(results.size());
    for (std::size_t i = 0; i < results.size(); ++i) {
        if (results[i]) {
            out.push_back(std::move(*results[i]));
            continue;
        }
        const int signal = interruption_signal();
        if (signal == 0) {
            throw std::runtime_error(fmt::format("mdl sweep: no result for run {}", i));
        }
        if (owner[i] < 0) {
            out.push_back(runner.not_started(i, signal));
            continue;
        }
        unreported[owner[i]].push_back(i);
        out.push_back(runner.lost(
            i, RunOutcome::Status::interrupted,
            fmt::format("interrupted by {}: rank {}, which had the run, did not report it (under "
                        "mpirun, a rank that died: see mpirun's message)",
                        signal_name(signal), owner[i]),
            0.0));
    }
    for (const auto& [rank, runs] : unreported) {
        std::string list;
        for (std::size_t i : runs) {
            list += (list.empty() ? "" : ", ") + std::to_string(i);
        }
        silent_.push_back(
            fmt::format("rank {} (run{} {})", rank, runs.size() == 1 ? "" : "s", list));
    }
    return out;
}

std::vector<RunOutcome> MpiSweep::run_static(const SweepRunner& runner, std::size_t jobs,
                                             SweepProgress& progress) {
    const std::size_t n = runner.size(), ranks = static_cast<std::size_t>(size_);
    std::vector<std::optional<RunOutcome>> results =
        run_strided(runner, isolation_, jobs, static_cast<std::size_t>(rank_), ranks, progress,
                    fmt::format(" on rank {}", rank_));
    if (rank_ != 0) {
        std::string bytes;
        for (std::size_t i = 0; i < n; ++i) {
            if (results[i]) {
                bytes += serialize(i, *results[i]);
            }
        }
        send(bytes, 0);
        return {};
    }
    std::vector<bool> reported(ranks, false);
    reported[0] = true;
    int waiting = size_ - 1;
    Patience patience;
    while (waiting > 0 && !patience.exhausted()) {
        int source = 0;
        if (auto bytes = try_receive(MPI_ANY_SOURCE, &source)) {
            deserialize(*bytes, results);
            reported[static_cast<std::size_t>(source)] = true;
            --waiting;
            continue;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    std::vector<int> owner(n, -1);
    for (std::size_t i = 0; i < n; ++i) {
        if (!reported[i % ranks]) {
            owner[i] = static_cast<int>(i % ranks);
        }
    }
    return complete(runner, std::move(results), owner);
}

// Messages to rank 0: "Q" asks for a run, "R" + serialize(...) returns one, "D" says the rank
// has finished; rank 0 answers each "Q" with the index of the next run or "-1" when there is
// none left.
std::vector<RunOutcome> MpiSweep::run_dynamic(const SweepRunner& runner, std::size_t jobs,
                                              SweepProgress& progress) {
    const std::size_t n = runner.size();
    if (rank_ != 0) {
        const bool main_thread_only = isolation_ == Isolation::threads && !threads_may_call_mpi_;
        if (main_thread_only) {
            jobs = 1; // one thread, which may call MPI: the main thread waits meanwhile
        }
        std::mutex mpi; // MPI_THREAD_SERIALIZED: one call at a time
        NextRun next = [&]() -> std::optional<std::size_t> {
            std::lock_guard lock(mpi);
            if (interruption_signal() != 0) {
                return std::nullopt;
            }
            send("Q", 0);
            const std::optional<std::string> answer = receive(0);
            const long long index = answer ? std::stoll(*answer) : -1;
            return index >= 0 ? std::optional(static_cast<std::size_t>(index)) : std::nullopt;
        };
        RunDone done = [&](std::size_t index, RunOutcome outcome) {
            std::lock_guard lock(mpi);
            send("R" + serialize(index, outcome), 0);
        };
        if (main_thread_only) {
            // without MPI_THREAD_SERIALIZED, the thread calling MPI must be the main thread
            while (auto index = next()) {
                std::atomic<double>* fraction = progress.slot(0);
                RunOutcome outcome = runner.run(*index, fraction);
                RunOutcome::Status status = outcome.status;
                done(*index, std::move(outcome));
                progress.finished(status);
            }
        } else {
            execute(runner, jobs, next, done, progress, {});
        }
        send("D", 0);
        return {};
    }

    std::atomic<std::size_t> counter{0};
    std::vector<std::optional<RunOutcome>> results(n);
    std::vector<int> owner(n, -1); // the rank a run was handed to, when not rank 0
    int finished = 1;              // ranks that have said "D"; rank 0 itself
    std::mutex mutex;
    auto take = [&]() -> std::optional<std::size_t> {
        if (interruption_signal() != 0) {
            return std::nullopt;
        }
        std::size_t i = counter.fetch_add(1);
        return i < n ? std::optional(i) : std::nullopt;
    };
    RunDone done = [&](std::size_t index, RunOutcome outcome) {
        std::lock_guard lock(mutex);
        results[index] = std::move(outcome);
    };
    // answers whatever the other ranks have sent; on the main thread only
    auto serve = [&] {
        int source = 0;
        while (auto message = try_receive(MPI_ANY_SOURCE, &source)) {
            const char kind = message->empty() ? 'Q' : (*message)[0];
            if (kind == 'R') {
                std::vector<std::optional<RunOutcome>> one(n);
                for (std::size_t i : deserialize(message->substr(1), one)) {
                    progress.finished(one[i]->status);
                    done(i, std::move(*one[i]));
                }
            } else if (kind == 'D') {
                ++finished;
            } else {
                auto index = take();
                if (index) {
                    owner[*index] = source;
                }
                send(index ? std::to_string(*index) : "-1", source);
            }
        }
    };
    execute(runner, jobs, take, done, progress, serve);
    Patience patience;
    while (finished < size_ && !patience.exhausted()) {
        serve();
        progress.draw();
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    return complete(runner, std::move(results), owner);
}

} // namespace mdl
