// Every file in tests/bad_models/ states the diagnostics it must produce, in order, as
// "// expect: LINE:COL: SEVERITY: MESSAGE" lines (or in FILE.expect beside it), and every
// shipped model in models/ must check without any diagnostic.
#include "check/checker.hpp"
#include "check/front_end.hpp"
#include "parse/parser.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using namespace mdl;

namespace {

std::vector<fs::path> files_in(const fs::path& dir, const std::string& extension) {
    std::vector<fs::path> out;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() == extension) {
            out.push_back(entry.path());
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Diagnostics of the front end (parse, flatten, check) as "line:col: severity: message", with
// "File.mdl:" before the line when the diagnostic is in another file (a component's model).
std::vector<std::string> diagnose(const source::SourceFile& file, bool& ok) {
    source::Diagnostics diagnostics(file);
    std::optional<check::CheckedModel> model = check::check_file(file, diagnostics);
    ok = model.has_value();
    std::vector<std::string> out;
    for (const auto& d : diagnostics.all()) {
        const auto& in = diagnostics.file(d.range.file);
        auto lc = in.line_column(d.range.begin);
        std::string where = &in == &file ? "" : fs::path(in.name()).filename().string() + ":";
        const char* severity = d.severity == source::Severity::error     ? "error"
                               : d.severity == source::Severity::warning ? "warning"
                                                                         : "note";
        out.push_back(where + std::to_string(lc.line) + ":" + std::to_string(lc.column) + ": " +
                      severity + ": " + d.message);
    }
    return out;
}

std::vector<std::string> expectations(const fs::path& path, const std::string& text) {
    std::vector<std::string> out;
    auto collect = [&](std::istream& in) {
        const std::string marker = "// expect: ";
        std::string line;
        while (std::getline(in, line)) {
            if (!line.empty() && line.back() == '\r') {
                line.pop_back();
            }
            if (line.rfind(marker, 0) == 0) {
                out.push_back(line.substr(marker.size()));
            } else if (path.extension() == ".expect" && !line.empty()) {
                out.push_back(line);
            }
        }
    };
    std::istringstream in(text);
    collect(in);
    fs::path sidecar = path;
    sidecar += ".expect";
    if (fs::exists(sidecar)) {
        std::ifstream side(sidecar);
        std::string line;
        while (std::getline(side, line)) {
            if (!line.empty()) {
                out.push_back(line);
            }
        }
    }
    return out;
}

} // namespace

TEST_CASE("each bad model gives exactly its expected located diagnostics") {
    auto files = files_in(fs::path(MDL_SOURCE_DIR) / "tests" / "bad_models", ".mdl");
    REQUIRE(files.size() >= 15);
    for (const auto& path : files) {
        auto file = source::SourceFile::read(path.string());
        std::vector<std::string> expected = expectations(path, file.text());
        INFO(path.filename().string());
        REQUIRE_FALSE(expected.empty());
        bool ok = true;
        std::vector<std::string> got = diagnose(file, ok);
        CHECK_FALSE(ok);
        CHECK(got == expected);
    }
}

TEST_CASE("every shipped model checks without a diagnostic") {
    auto files = files_in(fs::path(MDL_SOURCE_DIR) / "models", ".mdl");
    REQUIRE(files.size() >= 6);
    for (const auto& path : files) {
        INFO(path.filename().string());
        auto file = source::SourceFile::read(path.string());
        bool ok = false;
        std::vector<std::string> got = diagnose(file, ok);
        CHECK(ok);
        CHECK(got.empty());
    }
}
