// libFuzzer harness: parser + semantic checks on arbitrary bytes.
#include "harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    mdl::fuzz::parse_and_check(data, size);
    return 0;
}
