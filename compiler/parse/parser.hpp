// Source text -> AST. Syntax errors go to the diagnostics; parsing recovers at the next ';'
// so that several syntax errors are reported in one run.
#pragma once

#include "parse/ast.hpp"
#include "source/diagnostics.hpp"

#include <optional>

namespace mdl::parse {

// Limits that keep hostile input from exhausting the stack.
inline constexpr int max_expression_depth = 256;

// Returns the model when the text has no syntax error; otherwise nullopt, with every error
// found reported to `diagnostics`.
std::optional<ast::Model> parse_model(const source::SourceFile& file,
                                      source::Diagnostics& diagnostics);

} // namespace mdl::parse
