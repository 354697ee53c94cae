// Where the docs generators (the hidden "[.docs]" test cases) write: $MDL_DOCS_DIR when set
// (the staleness test and scripts/regenerate-docs --check compare a fresh generation with the
// committed files), else the source tree's docs/.
#pragma once

#include <cstdlib>
#include <string>

namespace mdl::test {

inline std::string docs_output_dir() {
    if (const char* dir = std::getenv("MDL_DOCS_DIR"); dir && *dir) {
        return std::string(dir) + "/";
    }
    return std::string(MDL_SOURCE_DIR) + "/docs/";
}

} // namespace mdl::test
