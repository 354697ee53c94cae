// The code cache on disk (codegen/disk_cache.hpp): entries found again, damaged ones removed,
// the size bound, folders that cannot be written, and kernels from disk equal to fresh ones.
#include "codegen/disk_cache.hpp"

#include "../symbolic/seed_systems.hpp"
#include "codegen/compiled_kernels.hpp"
#include "kernel_test_support.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>

using namespace mdl;
using codegen::CacheUse;
using codegen::CodegenOptions;
using codegen::CompiledKernels;
using codegen::DiskCache;
using codegen::ObjectCache;
using codegen::ObjectKey;
namespace fs = std::filesystem;

namespace {

// An empty folder of this test's own under the build tree.
fs::path empty_folder(const std::string& name) {
    const fs::path folder = fs::path(MDL_BINARY_DIR) / "tests" / "codegen" / "disk_cache" / name;
    fs::remove_all(folder);
    fs::create_directories(folder);
    return folder;
}

DiskCache cache_in(const fs::path& folder, std::uint64_t max_bytes = DiskCache::default_max_bytes) {
    return DiskCache(folder, max_bytes, "test identity");
}

// Objects that look like nothing in particular, of `size` bytes each.
ObjectCache::Objects objects(char fill, std::size_t size = 1000, std::size_t count = 2) {
    ObjectCache::Objects out;
    for (std::size_t i = 0; i < count; ++i) {
        out.emplace_back(size, static_cast<char>(fill + i));
    }
    return out;
}

std::string contents(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

void overwrite(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Points MDL_CACHE_DIR at `folder` for one test case, as a user's environment would.
struct CacheDirectory {
    std::string previous;
    explicit CacheDirectory(const fs::path& folder) {
        const char* set = std::getenv("MDL_CACHE_DIR"); // (tests/catch_main.cpp sets one)
        previous = set != nullptr ? set : "";
        setenv("MDL_CACHE_DIR", folder.c_str(), 1);
    }
    ~CacheDirectory() { setenv("MDL_CACHE_DIR", previous.c_str(), 1); }
    CacheDirectory(const CacheDirectory&) = delete;
    CacheDirectory& operator=(const CacheDirectory&) = delete;
};

// Every kernel's outputs at `at`, bit for bit (the same bits, not merely close values).
std::vector<double> all_outputs(const symbolic::System& system, const mdl_kernels& table,
                                const test::Point& at) {
    std::vector<double> out;
    for (symbolic::Kernel k : symbolic::all_kernels) {
        const std::size_t count = system.dense_outputs(k).size();
        if (system.has_kernel(k)) {
            const auto values = test::run(test::kernel_of(table, k), count, at);
            out.insert(out.end(), values.begin(), values.end());
        }
    }
    return out;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

} // namespace

TEST_CASE("an entry stored on disk is found by its key and no other", "[disk_cache]") {
    const DiskCache cache = cache_in(empty_folder("round_trip"));
    const ObjectKey key{1, 2}, other{1, 3};
    std::string warning;
    CHECK_FALSE(cache.find(key, warning));
    cache.store(key, objects('a'), warning);
    CHECK(warning.empty());
    CHECK(fs::exists(cache.entry_path(key)));
    const auto found = cache.find(key, warning);
    REQUIRE(found);
    CHECK(*found == objects('a'));
    CHECK_FALSE(cache.find(other, warning));
    CHECK(warning.empty());
    CHECK(cache.usage().entries == 1);

    // Another code generator (a new LLVM or mdl) never reads the entry.
    const DiskCache newer(cache.folder(), DiskCache::default_max_bytes, "another identity");
    CHECK(newer.entry_path(key) != cache.entry_path(key));
    CHECK_FALSE(newer.find(key, warning));
    // No temporary file is left behind.
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& file : fs::directory_iterator(cache.folder())) {
        ++files;
    }
    CHECK(files == 1);
}

TEST_CASE("a bound of 0 (MDL_CACHE_MAX_MB=0) turns the disk cache off: nothing stored or read",
          "[disk_cache]") {
    const fs::path folder = empty_folder("off");
    const ObjectKey key{4, 5};
    std::string warning;
    cache_in(folder).store(key, objects('c'), warning); // an entry from an earlier process
    REQUIRE(cache_in(folder).find(key, warning));
    const DiskCache off = cache_in(folder, 0);
    CHECK_FALSE(off.find(key, warning));
    off.store(ObjectKey{6, 7}, objects('d'), warning);
    CHECK_FALSE(fs::exists(off.entry_path(ObjectKey{6, 7})));
    CHECK(warning.empty());
}

TEST_CASE("a damaged entry is detected, removed and reported", "[disk_cache]") {
    const DiskCache cache = cache_in(empty_folder("damaged"));
    const ObjectKey key{7, 8};
    std::string warning;
    cache.store(key, objects('x'), warning);
    const fs::path path = cache.entry_path(key);
    const std::string intact = contents(path);
    REQUIRE(intact.size() > 100);

    struct Damage {
        const char* what;
        std::string bytes;
    };
    std::string flipped_payload = intact, flipped_header = intact, flipped_size = intact;
    flipped_payload[intact.size() - 10] ^= 0x01;
    flipped_header[2] ^= 0x20;
    flipped_size[32] ^= 0x04;
    const Damage damages[] = {
        {"a flipped byte in the machine code", flipped_payload},
        {"a flipped byte in the magic", flipped_header},
        {"a wrong payload size", flipped_size},
        {"truncated in the payload", intact.substr(0, intact.size() / 2)},
        {"truncated in the header", intact.substr(0, 20)},
        {"empty", ""},
        {"with bytes appended", intact + "junk"},
    };
    for (const Damage& damage : damages) {
        INFO(damage.what);
        overwrite(path, damage.bytes);
        warning.clear();
        CHECK_FALSE(cache.find(key, warning));
        CHECK(warning.find("removed the damaged entry") != std::string::npos);
        CHECK_FALSE(fs::exists(path));
        // Stored again, it is read again.
        cache.store(key, objects('x'), warning);
        CHECK(cache.find(key, warning) == objects('x'));
    }

    // An entry renamed to another key's name is not that key's.
    const ObjectKey other{7, 9};
    fs::rename(path, cache.entry_path(other));
    warning.clear();
    CHECK_FALSE(cache.find(other, warning));
    CHECK_FALSE(warning.empty());
}

TEST_CASE("storing beyond the size bound evicts the least recently used entries", "[disk_cache]") {
    // Entries of 2 x 1000 bytes plus header: three fit in 7000 bytes, four do not.
    const DiskCache cache = cache_in(empty_folder("bounded"), 7000);
    const ObjectKey k1{1, 1}, k2{2, 2}, k3{3, 3}, k4{4, 4};
    std::string warning;
    cache.store(k1, objects('1'), warning);
    cache.store(k2, objects('2'), warning);
    cache.store(k3, objects('3'), warning);
    REQUIRE(cache.usage().entries == 3);
    // Used long ago, in the order k1, k2, k3 (set, not waited for).
    const auto now = fs::file_time_type::clock::now();
    fs::last_write_time(cache.entry_path(k1), now - std::chrono::minutes(30));
    fs::last_write_time(cache.entry_path(k2), now - std::chrono::minutes(20));
    fs::last_write_time(cache.entry_path(k3), now - std::chrono::minutes(10));
    // A hit makes k1 the most recently used, so k2 goes when k4 arrives.
    REQUIRE(cache.find(k1, warning));
    cache.store(k4, objects('4'), warning);
    CHECK(warning.empty());
    CHECK(fs::exists(cache.entry_path(k1)));
    CHECK_FALSE(fs::exists(cache.entry_path(k2)));
    CHECK(fs::exists(cache.entry_path(k3)));
    CHECK(fs::exists(cache.entry_path(k4)));
    CHECK(cache.usage().bytes <= 7000);

    // A bound of zero keeps nothing.
    const DiskCache none = cache_in(empty_folder("bounded_zero"), 0);
    none.store(k1, objects('1'), warning);
    CHECK(none.usage().entries == 0);

    // clear() removes everything and says how much.
    const auto removed = cache.clear(warning);
    CHECK(removed.entries == 3);
    CHECK(removed.bytes > 6000);
    CHECK(cache.usage().entries == 0);
}

TEST_CASE("temporary files of writers that died are removed, those of live ones kept",
          "[disk_cache]") {
    const DiskCache cache = cache_in(empty_folder("abandoned"));
    const fs::path abandoned = cache.folder() / ".0123.4567.0.tmp";
    const fs::path in_progress = cache.folder() / ".89ab.4567.1.tmp";
    overwrite(abandoned, "half an entry");
    overwrite(in_progress, "half an entry");
    fs::last_write_time(abandoned, fs::file_time_type::clock::now() - std::chrono::hours(2));
    std::string warning;
    cache.store(ObjectKey{3, 4}, objects('t'), warning);
    CHECK_FALSE(fs::exists(abandoned));
    CHECK(fs::exists(in_progress));
    CHECK(cache.usage().entries == 1); // temporary files are not entries
    cache.clear(warning);
    CHECK(fs::exists(in_progress));
}

TEST_CASE("a folder that cannot be written is a warning, never an error", "[disk_cache]") {
    // A folder whose parent is a file cannot be created; /proc takes no files, even from root
    // (which a folder without write permission would not stop).
    const fs::path base = empty_folder("unwritable");
    overwrite(base / "file", "not a folder");
    for (const fs::path& folder : {base / "file" / "mdl", fs::path("/proc")}) {
        INFO(folder);
        const DiskCache cache = cache_in(folder);
        std::string warning;
        cache.store(ObjectKey{5, 5}, objects('5'), warning);
        CHECK_FALSE(warning.empty());
        warning.clear();
        CHECK_FALSE(cache.find(ObjectKey{5, 5}, warning));
        CHECK(cache.usage().entries == 0);
    }
    // The compiler goes on: kernels, reported as compiled.
    const CacheDirectory directory(base / "file" / "mdl");
    const auto system = test::damped_oscillator();
    CodegenOptions options;
    options.opt_level = codegen::OptLevel::O0; // a key no other test here uses
    ObjectCache::process().clear();
    const auto compiled = CompiledKernels::compile(*system, options);
    CHECK(compiled.timings().cache == CacheUse::miss);
    CHECK(compiled.kernels().force != nullptr);
}

TEST_CASE("kernels from the disk cache compute the same bits as freshly compiled ones",
          "[disk_cache]") {
    const fs::path folder = empty_folder("kernels");
    const CacheDirectory directory(folder);
    const auto system = test::double_pendulum();
    CodegenOptions options; // O2, as mdl compiles

    ObjectCache::process().clear(); // as in a new process: nothing in memory
    const auto first = CompiledKernels::compile(*system, options);
    CHECK(first.timings().cache == CacheUse::miss);
    const auto again = CompiledKernels::compile(*system, options);
    CHECK(again.timings().cache == CacheUse::memory);

    ObjectCache::process().clear();
    const auto from_disk = CompiledKernels::compile(*system, options);
    CHECK(from_disk.timings().cache == CacheUse::disk);
    CHECK(from_disk.timings().from_cache);
    CodegenOptions uncached = options;
    uncached.use_object_cache = false;
    const auto fresh = CompiledKernels::compile(*system, uncached);
    CHECK(fresh.timings().cache == CacheUse::off);

    std::mt19937_64 rng(19);
    for (int i = 0; i < 5; ++i) {
        const test::Point at = test::Point::random(system->sizes(), rng);
        const auto expected = all_outputs(*system, fresh.kernels(), at);
        CHECK(same_bits(all_outputs(*system, from_disk.kernels(), at), expected));
        CHECK(same_bits(all_outputs(*system, first.kernels(), at), expected));
    }

    // Damaged on disk: recompiled (and stored again), never linked.
    std::string warning;
    const auto cache = DiskCache::from_environment(warning);
    REQUIRE(cache);
    std::size_t entries = 0;
    for (const auto& file : fs::directory_iterator(folder)) {
        std::string bytes = contents(file.path());
        bytes[bytes.size() / 2] ^= 0x55;
        overwrite(file.path(), bytes);
        ++entries;
    }
    CHECK(entries == 1);
    ObjectCache::process().clear();
    const auto recompiled = CompiledKernels::compile(*system, options);
    CHECK(recompiled.timings().cache == CacheUse::miss);
    ObjectCache::process().clear();
    CHECK(CompiledKernels::compile(*system, options).timings().cache == CacheUse::disk);
    const test::Point at = test::Point::random(system->sizes(), rng);
    CHECK(same_bits(all_outputs(*system, recompiled.kernels(), at),
                    all_outputs(*system, fresh.kernels(), at)));

    // Without the disk cache nothing is read or written there.
    const fs::path unused = empty_folder("kernels_no_disk");
    const CacheDirectory elsewhere(unused);
    CodegenOptions memory_only = options;
    memory_only.use_disk_cache = false;
    ObjectCache::process().clear();
    CHECK(CompiledKernels::compile(*system, memory_only).timings().cache == CacheUse::miss);
    CHECK(fs::is_empty(unused));
}
