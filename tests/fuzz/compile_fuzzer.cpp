// libFuzzer harness: the whole compiler on arbitrary bytes. Inputs that pass the checks are
// turned into the symbolic system, JIT-compiled and every kernel is called once at a fixed
// state: nothing may crash, leak or trip a sanitizer, and expression swell must end in an
// error, not a hang (the body is harness.hpp's, which the regression test replays).
#include "harness.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    mdl::fuzz::compile_and_call(data, size);
    return 0;
}
