// Readable infix printing: minimal parentheses, subtraction and division where the canonical
// form has (-1)* and ^-1, and shared sub-expressions printed once.
//
//     (g + vmax*omega*cos(theta))*sin(q)/l
//
// A DAG printed as a tree can be exponentially long, so a listing names every shared
// sub-expression that is not small (#1, #2, ...) and defines it once before its first use;
// very deep expressions are cut into named pieces too. Output is linear in the DAG's size.
#pragma once

#include "symbolic/expr.hpp"

#include <span>
#include <string>
#include <vector>

namespace mdl::symbolic {

// The names variables print as; a missing name prints as p[3], q[0], der(q[0]) and so on.
struct VariableNames {
    std::vector<std::string> parameters;
    std::vector<std::string> positions;
    std::vector<std::string> velocities; // empty entries print as der(position name)
    std::vector<std::string> states;
    std::vector<std::string> phases;
    std::string time = "t";

    std::string name(Variable v) const;
};

struct Labelled {
    std::string label;
    ExprId expr;
};

struct PrintOptions {
    // A shared sub-expression is named when its inline text would hold more nodes than this.
    std::size_t inline_size = 12;
    // Nesting deeper than this is cut into named pieces.
    std::size_t max_depth = 40;
};

// "label = expression" lines, preceded by the "#k = ..." definitions they use.
std::string print_listing(const ExprPool& pool, std::span<const Labelled> entries,
                          const VariableNames& names = {}, const PrintOptions& options = {});

// One expression; when it has named pieces, their definitions come first, one per line.
std::string to_string(const ExprPool& pool, ExprId e, const VariableNames& names = {},
                      const PrintOptions& options = {});

// The shortest text that reads back as the same double ("0.1", "9.81", "1e-08").
std::string format_number(double value);

} // namespace mdl::symbolic
