#include "codegen/compile_pool.hpp"

#include <llvm/Support/ThreadPool.h>
#include <llvm/Support/Threading.h>

#include <exception>
#include <future>
#include <thread>
#include <vector>

namespace mdl::codegen {

namespace {

llvm::StdThreadPool& pool() {
    // Never destroyed: worker threads must not be joined during static destruction, when
    // LLVM's own statics (which their thread-local target machines use) may be gone already.
    // An idle worker holds no resources but its stack.
    static auto* workers = new llvm::StdThreadPool(
        llvm::hardware_concurrency(static_cast<unsigned>(hardware_compile_threads())));
    return *workers;
}

} // namespace

std::size_t hardware_compile_threads() {
    static const std::size_t threads = std::max(1u, std::thread::hardware_concurrency());
    return threads;
}

void run_concurrently(std::size_t count, const std::function<void(std::size_t)>& task) {
    std::vector<std::shared_future<void>> others;
    std::vector<std::exception_ptr> errors(count);
    for (std::size_t i = 1; i < count; ++i) {
        others.push_back(pool().async([&task, &errors, i] {
            try {
                task(i);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        }));
    }
    if (count > 0) {
        try {
            task(0);
        } catch (...) {
            errors[0] = std::current_exception();
        }
    }
    for (const std::shared_future<void>& other : others) {
        other.wait();
    }
    for (const std::exception_ptr& error : errors) {
        if (error) {
            std::rethrow_exception(error);
        }
    }
}

} // namespace mdl::codegen
