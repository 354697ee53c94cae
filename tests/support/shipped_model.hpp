// A shipped model (models/<file>) compiled and set up for the runtime as `mdl run` does it
// (compiler/api/runtime_view: parameter values, names, start state). Shared by the test programs
// that run the shipped models (link mdl_test_support; MDL_SOURCE_DIR is defined for every
// test program by mdl_add_test).
#pragma once

#include "compiler/api/runtime_view.hpp"
#include "mdl/compiled_model.hpp"
#include "runtime/model.hpp"
#include "runtime/state.hpp"

#include <string>
#include <utility>

namespace mdl::test {

// The path of models/<file> in the source tree.
inline std::string shipped_model_path(const std::string& file) {
    return std::string(MDL_SOURCE_DIR) + "/models/" + file;
}

// Any compiled model (a test's own source text, ...) set up for the runtime the same way.
struct LoadedModel {
    explicit LoadedModel(CompiledModel c)
        : compiled(std::move(c)), model(mdl::runtime_model(compiled)) {}

    // The model's start positions and velocities (and first-order states) at time t0.
    runtime::State start(double t0 = 0.0) const { return mdl::initial_state(compiled, model, t0); }

    CompiledModel compiled;
    runtime::Model model;
};

struct ShippedModel : LoadedModel {
    explicit ShippedModel(const std::string& file, const CompileOptions& options = {})
        : LoadedModel(compile_file(shipped_model_path(file), options)) {}
};

} // namespace mdl::test
