// The options that say how a model file is compiled, shared by the commands that compile one
// (check, compile, run, sweep): -p name=value (Integer parameters fix the structure),
// --library DIR, --no-cache.
#pragma once

#include "mdl/compiled_model.hpp"

#include <CLI/CLI.hpp>
#include <string>
#include <utility>
#include <vector>

namespace mdl::cli {

struct ModelOptions {
    std::vector<std::string> parameters; // name=value
    std::vector<std::string> library_paths;
    bool no_cache = false;
};

// -p, --library and --no-cache as `mdl check` and `mdl compile` offer them.
void add_model_options(CLI::App* cmd, ModelOptions& options);

// "name=value" of -p, or std::invalid_argument naming the flag.
std::pair<std::string, double> parse_assignment(const std::string& text);
// Each of -p's values parsed in turn.
std::vector<std::pair<std::string, double>>
parse_assignments(const std::vector<std::string>& texts);

// The compile options the flags ask for.
CompileOptions compile_options(const ModelOptions& options);

} // namespace mdl::cli
