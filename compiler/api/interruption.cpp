#include "mdl/interruption.hpp"

#include <atomic>
#include <csignal>
#include <string>

namespace mdl {

namespace {

// Lock-free, so the handler may store to it (async-signal-safe).
std::atomic<int> received{0};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void record_signal(int signal) {
    received.store(signal, std::memory_order_relaxed);
}

} // namespace

void catch_interruptions() {
    static const bool installed = [] {
        struct sigaction action {};
        action.sa_handler = record_signal;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_RESETHAND | SA_RESTART; // a second signal takes the default action
        sigaction(SIGINT, &action, nullptr);
        sigaction(SIGTERM, &action, nullptr);
        return true;
    }();
    (void)installed;
}

void request_interruption(int signal) {
    received.store(signal, std::memory_order_relaxed);
}

int interruption_signal() {
    return received.load(std::memory_order_relaxed);
}

std::string signal_name(int signal) {
    switch (signal) {
    case SIGINT:
        return "SIGINT";
    case SIGTERM:
        return "SIGTERM";
    default:
        return "signal " + std::to_string(signal);
    }
}

} // namespace mdl
