#include "flatten/model_library.hpp"

#include "parse/parser.hpp"

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <system_error>

namespace mdl::flatten {

namespace fs = std::filesystem;

ModelLibrary::ModelLibrary(ast::File main, std::string main_path, source::Diagnostics& diagnostics,
                           std::vector<std::string> library_paths)
    : diagnostics_(diagnostics), library_paths_(std::move(library_paths)) {
    if (const char* env = std::getenv("MDL_PATH")) {
        std::string list = env;
        std::size_t start = 0;
        while (start <= list.size()) {
            std::size_t colon = list.find(':', start);
            std::string dir =
                list.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
            if (!dir.empty()) {
                library_paths_.push_back(dir);
            }
            if (colon == std::string::npos) {
                break;
            }
            start = colon + 1;
        }
    }
    LoadedFile f;
    f.parsed = std::move(main);
    f.file_id = 0;
    f.path = std::move(main_path);
    files_.push_back(std::move(f));
    std::error_code ec;
    auto canonical = fs::weakly_canonical(files_[0].path, ec);
    by_path_[ec ? files_[0].path : canonical.string()] = 0;
}

ModelDefinition ModelLibrary::main_model() const {
    const LoadedFile& f = files_.front();
    return {&f.parsed->models.back(), f.file_id, f.path};
}

std::optional<ModelDefinition> ModelLibrary::in_file(const LoadedFile& f, const std::string& name) {
    if (!f.parsed) {
        return std::nullopt;
    }
    for (const auto& m : f.parsed->models) {
        if (m.name.text == name) {
            return ModelDefinition{&m, f.file_id, f.path};
        }
    }
    return std::nullopt;
}

const ModelLibrary::LoadedFile* ModelLibrary::load(const std::string& path) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
        return nullptr;
    }
    auto canonical = fs::weakly_canonical(path, ec);
    std::string key = ec ? path : canonical.string();
    if (auto it = by_path_.find(key); it != by_path_.end()) {
        return &files_[it->second];
    }
    LoadedFile f;
    try {
        f.source = std::make_unique<source::SourceFile>(source::SourceFile::read(path));
    } catch (const std::exception&) {
        return nullptr;
    }
    f.path = path;
    f.file_id = diagnostics_.add_file(*f.source);
    f.parsed = parse::parse_file(*f.source, diagnostics_, f.file_id);
    files_.push_back(std::move(f));
    by_path_[key] = files_.size() - 1;
    return &files_.back();
}

std::optional<ModelDefinition>
ModelLibrary::find(const std::string& name, const std::string& from_path, source::Range where) {
    // The file the using model is in, then Name.mdl beside it, then the libraries.
    for (const auto& f : files_) {
        if (f.path == from_path) {
            if (auto d = in_file(f, name)) {
                return d;
            }
        }
    }
    std::vector<std::string> candidates;
    std::error_code ec;
    fs::path dir = fs::path(from_path).parent_path();
    candidates.push_back((dir / (name + ".mdl")).string());
    for (const auto& lib : library_paths_) {
        candidates.push_back((fs::path(lib) / (name + ".mdl")).string());
    }
    for (const auto& path : candidates) {
        const LoadedFile* f = load(path);
        if (!f) {
            continue;
        }
        if (!f->parsed) {
            diagnostics_.error(where, fmt::format("model '{}' in '{}' has errors", name, path));
            return std::nullopt;
        }
        if (auto d = in_file(*f, name)) {
            return d;
        }
    }
    std::string looked;
    for (const auto& c : candidates) {
        looked += (looked.empty() ? "" : ", ") + c;
    }
    diagnostics_.error(where, fmt::format("unknown model '{}' (looked in this file and for {}; "
                                          "add folders with --library DIR or MDL_PATH)",
                                          name, looked));
    return std::nullopt;
}

std::vector<std::string> ModelLibrary::known_names() const {
    std::vector<std::string> out;
    for (const auto& f : files_) {
        if (f.parsed) {
            for (const auto& m : f.parsed->models) {
                out.push_back(m.name.text);
            }
        }
    }
    return out;
}

} // namespace mdl::flatten
