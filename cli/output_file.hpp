// The files a command writes besides its standard output (mdl run -o and --units-file, mdl
// modes/periodic/continue --csv and --plot): one rule for every command. A file that cannot be
// opened is the caller's error naming the flag ("--csv: cannot write 'x.csv'", exit 2); a
// write that fails later is a WriteFailure naming the file (exit 4).
#pragma once

#include <fstream>
#include <string>

namespace mdl::cli {

// The file `path` opened for writing; std::invalid_argument "FLAG: cannot write 'PATH'".
std::ofstream open_output_file(const std::string& flag, const std::string& path);

// Closes `out`; WriteFailure naming `path` (shown as `name`) and the system's reason when
// anything written to it was lost.
void close_output_file(std::ofstream& out, const std::string& name);

// `text` as the whole of `path`: open_output_file, then close_output_file.
void write_output_file(const std::string& flag, const std::string& path, const std::string& text);

} // namespace mdl::cli
