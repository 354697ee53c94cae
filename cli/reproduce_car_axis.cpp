#include "reproduce_car_axis.hpp"

#include "compiler/api/runtime_view.hpp"
#include "reproduce/reproduce_car_axis.hpp"
#include "reproduce_reports.hpp"

#include <fmt/format.h>
#include <iostream>

namespace mdl::cli {

int reproduce_car_axis(const std::string& models_dir) {
    namespace mech = runtime::mechanics;
    CompiledModel car_axis = compile_file(models_dir + "/car_axis.mdl");
    runtime::Model model = runtime_model(car_axis);
    const runtime::State start = reported_start(car_axis, model, 0.0);
    const std::vector<mech::CarAxisRun> runs = mech::reproduce_car_axis(model, start);
    std::cout
        << "\n# The car axis problem, an index-3 DAE with a time-dependent constraint (Hairer "
           "& Wanner, Solving ODEs II, sect. VII.1; IVP Test Set problem \"caraxis\")\n"
        << mech::car_axis_markdown(runs);
    std::size_t passed = 0;
    for (const mech::CarAxisRun& r : runs) {
        passed += r.passes() ? 1 : 0;
        for (std::size_t i = 0; i < r.values.size(); ++i) {
            if (!(r.errors[i] <= r.setting.tolerance)) {
                report_off_reference("caraxis", r.method, mech::car_axis_reference[i].name,
                                     r.values[i], mech::car_axis_reference[i].reference, "error",
                                     r.errors[i], r.setting.tolerance);
            }
        }
        if (!(r.constraint_residual <= mech::car_axis_constraint_limit)) {
            report_constraint_residual("caraxis", r.method, r.constraint_residual,
                                       mech::car_axis_constraint_limit);
        }
    }
    std::cerr << fmt::format("mdl reproduce caraxis: {} of {} methods match the Test Set's "
                             "positions and velocities at t = 3 to their order's accuracy "
                             "(constraint residual < {:g})\n",
                             passed, runs.size(), mech::car_axis_constraint_limit);
    return passed == runs.size() && runs.size() >= 3 ? 0 : 1;
}

} // namespace mdl::cli
