// mdl.h's simulation functions over mdl/simulate.hpp: settings by option name, results in
// library-owned buffers (or streamed row by row), exceptions as status codes and messages.
#include "compiler/api/c_model.hpp"
#include "mdl.h"
#include "mdl/simulate.hpp"

#include <algorithm>
#include <new>
#include <string>
#include <vector>

struct mdl_result {
    mdl::OutputLayout layout;
    std::vector<double> values; // rows x columns
    mdl::SimulationStatistics statistics;
    bool failed = false;
    double failure_time = 0.0;
    std::string failure_kind, failure_method, failure_variable, message;
};

namespace {

using mdl::c_api::store;

// Runs `simulate` (which fills `result`), turning exceptions into the status codes of mdl.h.
template <class Simulate>
int guarded_simulation(mdl_result* result, char** error, Simulate simulate) {
    try {
        simulate();
        return MDL_OK;
    } catch (const mdl::NumericalFailure& e) {
        if (result != nullptr) {
            result->failed = true;
            result->failure_time = e.time();
            result->failure_kind = e.kind();
            result->failure_method = e.method();
            result->failure_variable = e.where();
            result->message = e.what();
        }
        store(error, e.what());
        return MDL_NUMERICAL_FAILURE;
    } catch (const std::bad_alloc&) {
        store(error, "mdl: error: out of memory");
        return MDL_BAD_SETTINGS;
    } catch (const std::exception& e) { // bad settings: the message names the option
        store(error, e.what());
        return MDL_BAD_SETTINGS;
    }
}

} // namespace

extern "C" {

mdl_settings* mdl_settings_new(void) {
    return new (std::nothrow) mdl_settings{};
}

void mdl_settings_free(mdl_settings* settings) {
    delete settings;
}

int mdl_settings_set(mdl_settings* settings, const char* option, const char* value, char** error) {
    try {
        mdl::set_setting(settings->settings, option, value);
        return 0;
    } catch (const std::exception& e) {
        store(error, e.what());
        return 1;
    }
}

int mdl_simulate(const mdl_model* model, const mdl_settings* settings, mdl_result** result,
                 char** error) {
    mdl_result* out = new (std::nothrow) mdl_result{};
    if (out == nullptr) {
        store(error, "mdl: error: out of memory");
        return MDL_BAD_SETTINGS;
    }
    const mdl::SimulationSettings none;
    const int status = guarded_simulation(out, error, [&] {
        out->layout = mdl::output_layout(model->model);
        out->statistics = mdl::simulate(
            model->model, settings ? settings->settings : none, [out](const mdl::OutputRow& row) {
                out->values.insert(out->values.end(), row.values.begin(), row.values.end());
                return true;
            });
    });
    out->statistics.rows =
        out->layout.columns.empty() ? 0 : out->values.size() / out->layout.columns.size();
    if (result != nullptr) {
        *result = out;
    } else {
        delete out;
    }
    return status;
}

int mdl_simulate_rows(const mdl_model* model, const mdl_settings* settings,
                      mdl_row_observer observer, void* user, char** error) {
    const mdl::SimulationSettings none;
    return guarded_simulation(nullptr, error, [&] {
        mdl::simulate(model->model, settings ? settings->settings : none,
                      [observer, user](const mdl::OutputRow& row) {
                          return observer(user, row.values.data(), row.values.size()) != 0;
                      });
    });
}

void mdl_result_free(mdl_result* result) {
    delete result;
}

size_t mdl_result_rows(const mdl_result* r) {
    return r->statistics.rows;
}

size_t mdl_result_columns(const mdl_result* r) {
    return r->layout.columns.size();
}

const char* mdl_result_column_name(const mdl_result* r, size_t j) {
    return j < r->layout.columns.size() ? r->layout.columns[j].c_str() : nullptr;
}

const double* mdl_result_values(const mdl_result* r) {
    return r->values.data();
}

int mdl_result_copy_column(const mdl_result* r, const char* name, double* out) {
    const auto& columns = r->layout.columns;
    const auto found = std::find(columns.begin(), columns.end(), name);
    if (found == columns.end()) {
        return 1;
    }
    const std::size_t j = static_cast<std::size_t>(found - columns.begin());
    for (std::size_t i = 0; i < r->statistics.rows; ++i) {
        out[i] = r->values[i * columns.size() + j];
    }
    return 0;
}

void mdl_result_statistics(const mdl_result* r, mdl_statistics* s) {
    s->start = r->statistics.start;
    s->stop = r->statistics.stop;
    s->steps = r->statistics.steps;
    s->rejected = r->statistics.rejected;
    s->micro_steps = r->statistics.micro_steps;
    s->force_evaluations = r->statistics.force_evaluations;
    s->rows = r->statistics.rows;
    s->seconds = r->statistics.seconds;
    s->stopped = r->statistics.stopped ? 1 : 0;
}

int mdl_result_error_estimate(const mdl_result* r, mdl_error_estimate* estimate) {
    if (r->failed || !r->statistics.error_estimate) {
        return 0;
    }
    const mdl::ErrorEstimate& e = *r->statistics.error_estimate;
    estimate->total = e.total;
    estimate->micro = e.micro;
    estimate->macro = e.macro;
    estimate->averaging = e.averaging;
    estimate->tolerance = e.tolerance;
    estimate->dominant = e.dominant.c_str();
    return 1;
}

const char* mdl_result_method(const mdl_result* r) {
    return r->failed ? r->failure_method.c_str() : r->statistics.method.c_str();
}

const char* mdl_result_summary(const mdl_result* r) {
    return r->failed ? r->message.c_str() : r->statistics.summary.c_str();
}

int mdl_result_failure(const mdl_result* r, mdl_failure* failure) {
    if (!r->failed) {
        return 0;
    }
    if (failure != nullptr) {
        failure->time = r->failure_time;
        failure->kind = r->failure_kind.c_str();
        failure->method = r->failure_method.c_str();
        failure->variable = r->failure_variable.c_str();
    }
    return 1;
}

} // extern "C"
