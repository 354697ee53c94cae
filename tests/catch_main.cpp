// Catch2's main, with a code cache of this test process's own: compilations never read or
// write the user's cache (~/.cache/mdl), and start from an empty one, as the tests of the
// in-process cache expect. Tests of the disk cache point MDL_CACHE_DIR elsewhere themselves.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

int main(int argc, char* argv[]) {
    const std::filesystem::path base = std::filesystem::temp_directory_path();
    std::string folder = (base / "mdl-test-cache-XXXXXX").string();
    if (mkdtemp(folder.data()) == nullptr) {
        return 2;
    }
    setenv("MDL_CACHE_DIR", folder.c_str(), 1);
    const int failed = Catch::Session().run(argc, argv);
    std::error_code ignored;
    std::filesystem::remove_all(folder, ignored);
    return failed;
}
