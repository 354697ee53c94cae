#include "source/source_file.hpp"

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace mdl::source {

SourceFile SourceFile::read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw std::runtime_error("cannot open '" + path + "'");
    }
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad()) {
        throw std::runtime_error("cannot read '" + path + "'");
    }
    return SourceFile(path, buffer.str());
}

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
    if (text_.size() >= std::numeric_limits<std::uint32_t>::max()) {
        throw std::runtime_error("'" + name_ + "' is larger than 4 GiB");
    }
    line_starts_.push_back(0);
    for (std::uint32_t i = 0; i < text_.size(); ++i) {
        if (text_[i] == '\n') {
            line_starts_.push_back(i + 1);
        }
    }
}

LineColumn SourceFile::line_column(std::uint32_t offset) const {
    offset = std::min<std::uint32_t>(offset, static_cast<std::uint32_t>(text_.size()));
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    auto line = static_cast<std::uint32_t>(it - line_starts_.begin()); // 1-based
    return {line, offset - line_starts_[line - 1] + 1};
}

std::string_view SourceFile::line_text(std::uint32_t line) const {
    if (line == 0 || line > line_starts_.size()) {
        return {};
    }
    std::uint32_t begin = line_starts_[line - 1];
    std::uint32_t end = line < line_starts_.size() ? line_starts_[line] - 1
                                                   : static_cast<std::uint32_t>(text_.size());
    std::string_view s(text_.data() + begin, end - begin);
    if (!s.empty() && s.back() == '\r') {
        s.remove_suffix(1);
    }
    return s;
}

std::string_view SourceFile::slice(Range r) const {
    auto size = static_cast<std::uint32_t>(text_.size());
    std::uint32_t b = std::min(r.begin, size);
    std::uint32_t e = std::min(std::max(r.end, b), size);
    return std::string_view(text_).substr(b, e - b);
}

} // namespace mdl::source
