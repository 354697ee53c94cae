#include "mdl/code_cache.hpp"

#include "codegen/disk_cache.hpp"

namespace mdl {

namespace {

CodeCacheInfo describe(const std::optional<codegen::DiskCache>& cache, std::string warning) {
    CodeCacheInfo info;
    info.warning = std::move(warning);
    if (cache) {
        info.enabled = true;
        info.folder = cache->folder().string();
        info.max_bytes = cache->max_bytes();
        info.code_generator = codegen::code_generator_identity();
    }
    return info;
}

} // namespace

CodeCacheInfo code_cache_info() {
    std::string warning;
    const auto cache = codegen::DiskCache::from_environment(warning);
    CodeCacheInfo info = describe(cache, std::move(warning));
    if (cache) {
        const codegen::DiskCache::Usage usage = cache->usage();
        info.entries = usage.entries;
        info.bytes = usage.bytes;
    }
    return info;
}

CodeCacheInfo clear_code_cache() {
    std::string warning;
    const auto cache = codegen::DiskCache::from_environment(warning);
    CodeCacheInfo info = describe(cache, warning);
    if (cache) {
        std::string clear_warning;
        const codegen::DiskCache::Usage removed = cache->clear(clear_warning);
        info.entries = removed.entries;
        info.bytes = removed.bytes;
        if (!clear_warning.empty()) {
            info.warning = clear_warning;
        }
    }
    return info;
}

} // namespace mdl
