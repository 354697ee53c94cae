#include "symbolic/rule_trace.hpp"

namespace mdl::symbolic {

RuleTrace*& rule_trace() {
    thread_local RuleTrace* trace = nullptr;
    return trace;
}

} // namespace mdl::symbolic
