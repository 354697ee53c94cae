// The C API's export and sweep (mdl.h): mdl_export_fmu, mdl_export_c_library and mdl_sweep over
// mdl/export.hpp and mdl/sweep.hpp.
#include "c_model.hpp"
#include "mdl.h"
#include "mdl/export.hpp"
#include "mdl/sweep.hpp"

#include <exception>
#include <new>
#include <string>
#include <vector>

using mdl::c_api::store;

namespace {

// MDL_OK, or MDL_BAD_SETTINGS with the exception's message in *error.
template <typename Call>
int guarded(char** error, Call call) {
    try {
        call();
        return MDL_OK;
    } catch (const std::bad_alloc&) {
        store(error, "mdl: error: out of memory");
    } catch (const std::exception& e) {
        store(error, e.what());
    }
    return MDL_BAD_SETTINGS;
}

mdl::ExportSettings export_settings(const mdl_settings* settings) {
    mdl::ExportSettings out;
    if (settings != nullptr) {
        out.simulation = settings->settings;
    }
    return out;
}

} // namespace

extern "C" {

int mdl_export_fmu(const char* model_file, const mdl_settings* settings, const char* fmu_path,
                   char** error) {
    return guarded(error,
                   [&] { mdl::export_fmu(model_file, fmu_path, export_settings(settings)); });
}

int mdl_export_c_library(const char* model_file, const mdl_settings* settings, const char* folder,
                         char** error) {
    return guarded(error,
                   [&] { mdl::export_c_library(model_file, folder, export_settings(settings)); });
}

int mdl_sweep(const mdl_model* model, const mdl_settings* settings, const char* const* axes,
              size_t n_axes, const char* output, size_t jobs, int processes, size_t* unsuccessful,
              char** error) {
    return guarded(error, [&] {
        std::vector<mdl::SweepAxis> grid;
        for (std::size_t i = 0; i < n_axes; ++i) {
            grid.push_back(mdl::parse_sweep_axis(axes[i]));
        }
        mdl::SweepOptions options;
        options.output = output;
        options.jobs = jobs;
        options.isolation = processes ? mdl::Isolation::processes : mdl::Isolation::threads;
        const mdl::SweepReport report =
            mdl::sweep(model->model, mdl::SweepGrid(std::move(grid)),
                       settings ? settings->settings : mdl::SimulationSettings{}, options);
        if (unsuccessful != nullptr) {
            *unsuccessful = report.count(mdl::RunOutcome::Status::failed) +
                            report.count(mdl::RunOutcome::Status::error);
        }
    });
}

} // extern "C"
