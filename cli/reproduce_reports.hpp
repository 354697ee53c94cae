// What the `mdl reproduce` adapters print on stderr besides their tables: the changes the
// consistent start made, a value off its reference, a constraint residual over its limit.
#pragma once

#include "mdl/compiled_model.hpp"
#include "runtime/model.hpp"
#include "runtime/state.hpp"

#include <string>
#include <string_view>

namespace mdl::cli {

// The model's start state on its constraints (compiler/api/runtime_view.hpp), the changed start
// values printed on stderr as `mdl run` prints them.
runtime::State reported_start(const CompiledModel& compiled, const runtime::Model& model,
                              double start);

// "mdl reproduce: PROBLEM METHOD NAME: ours X, Test Set R (ERROR_KIND E > LIMIT)"
void report_off_reference(std::string_view problem, const std::string& method,
                          std::string_view name, double ours, double reference,
                          std::string_view error_kind, double error, double limit);

// "mdl reproduce: PROBLEM METHOD: constraint residual R > LIMIT"
void report_constraint_residual(std::string_view problem, const std::string& method,
                                double residual, double limit);

} // namespace mdl::cli
