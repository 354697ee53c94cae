// Where a component's model comes from: the models of the file being compiled, then
// Name.mdl in the folder of the file that uses it, then each library folder (--library DIR,
// then the folders of MDL_PATH, colon-separated). Files are read and parsed once, on demand;
// their models keep their ranges in files the Diagnostics knows.
#pragma once

#include "parse/ast.hpp"
#include "source/diagnostics.hpp"

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mdl::flatten {

// A model definition and the file it was parsed from.
struct ModelDefinition {
    const ast::Model* model = nullptr;
    std::uint32_t file_id = 0; // the id its ranges carry
    std::string path;          // the file's path, to find the models it uses beside it
};

class ModelLibrary {
public:
    // `main` are the models of the file being compiled (file id 0, at `main_path`).
    ModelLibrary(ast::File main, std::string main_path, source::Diagnostics& diagnostics,
                 std::vector<std::string> library_paths = {});

    // The model `name` as seen from a model defined in `from_path`; nullopt after reporting
    // at `where` that it is not found (naming where it was looked for) or that its file has
    // errors.
    std::optional<ModelDefinition> find(const std::string& name, const std::string& from_path,
                                        source::Range where);

    // The model a file is run as: the last one of the main file.
    ModelDefinition main_model() const;

    // The names of every model found so far (for "did you mean").
    std::vector<std::string> known_names() const;

    // The folders searched: the library paths, then MDL_PATH's.
    const std::vector<std::string>& library_paths() const { return library_paths_; }

private:
    struct LoadedFile {
        std::unique_ptr<source::SourceFile> source;
        std::optional<ast::File> parsed;
        std::uint32_t file_id = 0;
        std::string path;
    };
    const LoadedFile* load(const std::string& path);
    static std::optional<ModelDefinition> in_file(const LoadedFile& f, const std::string& name);

    source::Diagnostics& diagnostics_;
    std::vector<std::string> library_paths_;
    std::deque<LoadedFile> files_; // [0] is the main file (its source is not owned)
    std::map<std::string, std::size_t> by_path_;
};

} // namespace mdl::flatten
