// mdl::sweep_results (mdl/sweep.hpp): a sweep on threads whose results stay in memory.
#include "mdl/interruption.hpp"
#include "mdl/sweep.hpp"
#include "runtime/worker_threads.hpp"

#include <algorithm>
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
    if (jobs == 0) {
        jobs = std::max(1u, std::thread::hardware_concurrency());
    }
    runtime::run_concurrently(points.size(), jobs, [&](std::size_t i) {
        if (interruption_signal() != 0) { // the points not started stay without a result
            return;
        }
        SweepPoint& point = points[i];
        try {
            const CompiledModel model = compiled.with_parameters(point.parameters);
            point.result = std::make_shared<SimulationResult>(simulate(model, settings));
        } catch (...) { // kept with its point, not thrown for the whole sweep
            point.error = std::current_exception();
        }
    });
    return points;
}

} // namespace mdl
