// A window on the simplification rules for the test of their termination argument
// (simplify.cpp, tests/symbolic/termination_test.cpp): each call of a canonicalizing constructor
// of ExprPool (add, mul, pow, call, comparison, select) is reported to the observer installed
// on the calling thread, with its arguments on entry and on exit (also by an exception), so a
// test can check that every constructor call made while another one runs (a rule's recursive
// call) has a smaller measure than that one. No observer is installed outside that test: a
// constructor then pays one test of a thread-local pointer.
#pragma once

#include "symbolic/expr.hpp"

#include <cstdint>
#include <span>

namespace mdl::symbolic {

class RuleTrace {
public:
    virtual ~RuleTrace() = default;
    // A constructor is entered: `op` with `tag` (the function or the relation) over `args`,
    // canonical nodes of `pool`.
    virtual void enter(const ExprPool& pool, Op op, std::uint8_t tag,
                       std::span<const ExprId> args) = 0;
    // The constructor entered last returns (or throws).
    virtual void leave() = 0;
};

// The observer of this thread's constructor calls; nullptr (the default) for none.
RuleTrace*& rule_trace();

// At the top of each constructor: reports its entry, and its exit when it goes out of scope.
class RuleScope {
public:
    RuleScope(const ExprPool& pool, Op op, std::uint8_t tag, std::span<const ExprId> args)
        : trace_(rule_trace()) {
        if (trace_) {
            trace_->enter(pool, op, tag, args);
        }
    }
    RuleScope(const RuleScope&) = delete;
    RuleScope& operator=(const RuleScope&) = delete;
    ~RuleScope() {
        if (trace_) {
            trace_->leave();
        }
    }

private:
    RuleTrace* trace_;
};

} // namespace mdl::symbolic
