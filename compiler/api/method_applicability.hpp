// Which multiscale methods apply to a compiled model, and why not (mdl check).
#pragma once

#include "mdl/compiled_model.hpp"

#include <string>
#include <vector>

namespace mdl {

struct MethodVerdict {
    std::string method; // "hmm", "strobo", ...
    bool applies = false;
    std::string detail; // the settings it applies with, or why it does not
};

// The verdicts of hmm (or hmm-shake and hmm-rattle for a constrained model), strobo and
// hmm-stiff with the model's own settings (its experiment annotation).
std::vector<MethodVerdict> multiscale_verdicts(const CompiledModel& compiled);

} // namespace mdl
