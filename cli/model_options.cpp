#include "model_options.hpp"

#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

namespace mdl::cli {

void add_model_options(CLI::App* cmd, ModelOptions& options) {
    cmd->add_option("-p,--parameter", options.parameters,
                    "Set an Integer parameter (array size, loop bound): -p n=200")
        ->allow_extra_args(false); // -p n=3 model.mdl: the file is not a second value
    cmd->add_option("--library", options.library_paths,
                    "A folder of component models, searched after the model's own folder")
        ->allow_extra_args(false);
    cmd->add_flag("--no-cache", options.no_cache,
                  "Neither read nor write the code cache on disk (see mdl cache)");
}

std::pair<std::string, double> parse_assignment(const std::string& text) {
    auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
        throw std::invalid_argument(
            fmt::format("-p expects name=value (e.g. -p omega=1e6), got '{}'", text));
    }
    std::string name = text.substr(0, eq), value = text.substr(eq + 1);
    // from_chars: subnormals (4e-320) are numbers; std::stod threw out_of_range for them
    double parsed = 0;
    const char* end = value.data() + value.size();
    const auto [ptr, error] = std::from_chars(value.data(), end, parsed);
    if (error != std::errc() || ptr != end) {
        throw std::invalid_argument(fmt::format("-p {}: '{}' is not a number", name, value));
    }
    if (!std::isfinite(parsed)) {
        throw std::invalid_argument(
            fmt::format("-p {}: the value must be finite, got '{}'", name, value));
    }
    return {name, parsed};
}

std::vector<std::pair<std::string, double>>
parse_assignments(const std::vector<std::string>& texts) {
    std::vector<std::pair<std::string, double>> assignments;
    for (const std::string& text : texts) {
        assignments.push_back(parse_assignment(text));
    }
    return assignments;
}

CompileOptions compile_options(const ModelOptions& options) {
    CompileOptions compile;
    compile.library_paths = options.library_paths;
    compile.structural_parameters = parse_assignments(options.parameters);
    compile.disk_cache = !options.no_cache;
    return compile;
}

} // namespace mdl::cli
