// Diagnostics as values, printed as clang prints them:
//   file:line:col: error: message
//     source line
//         ^~~~~
#pragma once

#include "source/source_file.hpp"

#include <cstddef>
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
        : file_(&file), error_limit_(error_limit) {}

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
    const SourceFile& file() const { return *file_; }

    // Every diagnostic, then "N errors generated." when there were errors.
    std::string render(bool color = false) const;
    std::string render(const Diagnostic& d, bool color = false) const;

private:
    void add(Severity s, Range where, std::string message);

    const SourceFile* file_;
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
