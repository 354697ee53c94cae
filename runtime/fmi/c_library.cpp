#include "runtime/fmi/c_library.h"

#include "abi/kernel_abi.h"
#include "runtime/fmi/fmu_instance.hpp"
#include "runtime/numerical_failure.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace {

using mdl::runtime::format_number;
using mdl::runtime::fmi::FmuInstance;

// Where the instance's messages go: errors collected for the caller, information (logging is
// on only with a note callback) handed to the callback.
struct Messages {
    std::string errors;
    mdl_library_note note = nullptr;
    void* user = nullptr;
};

void collect(fmi2ComponentEnvironment environment, fmi2String, fmi2Status status, fmi2String,
             fmi2String format, ...) {
    auto& out = *static_cast<Messages*>(environment);
    va_list arguments;
    va_start(arguments, format);
    va_list again;
    va_copy(again, arguments);
    const int size = std::vsnprintf(nullptr, 0, format, arguments);
    va_end(arguments);
    if (size > 0) {
        std::string text(static_cast<std::size_t>(size) + 1, '\0');
        std::vsnprintf(text.data(), text.size(), format, again);
        text.pop_back();
        if (status == fmi2OK) {
            if (out.note != nullptr) {
                out.note(out.user, text.c_str());
            }
        } else {
            out.errors += (out.errors.empty() ? "" : "\n") + text;
        }
    }
    va_end(again);
}

void copy_message(const std::string& text, char* message, std::size_t size) {
    if (message == nullptr || size == 0) {
        return;
    }
    const std::size_t n = std::min(text.size(), size - 1);
    std::memcpy(message, text.data(), n);
    message[n] = '\0';
}

// One run: the FMU instance's calls in the standard's order, rows at the output times.
int run(FmuInstance& fmu, const mdl_fmu_model& model, double default_interval,
        const mdl_library_settings& s, mdl_library_row row, void* user, std::string& messages) {
    double start = s.start_time, stop = s.stop_time;
    if (!(stop > start)) {
        start = model.start_time;
        stop = model.stop_time;
    }
    const double interval = s.output_interval > 0.0 ? s.output_interval : default_interval;
    if (!(interval > 0.0) || !std::isfinite(interval)) {
        messages = "the output interval must be positive and finite, got " +
                   format_number(interval) + " (the model was exported without one: give it)";
        return 1;
    }
    const double count = (stop - start) / interval;
    if (!(count <= 1e15)) {
        messages = "the output interval " + format_number(interval) +
                   " divides the interval from " + format_number(start) + " to " +
                   format_number(stop) + " into too many rows";
        return 1;
    }
    const mdl_kernels& k = *model.kernels;
    const std::size_t outputs = 2 * std::size_t{k.n_positions} + k.n_states;
    if (fmu.setup_experiment(false, 0.0, start, true, stop) != fmi2OK ||
        fmu.enter_initialization() != fmi2OK) {
        return 1;
    }
    for (std::size_t i = 0; i < s.n_parameters; ++i) {
        const char* name = s.parameter_names != nullptr ? s.parameter_names[i] : nullptr;
        std::size_t p = 0;
        while (name != nullptr && p < k.n_parameters &&
               std::strcmp(model.parameter_names[p], name) != 0) {
            ++p;
        }
        if (name == nullptr || p == k.n_parameters) {
            std::string known;
            for (std::size_t q = 0; q < k.n_parameters; ++q) {
                known += (q == 0 ? "" : ", ") + std::string(model.parameter_names[q]);
            }
            messages = "no parameter '" + std::string(name != nullptr ? name : "(null)") +
                       "' (the parameters: " + known + ")";
            return 1;
        }
        const fmi2ValueReference vr = static_cast<fmi2ValueReference>(outputs + p);
        if (fmu.set_real(&vr, 1, &s.parameter_values[i]) != fmi2OK) {
            return 1;
        }
    }
    if (fmu.exit_initialization() != fmi2OK) {
        return 1;
    }
    std::vector<fmi2ValueReference> references(outputs);
    for (std::size_t i = 0; i < outputs; ++i) {
        references[i] = static_cast<fmi2ValueReference>(i);
    }
    std::vector<double> values(outputs);
    const auto emit = [&](double t) {
        if (fmu.get_real(references.data(), outputs, values.data()) != fmi2OK) {
            return -1;
        }
        return row != nullptr && row(user, t, values.data(), outputs) != 0 ? 1 : 0;
    };
    int status = emit(start);
    // whole intervals (to 1e-9), else a shorter last one ending at the stop time
    const double rounded = std::round(count);
    const auto rows = static_cast<std::uint64_t>(
        std::abs(count - rounded) <= 1e-9 * std::max(1.0, count) ? std::max(1.0, rounded)
                                                                 : std::ceil(count));
    for (std::uint64_t r = 1; r <= rows && status == 0; ++r) {
        const double t = r == rows ? stop : start + static_cast<double>(r) * interval;
        if (fmu.do_step(fmu.time(), t - fmu.time()) != fmi2OK) {
            return 1;
        }
        status = emit(t);
    }
    return status < 0 ? 1 : 0;
}

// One run with its messages: errors into `messages`, notes to the callback.
int simulate(const mdl_fmu_model& model, double default_interval, const mdl_library_settings& s,
             mdl_library_row row, void* user, std::string& messages) {
    Messages collected{{}, s.note, user};
    const fmi2CallbackFunctions callbacks{collect, nullptr, nullptr, nullptr, &collected};
    FmuInstance fmu(model, model.model_name, callbacks, s.note != nullptr, false);
    const int status = run(fmu, model, default_interval, s, row, user, messages);
    messages += (messages.empty() || collected.errors.empty() ? "" : "\n") + collected.errors;
    return status;
}

} // namespace

extern "C" int mdl_library_simulate(const mdl_fmu_model* model, double default_interval,
                                    const mdl_library_settings* settings, mdl_library_row row,
                                    void* user, char* message, size_t message_size) {
    std::string messages;
    int status = 1;
    if (model == nullptr || settings == nullptr) {
        messages = "null model or settings";
    } else {
        try {
            status = simulate(*model, default_interval, *settings, row, user, messages);
        } catch (const std::exception& e) {
            messages += (messages.empty() ? "" : "\n") + std::string(e.what());
            status = 1;
        } catch (...) {
            messages += (messages.empty() ? "" : "\n") + std::string("unexpected error");
            status = 1;
        }
    }
    copy_message(status == 0 ? std::string() : messages, message, message_size);
    return status;
}
