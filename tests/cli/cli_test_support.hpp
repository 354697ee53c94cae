// What the tests of the mdl executable share (run_test, sweep_test, plot_test): running a
// command and capturing its output and exit status, the shipped models' paths, and reading
// the files mdl writes (CSV). MDL_EXECUTABLE is defined for these test programs by
// tests/cli/CMakeLists.txt, MDL_SOURCE_DIR and MDL_BINARY_DIR by mdl_add_test.
#pragma once

#include <array>
#include <catch2/catch.hpp>
#include <charconv>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace cli_test {

struct Result {
    int status = -1;
    std::string output; // stdout and stderr
};

// Runs `command` through the shell, its stdout and stderr captured together; the status is
// the exit status (-1 when the command did not exit normally).
inline Result run_command(const std::string& command) {
    Result r;
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::array<char, 4096> buffer{};
    std::size_t n = 0;
    while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
        r.output.append(buffer.data(), n);
    }
    const int status = pclose(pipe);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

// The mdl executable under test with `arguments` (shell words).
inline Result mdl(const std::string& arguments) {
    return run_command(std::string(MDL_EXECUTABLE) + " " + arguments);
}

// The path of models/<name> in the source tree.
inline std::string model(const std::string& name) {
    return std::string(MDL_SOURCE_DIR) + "/models/" + name;
}

// A file's whole contents; the file must exist.
inline std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// RFC 4180 fields of one line.
inline std::vector<std::string> fields(const std::string& line) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
            out.back() += '"';
            ++i;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            out.emplace_back();
        } else {
            out.back() += c;
        }
    }
    return out;
}

// The index of the column `name` in a CSV header (a test failure when there is none).
inline std::size_t column_index(const std::vector<std::string>& header, const std::string& name) {
    for (std::size_t i = 0; i < header.size(); ++i) {
        if (header[i] == name) {
            return i;
        }
    }
    FAIL("no column " << name);
    return 0;
}

// A CSV file as text cells, looked up by column name; every row must have the header's width.
struct CsvTable {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;

    explicit CsvTable(const std::filesystem::path& path) {
        std::stringstream in(read_file(path));
        std::string line;
        REQUIRE(std::getline(in, line));
        header = fields(line);
        while (std::getline(in, line)) {
            rows.push_back(fields(line));
            REQUIRE(rows.back().size() == header.size());
        }
    }
    std::size_t column(const std::string& name) const { return column_index(header, name); }
    const std::string& text(std::size_t row, const std::string& name) const {
        return rows.at(row).at(column(name));
    }
    double number(std::size_t row, const std::string& name) const {
        return std::stod(text(row, name));
    }
};

// A CSV file of numbers (mdl run's trajectories) as its header and rows of numbers; every row
// must have the header's width and every cell must be a number.
struct CsvNumbers {
    std::vector<std::string> header;
    std::vector<std::vector<double>> rows;

    explicit CsvNumbers(const std::filesystem::path& path) {
        const CsvTable table(path);
        header = table.header;
        for (const std::vector<std::string>& cells : table.rows) {
            std::vector<double>& row = rows.emplace_back();
            for (const std::string& cell : cells) {
                // from_chars: a subnormal (4e-320) is a number; std::stod throws for it
                double value = 0;
                const auto [end, error] =
                    std::from_chars(cell.data(), cell.data() + cell.size(), value);
                REQUIRE((error == std::errc() && end == cell.data() + cell.size()));
                row.push_back(value);
            }
        }
    }
    std::size_t column(const std::string& name) const { return column_index(header, name); }
};

} // namespace cli_test
