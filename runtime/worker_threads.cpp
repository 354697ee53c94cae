#include "runtime/worker_threads.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace mdl::runtime {

namespace {

// The first exception of several threads, kept to be rethrown.
class FirstError {
public:
    void keep(std::exception_ptr error) {
        std::lock_guard lock(mutex_);
        if (!error_) {
            error_ = std::move(error);
        }
    }
    void rethrow() const {
        if (error_) {
            std::rethrow_exception(error_);
        }
    }

private:
    std::mutex mutex_;
    std::exception_ptr error_;
};

} // namespace

void run_workers(std::size_t workers, const std::function<void(std::size_t)>& worker,
                 const std::function<void()>& idle, std::chrono::microseconds poll) {
    FirstError error;
    if (workers == 1 && !idle) {
        worker(0);
        return;
    }
    std::mutex mutex;
    std::condition_variable all_done;
    std::size_t running = workers;
    std::vector<std::thread> threads;
    threads.reserve(workers);
    for (std::size_t w = 0; w < workers; ++w) {
        threads.emplace_back([&, w] {
            try {
                worker(w);
            } catch (...) { // nothing may escape a thread (std::terminate)
                error.keep(std::current_exception());
            }
            std::lock_guard lock(mutex);
            if (--running == 0) {
                all_done.notify_all();
            }
        });
    }
    {
        std::unique_lock lock(mutex);
        while (running > 0) {
            if (idle) {
                lock.unlock();
                idle();
                lock.lock();
                all_done.wait_for(lock, poll, [&] { return running == 0; });
            } else {
                all_done.wait(lock, [&] { return running == 0; });
            }
        }
    }
    for (std::thread& t : threads) {
        t.join();
    }
    error.rethrow();
}

void run_concurrently(std::size_t count, std::size_t threads,
                      const std::function<void(std::size_t)>& task) {
    std::atomic<std::size_t> next{0};
    FirstError error;
    const auto work = [&](std::size_t) {
        for (std::size_t k = next++; k < count; k = next++) {
            try {
                task(k);
            } catch (...) {
                error.keep(std::current_exception());
            }
        }
    };
    run_workers(std::max<std::size_t>(1, std::min(threads, count)), work);
    error.rethrow();
}

} // namespace mdl::runtime
