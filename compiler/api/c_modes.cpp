// mdl.h's modes over mdl/modes.hpp: the result in a library-owned handle, exceptions as the
// status codes of mdl_simulate.
#include "compiler/api/c_model.hpp"
#include "mdl.h"
#include "mdl/modes.hpp"

#include <new>
#include <string>

struct mdl_modes_result {
    mdl::ModesResult modes;
};

extern "C" {

int mdl_modes(const mdl_model* model, const char* const* at_names, const double* at_values,
              size_t n_at, mdl_modes_result** result, char** error) {
    try {
        mdl::ModesOptions options;
        for (size_t i = 0; i < n_at; ++i) {
            options.at.emplace_back(at_names[i], at_values[i]);
        }
        auto* out = new mdl_modes_result{mdl::modes(model->model, options)};
        if (result != nullptr) {
            *result = out;
        } else {
            delete out;
        }
        return MDL_OK;
    } catch (const mdl::NumericalFailure& e) {
        mdl::c_api::store(error, e.what());
        return MDL_NUMERICAL_FAILURE;
    } catch (const std::bad_alloc&) {
        mdl::c_api::store(error, "mdl: error: out of memory");
        return MDL_BAD_SETTINGS;
    } catch (const std::exception& e) {
        mdl::c_api::store(error, e.what());
        return MDL_BAD_SETTINGS;
    }
}

void mdl_modes_free(mdl_modes_result* result) {
    delete result;
}

size_t mdl_modes_count(const mdl_modes_result* result) {
    return result->modes.modes();
}

const double* mdl_modes_omega(const mdl_modes_result* result) {
    return result->modes.omega.data();
}

const double* mdl_modes_damping_ratio(const mdl_modes_result* result) {
    return result->modes.damping_ratio.data();
}

const char* mdl_modes_kind(const mdl_modes_result* result, size_t mode) {
    return mode < result->modes.kind.size() ? result->modes.kind[mode].c_str() : nullptr;
}

const double* mdl_modes_shapes(const mdl_modes_result* result) {
    return result->modes.shapes.data();
}

const double* mdl_modes_equilibrium(const mdl_modes_result* result) {
    return result->modes.equilibrium.data();
}

} // extern "C"
