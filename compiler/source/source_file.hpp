// A model's source text with its name and a line table, and the byte ranges that every
// AST node and diagnostic refers to.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mdl::source {

// A half-open byte range [begin, end) in one source file. `file` numbers the file among those
// a Diagnostics knows (0: the main file); a file instantiated as a component has one number per
// instance, so a diagnostic can say which instance it is about (see Diagnostics::add_file).
struct Range {
    std::uint32_t begin = 0;
    std::uint32_t end = 0;
    std::uint32_t file = 0;

    static Range at(std::uint32_t offset, std::uint32_t file = 0) { return {offset, offset, file}; }
    Range to(Range other) const { return {begin, other.end > end ? other.end : end, file}; }
    bool operator==(const Range&) const = default;
};

struct LineColumn {
    std::uint32_t line = 1;   // 1-based
    std::uint32_t column = 1; // 1-based, in bytes (as clang counts)
};

class SourceFile {
public:
    // Reads a file; throws std::runtime_error naming the path when it cannot be read.
    static SourceFile read(const std::string& path);
    SourceFile(std::string name, std::string text);

    const std::string& name() const { return name_; }
    const std::string& text() const { return text_; }

    LineColumn line_column(std::uint32_t offset) const;
    // The text of a 1-based line without its line terminator ("\n" or "\r\n").
    std::string_view line_text(std::uint32_t line) const;
    std::string_view slice(Range r) const;

private:
    std::string name_;
    std::string text_;
    std::vector<std::uint32_t> line_starts_;
};

} // namespace mdl::source
