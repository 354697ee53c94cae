// The reference evaluator: walks the DAG in double precision, computing each node once per
// evaluation. It defines what compiled kernels must compute (numeric.hpp gives the exact
// operations), and is what the tests compare the JIT against.
#pragma once

#include "symbolic/expr.hpp"

#include <span>
#include <vector>

namespace mdl::symbolic {

// Values for every kind of variable; a span must cover every index the expressions use.
struct VariableValues {
    double t = 0.0;
    std::span<const double> q{};     // positions
    std::span<const double> v{};     // velocities
    std::span<const double> x{};     // first-order states
    std::span<const double> theta{}; // vibration phases
    std::span<const double> p{};     // parameters
};

class Evaluator {
public:
    explicit Evaluator(const ExprPool& pool) : pool_(&pool) {}

    // out[i] = value of roots[i]. Throws std::out_of_range when an expression uses a variable
    // index that `at` does not cover.
    void evaluate(std::span<const ExprId> roots, const VariableValues& at, std::span<double> out);
    std::vector<double> evaluate(std::span<const ExprId> roots, const VariableValues& at);
    double evaluate(ExprId root, const VariableValues& at);

private:
    double variable_value(ExprId id, const VariableValues& at) const;

    const ExprPool* pool_;
    std::vector<double> values_; // indexed by node id; valid for the nodes of one evaluation
};

} // namespace mdl::symbolic
