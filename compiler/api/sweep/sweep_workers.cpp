#include "sweep_workers.hpp"

#include "compiler/api/warnings.hpp"
#include "mdl/interruption.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>
#include <optional>
#include <poll.h>
#include <signal.h>
#include <stdexcept>
#include <string>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace mdl {

namespace {

using Clock = std::chrono::steady_clock;

// Each worker talks to the sweep over one Unix stream socket: run indices one way, outcomes the
// other. Sockets rather than pipes so that writing to a worker that has died is EPIPE
// (MSG_NOSIGNAL), not a SIGPIPE that would kill the sweep.
bool send_all(int fd, const void* data, std::size_t size) {
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
        ssize_t sent = ::send(fd, p, size, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) {
            continue;
        }
        if (sent <= 0) {
            return false;
        }
        p += sent;
        size -= static_cast<std::size_t>(sent);
    }
    return true;
}

// False at end of stream or on an error (a worker that died mid-message).
bool receive_all(int fd, void* data, std::size_t size) {
    char* p = static_cast<char*>(data);
    while (size > 0) {
        ssize_t got = ::recv(fd, p, size, 0);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            return false;
        }
        p += got;
        size -= static_cast<std::size_t>(got);
    }
    return true;
}

// An outcome on the wire: status, output_failed, then message, row, events and notes as
// length + bytes.
std::string encode(const RunOutcome& outcome) {
    std::string bytes;
    auto put32 = [&](std::uint32_t v) {
        bytes.append(reinterpret_cast<const char*>(&v), 4);
    };
    bytes += static_cast<char>(outcome.status);
    bytes += static_cast<char>(outcome.output_failed ? 1 : 0);
    put32(static_cast<std::uint32_t>(outcome.message.size()));
    bytes += outcome.message;
    put32(static_cast<std::uint32_t>(outcome.row.size()));
    bytes += outcome.row;
    put32(static_cast<std::uint32_t>(outcome.events.size()));
    bytes += outcome.events;
    put32(static_cast<std::uint32_t>(outcome.notes.size()));
    bytes += outcome.notes;
    return bytes;
}

std::optional<RunOutcome> decode(int fd) {
    unsigned char head[2];
    if (!receive_all(fd, head, 2)) {
        return std::nullopt;
    }
    RunOutcome outcome;
    outcome.status = static_cast<RunOutcome::Status>(head[0]);
    outcome.output_failed = head[1] != 0;
    for (std::string* text : {&outcome.message, &outcome.row, &outcome.events, &outcome.notes}) {
        std::uint32_t size = 0;
        if (!receive_all(fd, &size, 4)) {
            return std::nullopt;
        }
        text->resize(size);
        if (size > 0 && !receive_all(fd, text->data(), size)) {
            return std::nullopt;
        }
    }
    return outcome;
}

// A worker's life: runs indices until the sweep closes its end of the socket.
[[noreturn]] void work(const SweepRunner& runner, int fd, std::atomic<double>* fraction) {
    while (true) {
        std::uint64_t index = 0;
        if (!receive_all(fd, &index, sizeof index)) {
            std::_Exit(0);
        }
        fraction->store(0.0);
        const std::string message = encode(runner.run(static_cast<std::size_t>(index), fraction));
        if (!send_all(fd, message.data(), message.size())) {
            std::_Exit(0);
        }
    }
}

struct Worker {
    pid_t pid = -1;
    int fd = -1;                        // the sweep's end of the socket
    std::size_t slot = 0;               // its progress fraction
    std::optional<std::size_t> running; // the run handed to it
    Clock::time_point began{};          // of that run
    bool signalled = false;             // an interruption was forwarded to it
};

// Why a worker process ended, for the row of the run it was running.
std::string death(int status, const std::string& where) {
    if (WIFSIGNALED(status)) {
        const int signal = WTERMSIG(status);
        const char* abbreviation = sigabbrev_np(signal);
        const char* description = strsignal(signal);
        return fmt::format(
            "the process running it{} was killed by {} ({}); the sweep went on", where,
            abbreviation ? std::string("SIG") + abbreviation : fmt::format("signal {}", signal),
            description ? description : "unknown signal");
    }
    if (WIFEXITED(status)) {
        return fmt::format("the process running it{} exited with status {} before reporting "
                           "the run; the sweep went on",
                           where, WEXITSTATUS(status));
    }
    return fmt::format("the process running it{} ended unexpectedly; the sweep went on", where);
}

int reap(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
}

class Pool {
public:
    Pool(const SweepRunner& runner, std::size_t jobs, SweepProgress& progress, std::string where)
        : runner_(runner), progress_(progress), jobs_(jobs), where_(std::move(where)) {
        // The progress fractions live in memory shared with the workers.
        const std::size_t bytes = jobs * sizeof(std::atomic<double>);
        void* shared =
            ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (shared == MAP_FAILED) {
            throw std::runtime_error(fmt::format("mdl sweep: cannot share memory with worker "
                                                 "processes: {}",
                                                 std::strerror(errno)));
        }
        fractions_ = static_cast<std::atomic<double>*>(shared);
        for (std::size_t i = 0; i < jobs; ++i) {
            new (&fractions_[i]) std::atomic<double>(0.0);
        }
    }
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;
    ~Pool() {
        for (Worker& w : workers_) {
            if (w.running && w.pid > 0) { // only when leaving by an exception
                ::kill(w.pid, SIGKILL);
            }
            retire(w);
        }
        ::munmap(fractions_, jobs_ * sizeof(std::atomic<double>));
    }

    // A new worker on progress slot `slot`; false when the system refuses a process or socket.
    bool spawn(std::size_t slot, std::string& error) {
        int fds[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
            error = std::strerror(errno);
            return false;
        }
        // What this process buffered must not be written twice.
        std::cout.flush();
        std::cerr.flush();
        std::fflush(nullptr);
        const pid_t pid = ::fork();
        if (pid < 0) {
            error = std::strerror(errno);
            ::close(fds[0]);
            ::close(fds[1]);
            return false;
        }
        if (pid == 0) {
            // The other workers' sockets: a worker that kept them open would keep its siblings
            // from seeing the end of their input.
            for (const Worker& w : workers_) {
                if (w.fd >= 0) {
                    ::close(w.fd);
                }
            }
            ::close(fds[0]);
            work(runner_, fds[1], &fractions_[slot]);
        }
        ::close(fds[1]);
        Worker w;
        w.pid = pid;
        w.fd = fds[0];
        w.slot = slot;
        workers_.push_back(w);
        return true;
    }

    // Hands the next run to `w`; false (and retires it) when there is none.
    bool give(Worker& w, const NextRun& next) {
        std::optional<std::size_t> index = next();
        if (!index) {
            retire(w);
            return false;
        }
        w.running = index;
        w.began = Clock::now();
        const std::uint64_t wire = *index;
        send_all(w.fd, &wire, sizeof wire); // a dead worker shows as a closed socket in poll()
        return true;
    }

    void run(const NextRun& next, const RunDone& done, std::chrono::milliseconds poll,
             const std::function<void()>& idle) {
        std::string error;
        for (std::size_t k = 0; k < jobs_; ++k) {
            if (!spawn(k, error)) {
                if (workers_.empty()) {
                    throw std::runtime_error(fmt::format(
                        "mdl sweep: cannot start a worker process: {} (--isolation thread runs "
                        "the sweep in one process)",
                        error));
                }
                break; // fewer workers than asked for
            }
        }
        for (Worker& w : workers_) {
            give(w, next);
        }
        while (true) {
            std::vector<pollfd> fds;
            std::vector<std::size_t> which;
            for (std::size_t i = 0; i < workers_.size(); ++i) {
                if (workers_[i].running) {
                    fds.push_back({workers_[i].fd, POLLIN, 0});
                    which.push_back(i);
                }
            }
            if (fds.empty()) {
                break;
            }
            const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(poll.count()));
            if (ready < 0 && errno != EINTR) {
                throw std::runtime_error(
                    fmt::format("mdl sweep: waiting for the workers: {}", std::strerror(errno)));
            }
            for (std::size_t j = 0; ready > 0 && j < fds.size(); ++j) {
                if (fds[j].revents != 0) {
                    // workers_ may grow (a replacement): refer to the worker by index
                    collect(which[j], next, done);
                }
            }
            forward_interruption();
            for (const Worker& w : workers_) {
                progress_.slot(w.slot)->store(w.running ? fractions_[w.slot].load() : 0.0);
            }
            progress_.draw();
            if (idle) {
                idle();
            }
        }
    }

private:
    // A worker has something to say: an outcome, or that it died.
    void collect(std::size_t i, const NextRun& next, const RunDone& done) {
        const std::size_t index = *workers_[i].running;
        std::optional<RunOutcome> outcome = decode(workers_[i].fd);
        if (outcome) {
            workers_[i].running.reset();
            const RunOutcome::Status status = outcome->status;
            done(index, std::move(*outcome));
            progress_.finished(status);
            give(workers_[i], next);
            return;
        }
        // It died: the run gets a row from its trajectory file, and a new worker takes over.
        const double seconds =
            std::chrono::duration<double>(Clock::now() - workers_[i].began).count();
        ::close(workers_[i].fd);
        workers_[i].fd = -1;
        const int status = reap(workers_[i].pid);
        workers_[i].pid = -1;
        workers_[i].running.reset();
        const std::size_t slot = workers_[i].slot;
        const bool interrupted = interruption_signal() != 0 && WIFSIGNALED(status) &&
                                 WTERMSIG(status) == interruption_signal();
        RunOutcome lost =
            interrupted
                ? runner_.lost(index, RunOutcome::Status::interrupted,
                               fmt::format("interrupted by {}", signal_name(WTERMSIG(status))),
                               seconds)
                : runner_.lost(index, RunOutcome::Status::failed, death(status, where_), seconds);
        const RunOutcome::Status lost_status = lost.status;
        done(index, std::move(lost));
        progress_.finished(lost_status);
        if (interruption_signal() != 0) {
            return; // no new runs start
        }
        std::string error;
        if (spawn(slot, error)) {
            give(workers_.back(), next);
        } else {
            warn(fmt::format("cannot start a worker process to replace one that died: {}; the "
                             "sweep goes on with fewer",
                             error));
        }
    }

    // SIGINT/SIGTERM sent to the sweep's process only (kill PID) reach the workers too.
    void forward_interruption() {
        const int signal = interruption_signal();
        if (signal == 0) {
            return;
        }
        for (Worker& w : workers_) {
            if (w.running && !w.signalled && w.pid > 0) {
                ::kill(w.pid, signal);
                w.signalled = true;
            }
        }
    }

    // Closes the worker's socket (it exits at the end of its input) and waits for it.
    void retire(Worker& w) {
        if (w.fd >= 0) {
            ::close(w.fd);
            w.fd = -1;
        }
        if (w.pid > 0) {
            reap(w.pid);
            w.pid = -1;
        }
        w.running.reset();
    }

    const SweepRunner& runner_;
    SweepProgress& progress_;
    std::size_t jobs_;
    std::string where_;
    std::atomic<double>* fractions_ = nullptr;
    std::vector<Worker> workers_;
};

} // namespace

void run_in_processes(const SweepRunner& runner, std::size_t jobs, const NextRun& next,
                      const RunDone& done, SweepProgress& progress, std::chrono::milliseconds poll,
                      const std::function<void()>& idle, const std::string& where) {
    Pool pool(runner, jobs, progress, where);
    pool.run(next, done, poll, idle);
}

} // namespace mdl
