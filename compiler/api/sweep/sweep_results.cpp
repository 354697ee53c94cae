// mdl::sweep_results (mdl/sweep.hpp): a sweep on threads whose results stay in memory.
#include "mdl/interruption.hpp"
#include "mdl/sweep.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

namespace mdl {

std::vector<SweepPoint> sweep_results(const CompiledModel& compiled, const SweepGrid& grid,
                                      const SimulationSettings& settings, std::size_t jobs) {
    validate_settings(settings);
    std::vector<SweepPoint> points(grid.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
        points[i].parameters = grid.point(i);
        (void)compiled.parameters_with(points[i].parameters); // an axis that is no parameter
    }
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
        for (std::size_t i = next++; i < points.size() && interruption_signal() == 0; i = next++) {
            SweepPoint& point = points[i];
            try {
                const CompiledModel model = compiled.with_parameters(point.parameters);
                point.result = std::make_shared<SimulationResult>(simulate(model, settings));
            } catch (...) { // nothing may escape a thread (std::terminate)
                point.error = std::current_exception();
            }
        }
    };
    if (jobs == 0) {
        jobs = std::max(1u, std::thread::hardware_concurrency());
    }
    jobs = std::clamp<std::size_t>(jobs, 1, points.size());
    std::vector<std::jthread> threads;
    for (std::size_t k = 1; k < jobs; ++k) {
        threads.emplace_back(work);
    }
    work();
    for (std::jthread& thread : threads) {
        thread.join(); // before `points` is returned
    }
    return points;
}

} // namespace mdl
