// What `mdl modes`, `mdl periodic` and `mdl continue` share: compiling the model with -p values
// (Integer ones fix the structure, the others are set on the compiled model), printing
// multipliers, and the errors they report. Their files: output_file.hpp.
#pragma once

#include "mdl/compiled_model.hpp"

#include <complex>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace mdl::cli {

// compile_file with the -p values applied ("-p k=2: unknown parameter ..." on a bad one).
CompiledModel compile_with_parameters(const std::string& file,
                                      const std::vector<std::pair<std::string, double>>& values,
                                      const std::vector<std::string>& texts,
                                      const std::vector<std::string>& library, bool no_cache);

// "0.59 - 0.31i"
std::string format_complex(std::complex<double> mu);

// Runs a command body, mapping the library's exceptions to mdl's exit statuses with one line
// "mdl <command>: error: ..." (the model's diagnostics as they are).
int run_reporting(const std::string& command, const std::function<int()>& body);

} // namespace mdl::cli
