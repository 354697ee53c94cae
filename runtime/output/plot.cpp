#include "runtime/output/plot.hpp"

#include "runtime/names.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <set>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace mdl::runtime {

namespace {

using Kind = PlotError::Kind;

// One RFC 4180 line: fields separated by commas, a quoted field may hold commas and doubled
// quotes.
std::vector<std::string> split_csv_line(const std::string& line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                fields.back() += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                fields.back() += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.emplace_back();
        } else {
            fields.back() += c;
        }
    }
    return fields;
}

// A gnuplot single-quoted string: no escapes, a quote is doubled.
std::string quote(const std::string& text) {
    std::string quoted = "'";
    for (char c : text) {
        quoted += c;
        if (c == '\'') {
            quoted += '\'';
        }
    }
    return quoted + "'";
}

std::string stem(const std::string& file) {
    return std::filesystem::path(file).stem().string();
}

// The 1-based column of `name`, or a PlotError naming the near miss and some columns.
std::size_t column_number(const std::vector<std::string>& header, const std::string& name,
                          const std::string& file, Kind kind) {
    auto found = std::find(header.begin(), header.end(), name);
    if (found != header.end()) {
        return static_cast<std::size_t>(found - header.begin()) + 1;
    }
    std::string message = "no column '" + name + "' in '" + file + "'";
    const std::string suggestion =
        closest_name(name, std::vector<std::string_view>(header.begin(), header.end()));
    if (!suggestion.empty()) {
        message += "; did you mean '" + suggestion + "'?";
    }
    message += " (columns:";
    const std::size_t shown = std::min<std::size_t>(header.size(), 12);
    for (std::size_t i = 0; i < shown; ++i) {
        message += (i ? ", " : " ") + header[i];
    }
    if (shown < header.size()) {
        message += ", ... " + std::to_string(header.size() - shown) + " more";
    }
    throw PlotError(kind, message + ")");
}

const char* style_text(PlotStyle style) {
    switch (style) {
    case PlotStyle::points:
        return "points pointtype 7 pointsize 0.6";
    case PlotStyle::linespoints:
        return "linespoints pointtype 7 pointsize 0.6";
    case PlotStyle::lines:
        break;
    }
    return "lines linewidth 1.5";
}

// Runs `program -d script` with stdout and stderr captured; returns the exit status and
// leaves the output in `messages`. -1 when the program cannot be started (errno set).
int run_gnuplot(const std::string& program, const std::string& script, std::string& messages) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        return -1;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    // -d: no initialization files (~/.gnuplot), so that the script alone decides the plot
    std::vector<std::string> args = {program, "-d", script};
    std::vector<char*> argv;
    for (std::string& a : args) {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int spawned =
        posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (spawned != 0) {
        close(fds[0]);
        errno = spawned;
        return -1;
    }
    char buffer[4096];
    for (;;) {
        const ssize_t n = read(fds[0], buffer, sizeof buffer);
        if (n > 0) {
            messages.append(buffer, static_cast<std::size_t>(n));
        } else if (n == 0 || errno != EINTR) {
            break;
        }
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            return 255;
        }
    }
    if (WIFEXITED(status)) {
        return WEXITSTATUS(status);
    }
    messages += "gnuplot killed by signal " + std::to_string(WTERMSIG(status)) + "\n";
    return 255;
}

// A temporary file for the script, removed on scope exit.
class TempScript {
public:
    explicit TempScript(const std::string& text) {
        std::string pattern = (std::filesystem::temp_directory_path() / "mdl-plot-XXXXXX").string();
        const int fd = mkstemp(pattern.data());
        if (fd < 0) {
            throw PlotError(Kind::gnuplot_failed,
                            "cannot create a temporary file: " + std::string(std::strerror(errno)));
        }
        path_ = pattern;
        const bool written =
            write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
        close(fd);
        if (!written) {
            std::filesystem::remove(path_);
            throw PlotError(Kind::gnuplot_failed, "cannot write the temporary file " + path_);
        }
    }
    TempScript(const TempScript&) = delete;
    TempScript& operator=(const TempScript&) = delete;
    ~TempScript() {
        std::error_code ignored;
        std::filesystem::remove(path_, ignored);
    }
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

} // namespace

std::vector<std::string> read_csv_header(const std::string& file) {
    std::ifstream in(file);
    if (!in || std::filesystem::is_directory(file)) {
        throw PlotError(Kind::file, "cannot open '" + file + "'");
    }
    std::string line;
    if (!std::getline(in, line) || line.empty() || line == "\r") {
        throw PlotError(Kind::file, "'" + file + "' has no CSV header line");
    }
    if (!line.empty() && line.back() == '\r') {
        line.pop_back();
    }
    std::string row;
    if (!std::getline(in, row) || row.empty() || row == "\r") {
        throw PlotError(Kind::file, "'" + file + "' has no data rows");
    }
    return split_csv_line(line);
}

PlotFormat plot_format(const std::string& output) {
    std::string extension = std::filesystem::path(output).extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (extension == ".png") {
        return PlotFormat::png;
    }
    if (extension == ".svg") {
        return PlotFormat::svg;
    }
    throw PlotError(Kind::output, "'" + output + "' is neither .png nor .svg");
}

std::string gnuplot_script(const PlotSpec& spec) {
    if (spec.series.empty()) {
        throw PlotError(Kind::y_column, "nothing to plot: no series");
    }
    const PlotFormat format = plot_format(spec.output);
    if (spec.width <= 0 || spec.height <= 0) {
        throw PlotError(Kind::output, "the plot's size must be positive");
    }
    std::set<std::string> files, ys;
    for (const PlotSeries& s : spec.series) {
        files.insert(s.file);
        ys.insert(s.y);
    }

    std::string plot;
    std::vector<std::string> checked_files;
    std::vector<std::vector<std::string>> headers;
    for (const PlotSeries& s : spec.series) {
        auto known = std::find(checked_files.begin(), checked_files.end(), s.file);
        if (known == checked_files.end()) {
            checked_files.push_back(s.file);
            headers.push_back(read_csv_header(s.file));
            known = checked_files.end() - 1;
        }
        const auto& header = headers[static_cast<std::size_t>(known - checked_files.begin())];
        const std::size_t x = column_number(header, s.x, s.file, Kind::x_column);
        const std::size_t y = column_number(header, s.y, s.file, Kind::y_column);
        std::string title = s.title;
        if (title.empty()) {
            title = files.size() == 1 ? s.y
                    : ys.size() == 1  ? stem(s.file)
                                      : stem(s.file) + ": " + s.y;
        }
        plot += plot.empty() ? "plot " : ", \\\n     ";
        plot += quote(s.file) + " skip 1 using " + std::to_string(x) + ":" + std::to_string(y) +
                " with " + style_text(s.style) + " title " + quote(title);
    }

    const std::string size = std::to_string(spec.width) + "," + std::to_string(spec.height);
    std::string script = "# written by mdl (runtime/output/plot.cpp)\n";
    // noenhanced: names such as lambda(c_1) or x^2 are shown as written
    script += format == PlotFormat::png
                  ? "set terminal pngcairo noenhanced size " + size + " font 'sans,10'\n"
                  : "set terminal svg noenhanced size " + size +
                        " font 'sans,10' background rgb 'white'\n";
    script += "set output " + quote(spec.output) + "\n";
    script += "set datafile separator ','\n";
    script += "set grid\nset key box opaque\n";
    if (!spec.title.empty()) {
        script += "set title " + quote(spec.title) + "\n";
    }
    const std::string xlabel = spec.xlabel.empty() ? spec.series.front().x : spec.xlabel;
    const std::string ylabel = !spec.ylabel.empty() ? spec.ylabel
                               : ys.size() == 1     ? *ys.begin()
                                                    : "";
    script += "set xlabel " + quote(xlabel) + "\n";
    if (!ylabel.empty()) {
        script += "set ylabel " + quote(ylabel) + "\n";
    }
    if (spec.logx) {
        script += "set logscale x\n";
    }
    if (spec.logy) {
        script += "set logscale y\n";
    }
    return script + plot + "\n";
}

namespace {

// Whether an image gnuplot wrote ends as a whole file does: PNG with its IEND chunk (then a
// 4-byte CRC), SVG with its closing tag. A regular file only (not /dev/null).
bool image_complete(const std::string& path, PlotFormat format) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error)) {
        return true;
    }
    std::ifstream in(path, std::ios::binary);
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    const std::streamoff tail = std::min<std::streamoff>(size, 64);
    std::string end(static_cast<std::size_t>(tail), '\0');
    in.seekg(size - tail);
    in.read(end.data(), tail);
    if (!in) {
        return false;
    }
    if (format == PlotFormat::png) {
        return end.size() >= 8 && end.compare(end.size() - 8, 4, "IEND") == 0;
    }
    return end.find("</svg>") != std::string::npos;
}

} // namespace

std::string render_plot(const PlotSpec& spec) {
    const TempScript script(gnuplot_script(spec));
    // a failed run must not leave an older image looking like its result
    // (a regular file only: `-o /dev/null` run as root must not delete the device)
    std::error_code ignored;
    if (std::filesystem::is_regular_file(spec.output, ignored)) {
        std::filesystem::remove(spec.output, ignored);
    }
    std::string messages;
    const int status = run_gnuplot(spec.gnuplot, script.path(), messages);
    if (status < 0) {
        if (errno == ENOENT) {
            throw PlotError(Kind::gnuplot_missing,
                            "cannot run '" + spec.gnuplot +
                                "': not found (install gnuplot: the Debian package gnuplot-nox, "
                                "which scripts/setup installs)");
        }
        throw PlotError(Kind::gnuplot_failed,
                        "cannot run '" + spec.gnuplot + "': " + std::strerror(errno));
    }
    if (status != 0) {
        throw PlotError(Kind::gnuplot_failed, "gnuplot failed (exit status " +
                                                  std::to_string(status) + "):\n" + messages);
    }
    std::error_code error;
    const auto size = std::filesystem::file_size(spec.output, error);
    if (size == 0 || error) {
        throw PlotError(Kind::gnuplot_failed,
                        "gnuplot wrote no image to '" + spec.output + "'\n" + messages);
    }
    if (!image_complete(spec.output, plot_format(spec.output))) {
        throw PlotError(Kind::write_failed,
                        "writing '" + spec.output + "': the image ends after " +
                            std::to_string(size) +
                            " bytes, incomplete (a full disk or a file size limit; gnuplot does "
                            "not report failed writes)");
    }
    return messages;
}

} // namespace mdl::runtime
