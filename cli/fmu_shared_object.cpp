#include "fmu_shared_object.hpp"

#include "fmu_model_source.hpp"

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <vector>

namespace mdl::cli {

namespace fs = std::filesystem;

namespace {

// A temporary folder removed with everything in it when this goes out of scope.
class TemporaryFolder {
public:
    TemporaryFolder() {
        std::string pattern = (fs::temp_directory_path() / "mdl-export-XXXXXX").string();
        if (mkdtemp(pattern.data()) == nullptr) {
            throw LinkFailure("cannot create a temporary folder in " +
                              fs::temp_directory_path().string());
        }
        path_ = pattern;
    }
    TemporaryFolder(const TemporaryFolder&) = delete;
    TemporaryFolder& operator=(const TemporaryFolder&) = delete;
    ~TemporaryFolder() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

void write(const fs::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
        throw LinkFailure("cannot write " + path.string());
    }
}

std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string quote(const std::string& text) {
    std::string out = "'";
    for (char c : text) {
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return out + "'";
}

// The compiler as a command: $CXX, else c++, found on PATH (or given as a path).
std::string compiler() {
    const char* cxx = std::getenv("CXX");
    const std::string name = cxx != nullptr && cxx[0] != '\0' ? cxx : "c++";
    if (name.find('/') != std::string::npos) {
        if (access(name.c_str(), X_OK) == 0) {
            return name;
        }
    } else if (const char* path = std::getenv("PATH")) {
        std::stringstream folders(path);
        std::string folder;
        while (std::getline(folders, folder, ':')) {
            if (!folder.empty() && access((fs::path(folder) / name).c_str(), X_OK) == 0) {
                return name;
            }
        }
    }
    throw LinkFailure(fmt::format(
        "no C++ compiler '{}' found{}: mdl export links the FMU's shared object with the system "
        "compiler (install g++ or clang, or set CXX)",
        name, cxx != nullptr ? " ($CXX)" : " on PATH"));
}

} // namespace

std::string fmi_library() {
    std::vector<fs::path> places;
    std::error_code error;
    const fs::path self = fs::read_symlink("/proc/self/exe", error);
    if (!error) {
        places.push_back(self.parent_path().parent_path() / MDL_INSTALL_LIBDIR / "libmdl_fmi.a");
    }
    places.emplace_back(MDL_FMI_LIBRARY); // the build tree
    std::string looked;
    for (const fs::path& p : places) {
        if (fs::is_regular_file(p, error)) {
            return p.string();
        }
        looked += (looked.empty() ? "" : ", ") + p.string();
    }
    throw LinkFailure("mdl's FMI library libmdl_fmi.a is not installed (looked at " + looked + ")");
}

std::string link_fmu_binary(const FmuContents& c, const std::string& model_source) {
    const std::string cxx = compiler();
    const std::string library = fmi_library();
    TemporaryFolder work;
    const fs::path& dir = work.path();
    write(dir / "kernels.o", c.object_code);
    write(dir / "fmu_model.h", fmu_model_header());
    write(dir / "fmu_model.c", model_source);
    // only the fmi2 functions are exported: the runtime's and libstdc++'s symbols stay inside,
    // so two FMUs (or an FMU and its importer's own libstdc++) in one process never clash
    write(dir / "exports.map", "{ global: fmi2*; local: *; };\n");
    const fs::path binary = dir / (c.model_identifier + ".so");
    const fs::path log = dir / "link.log";
    const std::string command = fmt::format(
        "{} -shared -fPIC -O2 -o {} -x c {} -x none {} {} -static-libstdc++ -static-libgcc -s "
        "-Wl,--version-script={} -Wl,--no-undefined -Wl,-u,fmi2GetVersion -lm > {} 2>&1",
        quote(cxx), quote(binary.string()), quote((dir / "fmu_model.c").string()),
        quote((dir / "kernels.o").string()), quote(library), quote((dir / "exports.map").string()),
        quote(log.string()));
    const int status = std::system(command.c_str());
    if (status != 0 || !fs::is_regular_file(binary)) {
        throw LinkFailure(
            fmt::format("linking the FMU's shared object failed ({}):\n{}", command, read(log)));
    }
    return read(binary);
}

} // namespace mdl::cli
