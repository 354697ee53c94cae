#include "declared_descriptions.hpp"

#include "check/front_end.hpp"

#include <exception>
#include <optional>

namespace mdl::exporting {

DeclaredDescriptions
declared_descriptions(const std::string& path,
                      const std::vector<std::pair<std::string, double>>& overrides,
                      const std::vector<std::string>& library_paths) {
    DeclaredDescriptions out;
    try {
        const source::SourceFile file = source::SourceFile::read(path);
        source::Diagnostics diagnostics(file);
        check::FrontEndOptions options;
        options.overrides = overrides;
        options.library_paths = library_paths;
        const std::optional<check::CheckedModel> model =
            check::check_file(file, diagnostics, options);
        if (!model) {
            return out;
        }
        out.model = model->description;
        for (const check::Parameter& p : model->parameters) {
            out.variables[p.name] = p.description;
        }
        for (const check::State& s : model->states) {
            out.variables[s.name] = s.description;
        }
    } catch (const std::exception&) {
        return {}; // unreadable: compile_file said so first
    }
    return out;
}

} // namespace mdl::exporting
