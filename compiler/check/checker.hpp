// AST -> checked model: name resolution, the rules of each declaration, parameter dependency
// order, what each kind of expression may depend on, and the system being square.
#pragma once

#include "check/checked_model.hpp"
#include "parse/ast.hpp"
#include "source/diagnostics.hpp"

#include <optional>

namespace mdl::check {

// The checked model, or nullopt after reporting every error found to `diagnostics`.
// Warnings do not prevent a model.
std::optional<CheckedModel> check_model(const ast::Model& model, source::Diagnostics& diagnostics);

// The names that are built into the language (functions, der, time, pi).
bool is_builtin_name(const std::string& name);

} // namespace mdl::check
