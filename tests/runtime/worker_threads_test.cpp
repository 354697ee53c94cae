// The threads shared by the stability chart and the sweeps (runtime/worker_threads.hpp): every
// task runs exactly once (the sum 0 + 1 + ... + n-1 = n(n-1)/2), the first exception comes
// back after every task has run, and the caller's `idle` runs while the workers do.
#include "runtime/worker_threads.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace mdl::runtime;

TEST_CASE("run_concurrently runs every task once, on at most the threads given") {
    for (const std::size_t threads : {std::size_t{1}, std::size_t{3}, std::size_t{64}}) {
        const std::size_t n = 1000;
        std::vector<std::atomic<int>> runs(n);
        std::atomic<std::size_t> sum{0};
        run_concurrently(n, threads, [&](std::size_t k) {
            ++runs[k];
            sum += k;
        });
        CHECK(sum == n * (n - 1) / 2);
        for (const auto& r : runs) {
            REQUIRE(r == 1);
        }
    }
    run_concurrently(0, 4, [](std::size_t) { FAIL("no task to run"); });
}

TEST_CASE("run_concurrently rethrows the first exception after every task has run") {
    std::atomic<int> ran{0};
    CHECK_THROWS_WITH(run_concurrently(50, 4,
                                       [&](std::size_t k) {
                                           ++ran;
                                           if (k == 7) {
                                               throw std::runtime_error("task 7");
                                           }
                                       }),
                      "task 7");
    CHECK(ran == 50);
}

TEST_CASE("run_workers: one thread per worker, idle called until they all return") {
    std::atomic<bool> release{false};
    std::atomic<int> idles{0};
    std::vector<std::thread::id> ids(3);
    run_workers(
        3,
        [&](std::size_t w) {
            ids[w] = std::this_thread::get_id();
            while (!release) {
                std::this_thread::yield();
            }
        },
        [&] {
            if (++idles >= 3) {
                release = true; // the workers wait for the caller's third idle call
            }
        },
        std::chrono::microseconds(200));
    CHECK(idles >= 3);
    CHECK(ids[0] != ids[1]);
    CHECK(ids[1] != ids[2]);
    CHECK(ids[0] != std::this_thread::get_id());
    CHECK_THROWS_WITH(run_workers(2,
                                  [](std::size_t w) {
                                      if (w == 1) {
                                          throw std::invalid_argument("worker 1");
                                      }
                                  }),
                      "worker 1");
}
