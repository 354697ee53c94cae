#include "reproduce_reports.hpp"

#include "compiler/api/runtime_view.hpp"

#include <fmt/format.h>
#include <iostream>
#include <vector>

namespace mdl::cli {

runtime::State reported_start(const CompiledModel& compiled, const runtime::Model& model,
                              double start) {
    std::vector<std::string> notes;
    runtime::State state = initial_state(compiled, model, start, &notes);
    for (const std::string& note : notes) {
        std::cerr << note << "\n";
    }
    return state;
}

void report_off_reference(std::string_view problem, const std::string& method,
                          std::string_view name, double ours, double reference,
                          std::string_view error_kind, double error, double limit) {
    std::cerr << fmt::format("mdl reproduce: {} {} {}: ours {:.16g}, Test Set {:.16g} ({} {:.2e} "
                             "> {:g})\n",
                             problem, method, name, ours, reference, error_kind, error, limit);
}

void report_constraint_residual(std::string_view problem, const std::string& method,
                                double residual, double limit) {
    std::cerr << fmt::format("mdl reproduce: {} {}: constraint residual {:.2e} > {:g}\n", problem,
                             method, residual, limit);
}

} // namespace mdl::cli
