#include "output_file.hpp"

#include "mdl/write_failure.hpp"
#include "runtime/output/csv_writer.hpp"

#include <cerrno>
#include <fmt/format.h>
#include <stdexcept>

namespace mdl::cli {

std::ofstream open_output_file(const std::string& flag, const std::string& path) {
    std::ofstream out(path);
    if (!out) {
        throw std::invalid_argument(fmt::format("{}: cannot write '{}'", flag, path));
    }
    return out;
}

void close_output_file(std::ofstream& out, const std::string& name) {
    errno = 0;
    out.close();
    if (!out) {
        throw WriteFailure(name, runtime::OutputError(errno).what());
    }
}

void write_output_file(const std::string& flag, const std::string& path, const std::string& text) {
    std::ofstream out = open_output_file(flag, path);
    out << text;
    close_output_file(out, path);
}

} // namespace mdl::cli
