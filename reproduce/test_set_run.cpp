#include "reproduce/test_set_run.hpp"

#include "runtime/run.hpp"

#include <chrono>
#include <cstdio>
#include <stdexcept>

namespace mdl::runtime::mechanics {

std::string printed(const char* pattern, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, pattern, value);
    return buffer;
}

bool ida_available() {
    return info(Method::ida).summary.find("not available") == std::string_view::npos;
}

void require_position_name(const Model& model, std::string_view problem, std::size_t index,
                           std::string_view expected) {
    const Eigen::Index i = static_cast<Eigen::Index>(index);
    if (model.position_name(i) != expected) {
        throw std::invalid_argument(std::string(problem) + ": coordinate " +
                                    std::to_string(index + 1) + " is '" + model.position_name(i) +
                                    "', expected '" + std::string(expected) + "'");
    }
}

TestSetIntegration integrate_to(const Model& model, const State& start, Method method,
                                double end_time, double rtol_or_step, bool adaptive) {
    RunSettings settings;
    settings.method = method;
    settings.stop_time = end_time;
    if (adaptive) {
        settings.step = 0.0; // every accepted step, only the last one is kept
        settings.adaptive.rtol = rtol_or_step;
        settings.adaptive.atol = rtol_or_step;
    } else {
        settings.step = rtol_or_step;
    }
    TestSetIntegration out{start, {}, 0.0, std::string(info(method).name)};
    const auto begin = std::chrono::steady_clock::now();
    out.stats = run(model, out.end, settings, [](const State&) {});
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    return out;
}

} // namespace mdl::runtime::mechanics
