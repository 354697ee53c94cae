// mdl.h's mdl_periodic_orbit over mdl/periodic.hpp: arrays in and out, exceptions as status
// codes and messages.
#include "compiler/api/c_model.hpp"
#include "mdl.h"
#include "mdl/periodic.hpp"
#include "mdl/simulate.hpp"

#include <new>

extern "C" int mdl_periodic_orbit(const mdl_model* model, double* q, double* v, double* period,
                                  double* multipliers_re, double* multipliers_im, int* stable,
                                  char** error) {
    using mdl::c_api::store;
    try {
        if (model == nullptr || period == nullptr) {
            store(error, "mdl_periodic_orbit: the model and the period must not be NULL");
            return MDL_BAD_SETTINGS;
        }
        const std::size_t n = model->model.sizes().positions;
        mdl::PeriodicSettings settings;
        settings.period = *period;
        if (q != nullptr) {
            settings.q.assign(q, q + n);
        }
        if (v != nullptr) {
            settings.v.assign(v, v + n);
        }
        settings.samples = 1;
        const mdl::PeriodicOrbit orbit = mdl::periodic_orbit(model->model, settings);
        *period = orbit.period;
        for (std::size_t i = 0; i < n; ++i) {
            if (q != nullptr) {
                q[i] = orbit.q[i];
            }
            if (v != nullptr) {
                v[i] = orbit.v[i];
            }
        }
        for (std::size_t j = 0; j < orbit.multipliers.size(); ++j) {
            if (multipliers_re != nullptr) {
                multipliers_re[j] = orbit.multipliers[j].real();
            }
            if (multipliers_im != nullptr) {
                multipliers_im[j] = orbit.multipliers[j].imag();
            }
        }
        if (stable != nullptr) {
            *stable = orbit.stable ? 1 : 0;
        }
        return MDL_OK;
    } catch (const mdl::NumericalFailure& e) {
        store(error, e.what());
        return MDL_NUMERICAL_FAILURE;
    } catch (const std::bad_alloc&) {
        store(error, "mdl: error: out of memory");
        return MDL_BAD_SETTINGS;
    } catch (const std::exception& e) {
        store(error, e.what());
        return MDL_BAD_SETTINGS;
    }
}
