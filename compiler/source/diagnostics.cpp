#include "source/diagnostics.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace mdl::source {

void Diagnostics::add(Severity s, Range where, std::string message) {
    if (s == Severity::note) {
        if (!dropped_) {
            list_.push_back({s, where, std::move(message)});
        }
        return;
    }
    if (s == Severity::error && errors_ >= error_limit_) {
        dropped_ = true;
        return;
    }
    dropped_ = false;
    (s == Severity::error ? errors_ : warnings_) += 1;
    list_.push_back({s, where, std::move(message)});
}

void Diagnostics::error(Range where, std::string message) {
    add(Severity::error, where, std::move(message));
}
void Diagnostics::warning(Range where, std::string message) {
    add(Severity::warning, where, std::move(message));
}
void Diagnostics::note(Range where, std::string message) {
    add(Severity::note, where, std::move(message));
}

namespace {
const char* label(Severity s) {
    switch (s) {
    case Severity::note:
        return "note";
    case Severity::warning:
        return "warning";
    case Severity::error:
        return "error";
    }
    return "error";
}
const char* color_of(Severity s) {
    switch (s) {
    case Severity::note:
        return "\033[1;30m";
    case Severity::warning:
        return "\033[1;35m";
    case Severity::error:
        return "\033[1;31m";
    }
    return "";
}
} // namespace

std::uint32_t Diagnostics::add_file(const SourceFile& file, std::optional<Range> instantiated_at,
                                    std::string context) {
    files_.push_back({&file, instantiated_at, std::move(context)});
    return static_cast<std::uint32_t>(files_.size() - 1);
}

std::string Diagnostics::render(const Diagnostic& d, bool color) const {
    std::string out = render_one(d.severity, d.range, d.message, color);
    // The chain of instances the range lies in, innermost first.
    std::uint32_t id = d.range.file;
    for (std::size_t depth = 0; id < files_.size() && files_[id].instantiated_at && depth < 64;
         ++depth) {
        const FileEntry& entry = files_[id];
        out += render_one(Severity::note, *entry.instantiated_at, "in " + entry.context, color);
        id = entry.instantiated_at->file;
    }
    return out;
}

std::string Diagnostics::render_one(Severity severity, Range range, const std::string& message,
                                    bool color) const {
    const SourceFile& f = *files_.at(range.file < files_.size() ? range.file : 0).file;
    LineColumn lc = f.line_column(range.begin);
    std::string out;
    const char* bold = color ? "\033[1m" : "";
    const char* reset = color ? "\033[0m" : "";
    out +=
        fmt::format("{}{}:{}:{}: {}{}:{} {}{}{}\n", bold, f.name(), lc.line, lc.column,
                    color ? color_of(severity) : "", label(severity), reset, bold, message, reset);
    std::string_view line = f.line_text(lc.line);
    std::uint32_t col0 = lc.column - 1;
    // A very long line is shown as a window around the caret, as clang does.
    constexpr std::uint32_t window = 120;
    std::string shown;
    if (line.size() > window) {
        std::uint32_t from = col0 > window / 2 ? col0 - window / 2 : 0;
        shown = (from > 0 ? "..." : "") + std::string(line.substr(from, window));
        col0 = col0 - from + (from > 0 ? 3 : 0);
        if (from + window < line.size()) {
            shown += "...";
        }
    } else {
        shown = line;
    }
    out += shown;
    out += '\n';
    // The caret line repeats the tabs of the source line so the caret lands under the column,
    // then underlines the rest of the range while it stays on the shown line.
    std::string marker;
    for (std::uint32_t i = 0; i < col0 && i < shown.size(); ++i) {
        marker += shown[i] == '\t' ? '\t' : ' ';
    }
    marker += '^';
    std::uint32_t length = range.end > range.begin ? range.end - range.begin : 1;
    for (std::uint32_t c = col0 + 1; c < col0 + length && c < shown.size(); ++c) {
        marker += '~';
    }
    out += color ? fmt::format("\033[1;32m{}\033[0m\n", marker) : marker + "\n";
    return out;
}

std::string Diagnostics::render(bool color) const {
    std::string out;
    for (const Diagnostic& d : list_) {
        out += render(d, color);
    }
    if (errors_ >= error_limit_) {
        out += fmt::format("fatal error: too many errors emitted, stopping now\n");
    }
    if (errors_ > 0 || warnings_ > 0) {
        std::string summary;
        if (warnings_ > 0) {
            summary += fmt::format("{} warning{}", warnings_, warnings_ == 1 ? "" : "s");
        }
        if (errors_ > 0) {
            summary += fmt::format("{}{} error{}", summary.empty() ? "" : " and ", errors_,
                                   errors_ == 1 ? "" : "s");
        }
        out += summary + " generated.\n";
    }
    return out;
}

namespace {
// Optimal string alignment distance: Levenshtein plus transposition of neighbours, the
// commonest typo ("omgea" for "omega").
std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) {
        d[i][0] = i;
    }
    for (std::size_t j = 0; j <= b.size(); ++j) {
        d[0][j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
            }
        }
    }
    return d[a.size()][b.size()];
}
} // namespace

std::string closest_name(const std::string& name, const std::vector<std::string>& candidates) {
    std::string best;
    // At most a third of the name may differ, so one- and two-letter names get no guesses.
    std::size_t best_d = name.size() / 3 + 1;
    for (const std::string& c : candidates) {
        if (c == name) {
            continue;
        }
        std::size_t d = edit_distance(name, c);
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    return best;
}

} // namespace mdl::source
