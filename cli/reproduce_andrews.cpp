#include "reproduce_andrews.hpp"

#include "compiler/api/runtime_view.hpp"
#include "reproduce/reproduce_andrews.hpp"
#include "reproduce_reports.hpp"

#include <fmt/format.h>
#include <iostream>

namespace mdl::cli {

int reproduce_andrews(const std::string& models_dir) {
    namespace mech = runtime::mechanics;
    CompiledModel andrews = compile_file(models_dir + "/andrews.mdl");
    runtime::Model model = runtime_model(andrews);
    const runtime::State start = reported_start(andrews, model, 0.0);
    const std::vector<mech::AndrewsRun> runs = mech::reproduce_andrews(model, start);
    std::cout << "\n# Andrews' squeezing mechanism (Hairer & Wanner, Solving ODEs II, sect. VII.7; "
                 "IVP Test Set problem \"andrews\")\n"
              << mech::andrews_markdown(runs);
    std::size_t angles = 0, angles_off = 0, passed = 0;
    for (const mech::AndrewsRun& r : runs) {
        passed += r.passes() ? 1 : 0;
        for (std::size_t i = 0; i < r.angles.size(); ++i) {
            ++angles;
            if (!(r.relative_errors[i] <= mech::andrews_tolerance)) {
                ++angles_off;
                report_off_reference("andrews", r.method, mech::andrews_reference[i].name,
                                     r.angles[i], mech::andrews_reference[i].reference,
                                     "relative error", r.relative_errors[i],
                                     mech::andrews_tolerance);
            }
        }
        if (!(r.constraint_residual <= mech::andrews_constraint_limit)) {
            report_constraint_residual("andrews", r.method, r.constraint_residual,
                                       mech::andrews_constraint_limit);
        }
    }
    std::cerr << fmt::format("mdl reproduce andrews: {} of {} angles within {:g} relative of the "
                             "Test Set; {} of {} methods pass (angles and constraint residual "
                             "< {:g})\n",
                             angles - angles_off, angles, mech::andrews_tolerance, passed,
                             runs.size(), mech::andrews_constraint_limit);
    return passed == runs.size() && runs.size() >= 2 ? 0 : 1;
}

} // namespace mdl::cli
