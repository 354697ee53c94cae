// The library's warnings (a damaged code-cache entry, a sweep's worker process that could not be
// replaced): handed to the handler of mdl::set_warning_handler (mdl/compiled_model.hpp), never
// printed by the library; dropped without a handler.
#pragma once

#include <string>

namespace mdl {

// Thread-safe; the handler runs on the calling thread.
void warn(const std::string& warning);

} // namespace mdl
