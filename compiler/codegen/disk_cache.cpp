#include "codegen/disk_cache.hpp"

#include <llvm-c/Core.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <link.h>
#include <string_view>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
#include <utility>
#include <vector>

#ifndef MDL_VERSION
#error "MDL_VERSION is defined by compiler/codegen/CMakeLists.txt"
#endif

namespace mdl::codegen {

namespace fs = std::filesystem;

namespace {

// An entry: a 48-byte header, then per object its size (8 bytes) and its bytes. Numbers are
// little-endian; the format number changes whenever this layout does.
constexpr std::array<char, 8> magic{'m', 'd', 'l', 'o', 'b', 'j', '\r', '\n'};
constexpr std::uint32_t format_version = 1;
constexpr std::size_t header_size = 48;
// Temporary files of writers that died are removed after this long (a live writer renames its
// file within milliseconds).
constexpr auto abandoned_after = std::chrono::hours(1);

// FNV-1a, 64 bits: detects truncation and flipped bytes (it is no defence against a forger,
// who could write an object file anyway).
std::uint64_t checksum(std::string_view bytes) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (char c : bytes) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001b3ULL;
    }
    return h;
}

void put(std::string& out, std::uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) {
        out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
    }
}

std::uint64_t get(std::string_view in, std::size_t at, int bytes) {
    std::uint64_t value = 0;
    for (int i = 0; i < bytes; ++i) {
        value |= std::uint64_t{static_cast<unsigned char>(in[at + static_cast<std::size_t>(i)])}
                 << (8 * i);
    }
    return value;
}

std::string hex(const ObjectKey& key) {
    return fmt::format("{:016x}{:016x}", key.high, key.low);
}

bool is_entry_name(const std::string& name) {
    return name.size() == 32 && std::all_of(name.begin(), name.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

bool is_temporary_name(const std::string& name) {
    return name.size() > 4 && name.front() == '.' && name.ends_with(".tmp");
}

// The GNU build id of the loaded object holding `address` (or, with address null, of the
// first one whose file name contains `name_part`), as hex; empty when there is none.
struct BuildIdQuery {
    const void* address = nullptr;
    std::string_view name_part;
    std::string id;
};

std::string note_build_id(const dl_phdr_info& info) {
    for (int i = 0; i < info.dlpi_phnum; ++i) {
        const ElfW(Phdr)& ph = info.dlpi_phdr[i];
        if (ph.p_type != PT_NOTE) {
            continue;
        }
        const std::size_t align = ph.p_align == 8 ? 8 : 4;
        const auto* at = reinterpret_cast<const unsigned char*>(info.dlpi_addr + ph.p_vaddr);
        const unsigned char* end = at + ph.p_memsz;
        auto padded = [align](std::size_t n) {
            return (n + align - 1) / align * align;
        };
        while (at + sizeof(ElfW(Nhdr)) <= end) {
            ElfW(Nhdr) note;
            std::memcpy(&note, at, sizeof note);
            const unsigned char* name = at + sizeof note;
            const unsigned char* desc = name + padded(note.n_namesz);
            if (desc + note.n_descsz > end) {
                break;
            }
            if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
                std::memcmp(name, "GNU", 4) == 0) {
                std::string id;
                for (std::size_t b = 0; b < note.n_descsz; ++b) {
                    id += fmt::format("{:02x}", desc[b]);
                }
                return id;
            }
            at = desc + padded(note.n_descsz);
        }
    }
    return {};
}

int find_build_id(dl_phdr_info* info, std::size_t, void* data) {
    auto& query = *static_cast<BuildIdQuery*>(data);
    bool match = false;
    if (query.address != nullptr) {
        const auto address = reinterpret_cast<ElfW(Addr)>(query.address);
        for (int i = 0; i < info->dlpi_phnum && !match; ++i) {
            const ElfW(Phdr)& ph = info->dlpi_phdr[i];
            const ElfW(Addr) start = info->dlpi_addr + ph.p_vaddr;
            match = ph.p_type == PT_LOAD && address >= start && address < start + ph.p_memsz;
        }
    } else {
        match = info->dlpi_name != nullptr &&
                std::string_view(info->dlpi_name).find(query.name_part) != std::string_view::npos;
    }
    if (!match) {
        return 0;
    }
    query.id = note_build_id(*info);
    return 1;
}

std::string build_id(BuildIdQuery query) {
    dl_iterate_phdr(find_build_id, &query);
    return query.id;
}

// No model's machine code comes near this: a larger file under an entry's name is damaged.
constexpr off_t largest_entry = off_t{1} << 31;

// A file's whole contents through one descriptor (the entry read is the one opened, even if
// a writer renames a new one over it meanwhile); empty when it is implausibly large. nullopt
// with errno set on failure.
std::optional<std::string> read_whole(int fd) {
    struct stat st {};
    if (fstat(fd, &st) != 0) {
        return std::nullopt;
    }
    if (st.st_size > largest_entry) {
        return std::string();
    }
    std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return std::nullopt;
        }
        if (n == 0) {
            bytes.resize(done); // shrank under us: the checks below reject it
            break;
        }
        done += static_cast<std::size_t>(n);
    }
    return bytes;
}

bool write_whole(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return false;
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

// The objects of an entry, or nullopt when it is not a whole, intact entry of `key`.
std::optional<ObjectCache::Objects> decode(std::string_view bytes, const ObjectKey& key) {
    if (bytes.size() < header_size || !std::equal(magic.begin(), magic.end(), bytes.begin()) ||
        get(bytes, 8, 4) != format_version || get(bytes, 16, 8) != key.high ||
        get(bytes, 24, 8) != key.low || get(bytes, 32, 8) != bytes.size() - header_size) {
        return std::nullopt;
    }
    const std::string_view payload = bytes.substr(header_size);
    if (checksum(payload) != get(bytes, 40, 8)) {
        return std::nullopt;
    }
    const std::uint64_t count = get(bytes, 12, 4);
    ObjectCache::Objects objects;
    std::size_t at = 0;
    for (std::uint64_t i = 0; i < count; ++i) {
        if (payload.size() - at < 8) {
            return std::nullopt;
        }
        const std::uint64_t size = get(payload, at, 8);
        at += 8;
        if (payload.size() - at < size || size == 0) {
            return std::nullopt;
        }
        objects.emplace_back(payload.substr(at, size));
        at += size;
    }
    if (at != payload.size() || objects.empty()) {
        return std::nullopt;
    }
    return objects;
}

std::string encode(const ObjectCache::Objects& objects, const ObjectKey& key) {
    std::string payload;
    for (const std::string& object : objects) {
        put(payload, object.size(), 8);
        payload += object;
    }
    std::string bytes(magic.begin(), magic.end());
    put(bytes, format_version, 4);
    put(bytes, objects.size(), 4);
    put(bytes, key.high, 8);
    put(bytes, key.low, 8);
    put(bytes, payload.size(), 8);
    put(bytes, checksum(payload), 8);
    return bytes + payload;
}

std::string errno_text(int error) {
    return std::error_code(error, std::generic_category()).message();
}

const char* non_empty_env(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0' ? value : nullptr;
}

// This translation unit's own data: its address identifies the binary mdl's code generator
// was linked into (internal, so never copied into another object by a copy relocation).
const char anchor = 0;

} // namespace

const std::string& code_generator_identity() {
    static const std::string identity = [] {
        const std::string mdl_build = build_id({&anchor, {}, {}});
        if (mdl_build.empty()) {
            return std::string();
        }
        unsigned major = 0, minor = 0, patch = 0;
        LLVMGetVersion(&major, &minor, &patch); // the library loaded, not the headers
        // The shared libLLVM may be updated under an unchanged mdl; a static LLVM is part of
        // mdl's own build.
        const std::string llvm_build = build_id({nullptr, "libLLVM", {}});
        return fmt::format("llvm {}.{}.{} {} mdl {} {} format {}", major, minor, patch, llvm_build,
                           MDL_VERSION, mdl_build, format_version);
    }();
    return identity;
}

std::optional<DiskCache> DiskCache::from_environment(std::string& warning) {
    const std::string& identity = code_generator_identity();
    if (identity.empty()) {
        return std::nullopt;
    }
    fs::path folder;
    if (const char* dir = non_empty_env("MDL_CACHE_DIR")) {
        folder = dir;
    } else if (const char* xdg = non_empty_env("XDG_CACHE_HOME"); xdg && *xdg == '/') {
        folder = fs::path(xdg) / "mdl"; // (the XDG spec says to ignore a relative path)
    } else if (const char* home = non_empty_env("HOME")) {
        folder = fs::path(home) / ".cache" / "mdl";
    } else {
        return std::nullopt;
    }
    std::uint64_t max_bytes = default_max_bytes;
    if (const char* text = non_empty_env("MDL_CACHE_MAX_MB")) {
        char* end = nullptr;
        errno = 0;
        const unsigned long long mb = std::strtoull(text, &end, 10);
        if (*end != '\0' || errno != 0 || *text == '-' || mb > (1ULL << 40)) {
            warning = fmt::format("MDL_CACHE_MAX_MB='{}' is not a number of megabytes; using {}",
                                  text, default_max_bytes >> 20);
        } else {
            max_bytes = mb << 20;
        }
    }
    return DiskCache(std::move(folder), max_bytes, identity);
}

DiskCache::DiskCache(fs::path folder, std::uint64_t max_bytes, std::string identity)
    : folder_(std::move(folder)), max_bytes_(max_bytes), identity_(std::move(identity)) {}

fs::path DiskCache::entry_path(const ObjectKey& key) const {
    return folder_ / hex(combined_key(key, identity_));
}

std::optional<ObjectCache::Objects> DiskCache::find(const ObjectKey& key,
                                                    std::string& warning) const {
    if (max_bytes_ == 0) {
        return std::nullopt; // MDL_CACHE_MAX_MB=0: the disk cache is off, for reading too
    }
    const ObjectKey disk_key = combined_key(key, identity_);
    const fs::path path = folder_ / hex(disk_key);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT && errno != ENOTDIR) {
            warning = fmt::format("cannot read {}: {}", path.string(), errno_text(errno));
        }
        return std::nullopt;
    }
    std::optional<std::string> bytes = read_whole(fd);
    const int read_error = errno;
    std::optional<ObjectCache::Objects> objects;
    if (bytes) {
        objects = decode(*bytes, disk_key);
        if (objects) {
            ::futimens(fd, nullptr); // recently used (fails harmlessly in a read-only folder)
        }
    }
    ::close(fd);
    if (!bytes) {
        warning = fmt::format("cannot read {}: {}", path.string(), errno_text(read_error));
    } else if (!objects) {
        std::error_code error;
        fs::remove(path, error);
        warning = fmt::format("{} the damaged entry {}; recompiled", error ? "ignored" : "removed",
                              path.string());
    }
    return objects;
}

void DiskCache::store(const ObjectKey& key, const ObjectCache::Objects& objects,
                      std::string& warning) const {
    if (max_bytes_ == 0) {
        return; // MDL_CACHE_MAX_MB=0: keep nothing
    }
    std::error_code error;
    fs::create_directories(folder_, error);
    if (error) {
        warning = fmt::format("cannot create {}: {}", folder_.string(), error.message());
        return;
    }
    const ObjectKey disk_key = combined_key(key, identity_);
    const std::string name = hex(disk_key);
    static std::atomic<unsigned> counter{0};
    const fs::path temporary =
        folder_ / fmt::format(".{}.{}.{}.tmp", name, ::getpid(), counter.fetch_add(1));
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        warning = fmt::format("cannot write in {}: {}", folder_.string(), errno_text(errno));
        return;
    }
    // No fsync: after a crash the entry may be cut short, which its checksum detects.
    bool written = write_whole(fd, encode(objects, disk_key));
    int write_error = errno;
    if (::close(fd) != 0 && written) {
        written = false;
        write_error = errno;
    }
    if (written && ::rename(temporary.c_str(), (folder_ / name).c_str()) != 0) {
        written = false;
        write_error = errno;
    }
    if (!written) {
        ::unlink(temporary.c_str());
        warning = fmt::format("cannot write in {}: {}", folder_.string(), errno_text(write_error));
        return;
    }
    evict(warning);
}

namespace {

struct EntryFile {
    fs::path path;
    std::uint64_t bytes = 0;
    fs::file_time_type used;
};

// The entries of `folder`; abandoned temporary files are removed on the way when `tidy`.
std::vector<EntryFile> list_entries(const fs::path& folder, bool tidy) {
    std::vector<EntryFile> entries;
    std::error_code error;
    fs::directory_iterator it(folder, error);
    const auto now = fs::file_time_type::clock::now();
    for (; !error && it != fs::directory_iterator(); it.increment(error)) {
        const std::string name = it->path().filename().string();
        std::error_code stat_error;
        const bool regular = it->is_regular_file(stat_error);
        if (stat_error || !regular) {
            continue;
        }
        const fs::file_time_type used = it->last_write_time(stat_error);
        const std::uint64_t bytes = it->file_size(stat_error);
        if (stat_error) {
            continue; // removed meanwhile by another process
        }
        if (is_entry_name(name)) {
            entries.push_back({it->path(), bytes, used});
        } else if (tidy && is_temporary_name(name) && now - used > abandoned_after) {
            fs::remove(it->path(), stat_error);
        }
    }
    return entries;
}

} // namespace

void DiskCache::evict(std::string& warning) const {
    std::vector<EntryFile> entries = list_entries(folder_, true);
    std::uint64_t total = 0;
    for (const EntryFile& e : entries) {
        total += e.bytes;
    }
    if (total <= max_bytes_) {
        return;
    }
    std::sort(entries.begin(), entries.end(), [](const EntryFile& a, const EntryFile& b) {
        return a.used != b.used ? a.used < b.used : a.path < b.path;
    });
    for (const EntryFile& e : entries) {
        if (total <= max_bytes_) {
            break;
        }
        std::error_code error;
        fs::remove(e.path, error);
        if (error && warning.empty()) {
            warning = fmt::format("cannot evict {}: {}", e.path.string(), error.message());
        }
        total -= e.bytes; // removed by us or by another process: gone either way
    }
}

DiskCache::Usage DiskCache::usage() const {
    Usage usage;
    for (const EntryFile& e : list_entries(folder_, false)) {
        ++usage.entries;
        usage.bytes += e.bytes;
    }
    return usage;
}

DiskCache::Usage DiskCache::clear(std::string& warning) const {
    Usage removed;
    for (const EntryFile& e : list_entries(folder_, true)) {
        std::error_code error;
        if (fs::remove(e.path, error)) {
            ++removed.entries;
            removed.bytes += e.bytes;
        } else if (error && warning.empty()) {
            warning = fmt::format("cannot remove {}: {}", e.path.string(), error.message());
        }
    }
    return removed;
}

} // namespace mdl::codegen
