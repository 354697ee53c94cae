// libFuzzer harness: the parser on arbitrary bytes must report errors, never crash or hang.
#include "harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    mdl::fuzz::parse_only(data, size);
    return 0;
}
