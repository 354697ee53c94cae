// Source text -> AST. Syntax errors go to the diagnostics; parsing recovers at the next ';'
// so that several syntax errors are reported in one run.
#pragma once

#include "parse/ast.hpp"
#include "source/diagnostics.hpp"

#include <optional>

namespace mdl::parse {

// Limits that keep hostile input from exhausting the stack: the grammar's nesting, and the
// height of an expression tree (a chain a + b + c + ... is as deep as it is long), which every
// later stage walks recursively.
inline constexpr int max_expression_depth = 256;
inline constexpr std::uint32_t max_tree_depth = 1000;

// Every model of a file when the text has no syntax error; otherwise nullopt, with every error
// found reported to `diagnostics`. The ranges carry `file_id` (Diagnostics::add_file).
std::optional<ast::File> parse_file(const source::SourceFile& file,
                                    source::Diagnostics& diagnostics, std::uint32_t file_id = 0);

// The last model of a file (the one it is run as), as parse_file.
std::optional<ast::Model> parse_model(const source::SourceFile& file,
                                      source::Diagnostics& diagnostics);

} // namespace mdl::parse
