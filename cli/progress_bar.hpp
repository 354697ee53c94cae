// A progress bar on stderr for long runs: shown only when stderr is a terminal and the run has
// lasted about a second, redrawn at most ten times a second, erased when done.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace mdl::cli {

class ProgressBar {
public:
    ProgressBar(double start, double stop, bool enabled)
        : start_(start), stop_(stop), enabled_(enabled), began_(Clock::now()), last_(began_) {}
    ProgressBar(const ProgressBar&) = delete;
    ProgressBar& operator=(const ProgressBar&) = delete;
    ~ProgressBar() { done(); }

    // Cheap when called every step: looks at the clock only every 256 calls.
    void update(double t) {
        if (!enabled_ || (++calls_ & 0xff) != 0) {
            return;
        }
        auto now = Clock::now();
        if (now - began_ < std::chrono::seconds(1) ||
            now - last_ < std::chrono::milliseconds(100)) {
            return;
        }
        last_ = now;
        double fraction = stop_ == start_ ? 1.0 : (t - start_) / (stop_ - start_);
        fraction = fraction < 0 ? 0 : fraction > 1 ? 1 : fraction;
        constexpr int width = 40;
        int filled = static_cast<int>(fraction * width);
        double elapsed = std::chrono::duration<double>(now - began_).count();
        std::string bar(static_cast<std::size_t>(filled), '#');
        bar.resize(width, '.');
        std::fprintf(stderr, "\r[%s] %5.1f%%  t = %-12g %6.1f s", bar.c_str(), 100 * fraction, t,
                     elapsed);
        std::fflush(stderr);
        shown_ = true;
    }

    void done() {
        if (shown_) {
            std::fprintf(stderr, "\r\033[K");
            std::fflush(stderr);
            shown_ = false;
        }
    }

private:
    using Clock = std::chrono::steady_clock;
    double start_, stop_;
    bool enabled_;
    Clock::time_point began_, last_;
    unsigned calls_ = 0;
    bool shown_ = false;
};

} // namespace mdl::cli
