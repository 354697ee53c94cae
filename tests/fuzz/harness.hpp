// The bodies of the fuzz harnesses, shared with the regression test that replays every input
// the fuzzers ever crashed on (tests/fuzz/regressions/).
#pragma once

#include "check/checker.hpp"
#include "check/front_end.hpp"
#include "parse/parser.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace mdl::fuzz {

// Parses arbitrary bytes; renders the diagnostics so that every location is exercised.
inline std::optional<ast::Model> parse_bytes(const source::SourceFile& file,
                                             source::Diagnostics& diagnostics) {
    auto model = parse::parse_model(file, diagnostics);
    (void)diagnostics.render();
    return model;
}

inline void parse_only(const std::uint8_t* data, std::size_t size) {
    source::SourceFile file("fuzz.mdl", std::string(reinterpret_cast<const char*>(data), size));
    source::Diagnostics diagnostics(file);
    (void)parse_bytes(file, diagnostics);
}

inline void parse_and_check(const std::uint8_t* data, std::size_t size) {
    source::SourceFile file("fuzz.mdl", std::string(reinterpret_cast<const char*>(data), size));
    source::Diagnostics diagnostics(file);
    // The whole front end: parse, flatten (arrays, loops, components), check.
    (void)check::check_file(file, diagnostics);
    (void)diagnostics.render();
}

} // namespace mdl::fuzz
