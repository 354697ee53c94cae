// Replays every input a fuzzer once crashed, hung or tripped a sanitizer on, through every
// harness body (parse, check, and the whole compile with each kernel called): each must now
// come back (with or without a model) under the sanitizers.
#include "harness.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>

TEST_CASE("inputs the fuzzers once failed on are handled") {
    namespace fs = std::filesystem;
    std::size_t count = 0;
    for (const auto& entry :
         fs::directory_iterator(fs::path(MDL_SOURCE_DIR) / "tests" / "fuzz" / "regressions")) {
        std::ifstream in(entry.path(), std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        INFO(entry.path().filename().string());
        const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
        mdl::fuzz::parse_only(data, bytes.size());
        mdl::fuzz::parse_and_check(data, bytes.size());
        mdl::fuzz::compile_and_call(data, bytes.size());
        ++count;
    }
    CHECK(count > 0);
}
