// Diagnostics as values, printed as clang prints them:
//   file:line:col: error: message
//     source line
//         ^~~~~
#pragma once

#include "source/source_file.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace mdl::source {

enum class Severity { note, warning, error };

struct Diagnostic {
    Severity severity = Severity::error;
    Range range;
    std::string message;
};

class Diagnostics {
public:
    explicit Diagnostics(const SourceFile& file, std::size_t error_limit = 20)
        : files_{{&file, std::nullopt, {}}}, error_limit_(error_limit) {}

    // Registers another source file (a component's model) and returns the number its ranges
    // carry in Range::file. With `instantiated_at`, every diagnostic in this file is followed by
    // the note "in <context>" pointing there (clang's "in instantiation of" notes), so an error
    // in a component names the instance it was found in; nested instances chain their notes.
    // The file must outlive the diagnostics.
    std::uint32_t add_file(const SourceFile& file, std::optional<Range> instantiated_at = {},
                           std::string context = {});

    void error(Range where, std::string message);
    void warning(Range where, std::string message);
    // A note belongs to the error or warning before it (clang's "previous declaration is here").
    void note(Range where, std::string message);

    bool has_errors() const { return errors_ > 0; }
    std::size_t error_count() const { return errors_; }
    std::size_t warning_count() const { return warnings_; }
    // True once the error limit is reached: callers may stop looking for more.
    bool saturated() const { return errors_ >= error_limit_; }
    const std::vector<Diagnostic>& all() const { return list_; }
    const SourceFile& file() const { return *files_[0].file; } // the main file
    const SourceFile& file(std::uint32_t id) const { return *files_.at(id).file; }
    std::size_t file_count() const { return files_.size(); }

    // Every diagnostic, then "N errors generated." when there were errors.
    std::string render(bool color = false) const;
    std::string render(const Diagnostic& d, bool color = false) const;

private:
    void add(Severity s, Range where, std::string message);
    std::string render_one(Severity s, Range where, const std::string& message, bool color) const;

    struct FileEntry {
        const SourceFile* file;
        std::optional<Range> instantiated_at;
        std::string context;
    };
    std::vector<FileEntry> files_;
    std::size_t error_limit_;
    std::vector<Diagnostic> list_;
    std::size_t errors_ = 0;
    std::size_t warnings_ = 0;
    bool dropped_ = false; // past the limit: notes of dropped errors are dropped too
};

// The closest of `candidates` to `name` by edit distance, or "" when none is close enough
// to suggest ("did you mean 'omega'?").
std::string closest_name(const std::string& name, const std::vector<std::string>& candidates);

} // namespace mdl::source
