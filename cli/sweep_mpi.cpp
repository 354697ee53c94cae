#include "sweep_mpi.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <fmt/format.h>
#include <mpi.h>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace mdl::cli {

namespace {

constexpr int tag = 1011;

// One outcome as bytes: "index status message_size row_size events_size\n" message row events.
std::string serialize(std::size_t index, const RunOutcome& o) {
    return fmt::format("{} {} {} {} {}\n", index, static_cast<int>(o.status), o.message.size(),
                       o.row.size(), o.events.size()) +
           o.message + o.row + o.events;
}

// Appends the outcomes of `bytes` (serialize's, concatenated) to `out`.
void deserialize(const std::string& bytes, std::vector<std::optional<RunOutcome>>& out) {
    std::size_t at = 0;
    while (at < bytes.size()) {
        std::size_t eol = bytes.find('\n', at);
        std::istringstream head(bytes.substr(at, eol - at));
        std::size_t index = 0, message = 0, row = 0, events = 0;
        int status = 0;
        if (eol == std::string::npos || !(head >> index >> status >> message >> row >> events) ||
            index >= out.size() || eol + 1 + message + row + events > bytes.size()) {
            throw std::runtime_error("mdl sweep: garbled result message between MPI ranks");
        }
        RunOutcome o;
        o.status = static_cast<RunOutcome::Status>(status);
        o.message = bytes.substr(eol + 1, message);
        o.row = bytes.substr(eol + 1 + message, row);
        o.events = bytes.substr(eol + 1 + message + row, events);
        out[index] = std::move(o);
        at = eol + 1 + message + row + events;
    }
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
// worker threads need.
std::string receive(int from, int* source = nullptr) {
    while (true) {
        if (auto bytes = try_receive(from, source)) {
            return *bytes;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
}

std::vector<RunOutcome> complete(std::vector<std::optional<RunOutcome>> results) {
    std::vector<RunOutcome> out;
    out.reserve(results.size());
    for (std::size_t i = 0; i < results.size(); ++i) {
        if (!results[i]) {
            throw std::runtime_error(fmt::format("mdl sweep: no result for run {}", i));
        }
        out.push_back(std::move(*results[i]));
    }
    return out;
}

} // namespace

MpiSweep::MpiSweep() {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    threads_may_call_mpi_ = provided >= MPI_THREAD_SERIALIZED;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSweep::~MpiSweep() {
    MPI_Finalize();
}

bool MpiSweep::broadcast(bool ok) const {
    int value = ok ? 1 : 0;
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return value != 0;
}

std::vector<RunOutcome> MpiSweep::run(const SweepRunner& runner, Distribution distribution,
                                      std::size_t jobs, SweepProgress& progress) {
    return distribution == Distribution::dynamic ? run_dynamic(runner, jobs, progress)
                                                 : run_static(runner, jobs, progress);
}

std::vector<RunOutcome> MpiSweep::run_static(const SweepRunner& runner, std::size_t jobs,
                                             SweepProgress& progress) {
    const std::size_t n = runner.size(), ranks = static_cast<std::size_t>(size_);
    std::atomic<std::size_t> counter{static_cast<std::size_t>(rank_)};
    std::vector<std::optional<RunOutcome>> results(n);
    std::mutex mutex;
    NextRun next = [&]() -> std::optional<std::size_t> {
        std::size_t i = counter.fetch_add(ranks);
        return i < n ? std::optional(i) : std::nullopt;
    };
    RunDone done = [&](std::size_t index, RunOutcome outcome) {
        std::lock_guard lock(mutex);
        results[index] = std::move(outcome);
    };
    run_on_threads(runner, jobs, next, done, progress, {}, std::chrono::milliseconds(100));
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
    for (int r = 1; r < size_; ++r) {
        deserialize(receive(r), results);
    }
    return complete(std::move(results));
}

// Messages to rank 0: "Q" asks for a run, "R" + serialize(...) returns one; rank 0 answers
// each "Q" with the index of the next run or "-1" when there is none left.
std::vector<RunOutcome> MpiSweep::run_dynamic(const SweepRunner& runner, std::size_t jobs,
                                              SweepProgress& progress) {
    const std::size_t n = runner.size();
    if (rank_ != 0) {
        if (!threads_may_call_mpi_) {
            jobs = 1; // one thread, which may call MPI: the main thread waits meanwhile
        }
        int threads = static_cast<int>(jobs);
        MPI_Gather(&threads, 1, MPI_INT, nullptr, 0, MPI_INT, 0, MPI_COMM_WORLD);
        std::mutex mpi; // MPI_THREAD_SERIALIZED: one call at a time
        NextRun next = [&]() -> std::optional<std::size_t> {
            std::lock_guard lock(mpi);
            send("Q", 0);
            long long index = std::stoll(receive(0));
            return index >= 0 ? std::optional(static_cast<std::size_t>(index)) : std::nullopt;
        };
        RunDone done = [&](std::size_t index, RunOutcome outcome) {
            std::lock_guard lock(mpi);
            send("R" + serialize(index, outcome), 0);
        };
        if (jobs == 1 && !threads_may_call_mpi_) {
            // without MPI_THREAD_SERIALIZED, the thread calling MPI must be the main thread
            while (auto index = next()) {
                std::atomic<double>* fraction = progress.slot(0);
                RunOutcome outcome = runner.run(*index, fraction);
                RunOutcome::Status status = outcome.status;
                done(*index, std::move(outcome));
                progress.finished(status);
            }
        } else {
            run_on_threads(runner, jobs, next, done, progress, {}, std::chrono::milliseconds(100));
        }
        return {};
    }

    std::vector<int> threads(static_cast<std::size_t>(size_));
    int own = 0;
    MPI_Gather(&own, 1, MPI_INT, threads.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::size_t outstanding = 0; // remote threads not yet told that no run is left
    for (int r = 1; r < size_; ++r) {
        outstanding += static_cast<std::size_t>(threads[static_cast<std::size_t>(r)]);
    }
    std::atomic<std::size_t> counter{0};
    std::vector<std::optional<RunOutcome>> results(n);
    std::mutex mutex;
    auto take = [&]() -> std::optional<std::size_t> {
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
            if (!message->empty() && (*message)[0] == 'R') {
                std::vector<std::optional<RunOutcome>> one(n);
                deserialize(message->substr(1), one);
                for (std::size_t i = 0; i < n; ++i) {
                    if (one[i]) {
                        progress.finished(one[i]->status);
                        done(i, std::move(*one[i]));
                    }
                }
                continue;
            }
            auto index = take();
            send(index ? std::to_string(*index) : "-1", source);
            if (!index) {
                --outstanding;
            }
        }
    };
    run_on_threads(runner, jobs, take, done, progress, serve, std::chrono::microseconds(500));
    while (outstanding > 0) {
        serve();
        progress.draw();
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    return complete(std::move(results));
}

} // namespace mdl::cli
