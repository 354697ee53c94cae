#include "fmu_archive.hpp"

#include "mdl/export.hpp"

#include <cstdio>
#include <zip.h>

namespace mdl::exporting {

namespace {
std::string zip_message(zip_t* archive) {
    return zip_error_strerror(zip_get_error(archive));
}
} // namespace

void write_zip(const std::string& path,
               const std::vector<std::pair<std::string, std::string>>& files) {
    const std::string temporary = path + ".tmp";
    int code = 0;
    zip_t* archive = zip_open(temporary.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
    if (archive == nullptr) {
        zip_error_t error;
        zip_error_init_with_code(&error, code);
        const std::string reason = zip_error_strerror(&error);
        zip_error_fini(&error);
        throw WriteFailure(path, reason);
    }
    for (const auto& [name, bytes] : files) {
        // the buffers outlive zip_close, which reads them
        zip_source_t* source = zip_source_buffer(archive, bytes.data(), bytes.size(), 0);
        if (source == nullptr ||
            zip_file_add(archive, name.c_str(), source, ZIP_FL_ENC_UTF_8) < 0) {
            const std::string reason = zip_message(archive);
            if (source != nullptr) {
                zip_source_free(source);
            }
            zip_discard(archive);
            std::remove(temporary.c_str());
            throw WriteFailure(path, reason);
        }
    }
    if (zip_close(archive) != 0) {
        const std::string reason = zip_message(archive);
        zip_discard(archive);
        std::remove(temporary.c_str());
        throw WriteFailure(path, reason);
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        std::remove(temporary.c_str());
        throw WriteFailure(path, "cannot replace it");
    }
}

} // namespace mdl::exporting
