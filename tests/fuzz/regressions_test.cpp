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

TEST_CASE("the seed corpus is valid models, one per construct of the grammar") {
    // tests/fuzz/seeds/ seeds the fuzzers (scripts/fuzz) with arrays, loops, components,
    // reductions, if-expressions, when-clauses, kinetic energies, rigid bodies, points and
    // joints: a seed that no longer checks would start the mutations from an error instead of
    // from the construct.
    namespace fs = std::filesystem;
    std::size_t count = 0;
    for (const auto& entry :
         fs::directory_iterator(fs::path(MDL_SOURCE_DIR) / "tests" / "fuzz" / "seeds")) {
        std::ifstream in(entry.path(), std::ios::binary);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        INFO(entry.path().filename().string());
        mdl::source::SourceFile file(entry.path().filename().string(), text);
        mdl::source::Diagnostics diagnostics(file);
        const bool checked = mdl::check::check_file(file, diagnostics).has_value();
        INFO(diagnostics.render());
        CHECK(checked);
        CHECK_FALSE(diagnostics.has_errors());
        ++count;
    }
    CHECK(count >= 5);
}
