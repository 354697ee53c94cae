#include "fmu_shared_object.hpp"

#include "fmu_model_source.hpp"
#include "link_support.hpp"

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <vector>

namespace mdl::exporting {

namespace fs = std::filesystem;

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
    const std::string cxx = system_compiler();
    const std::string library = fmi_library();
    TemporaryFolder work;
    const fs::path& dir = work.path();
    write_file(dir / "kernels.o", c.object_code);
    write_file(dir / "fmu_model.h", fmu_model_header());
    write_file(dir / "fmu_model.c", model_source);
    // only the fmi2 functions are exported: the runtime's and libstdc++'s symbols stay inside,
    // so two FMUs (or an FMU and its importer's own libstdc++) in one process never clash
    write_file(dir / "exports.map", "{ global: fmi2*; local: *; };\n");
    const fs::path binary = dir / (c.model_identifier + ".so");
    const fs::path log = dir / "link.log";
    const std::string command = fmt::format(
        "{} -shared -fPIC -O2 -o {} -x c {} -x none {} {} -static-libstdc++ -static-libgcc -s "
        "-Wl,--version-script={} -Wl,--no-undefined -Wl,-u,fmi2GetVersion -lm > {} 2>&1",
        shell_quote(cxx), shell_quote(binary.string()), shell_quote((dir / "fmu_model.c").string()),
        shell_quote((dir / "kernels.o").string()), shell_quote(library),
        shell_quote((dir / "exports.map").string()), shell_quote(log.string()));
    const int status = std::system(command.c_str());
    if (status != 0 || !fs::is_regular_file(binary)) {
        throw LinkFailure(fmt::format("linking the FMU's shared object failed ({}):\n{}", command,
                                      read_file(log)));
    }
    return read_file(binary);
}

} // namespace mdl::exporting
