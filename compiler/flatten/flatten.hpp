// Instantiation: a model with arrays, for-loops, Integer parameters and instances of other
// models -> the flat model the checker reads (compiler/check). Modelica calls this step
// flattening. Everything structural is decided here, at compile time:
//   - Integer parameters (with their -p overrides) are evaluated and replaced by numbers;
//   - `for` loops are unrolled, loop variables replaced by numbers;
//   - arrays become one declaration per element, named b[1], b[2], ... (parameters k[1], ...);
//     comprehensions {e for i in 1:n} and reductions sum/product/min/max are expanded;
//   - each instance `Pendulum left(l = 0.2)` becomes the declarations of Pendulum renamed
//     left.l, left.b, ..., with the modifiers applied; an anchor of the instance bound to an
//     outer point (`pivot = cart.b`) stands for that point.
// Names in the flat model are the hierarchical names users see everywhere (CSV columns, -p,
// diagnostics). Ranges of an instance's declarations carry a file id of their own, so a
// diagnostic about them is followed by "in instance 'left' of Pendulum" pointing at the
// instance (source::Diagnostics::add_file).
#pragma once

#include "flatten/model_library.hpp"
#include "parse/ast.hpp"
#include "source/diagnostics.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mdl::flatten {

// Bounds that keep a model from unrolling into more than the machine can hold.
inline constexpr long long max_elements = 2'000'000; // declarations + equations after unrolling
inline constexpr int max_instance_depth = 64;

struct FlattenOptions {
    // name = value overrides (-p); those naming an Integer parameter (hierarchical names
    // such as left.n too) change the structure, the others are left to the caller.
    std::vector<std::pair<std::string, double>> overrides;
};

// An Integer parameter as compiled: structural, so changing it means recompiling.
struct StructuralParameter {
    std::string name; // hierarchical
    long long value = 0;
    bool overridden = false; // set by FlattenOptions::overrides
};

struct FlatModel {
    ast::Model model;                            // no loops, instances or subscripts left
    std::vector<StructuralParameter> structural; // every Integer parameter
    std::vector<std::string> used_overrides;     // names of the overrides applied here
};

// The flat form of the library's main model, or nullopt after reporting every error found.
std::optional<FlatModel> flatten(ModelLibrary& library, const FlattenOptions& options,
                                 source::Diagnostics& diagnostics);

} // namespace mdl::flatten
