// mdl.h over the C++ API: exceptions become return codes and malloc'ed messages.
#include "mdl.h"

#include "compiler/api/c_model.hpp"
#include "mdl/compiled_model.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>

namespace {

using mdl::c_api::store;

template <typename Compile>
mdl_model* guarded(Compile compile, char** error) {
    try {
        return new mdl_model{compile()};
    } catch (const std::bad_alloc&) {
        store(error, "mdl: error: out of memory\n");
    } catch (const std::exception& e) {
        store(error, e.what());
    }
    return nullptr;
}

const char* name_at(const std::vector<std::string>& names, size_t i) {
    return i < names.size() ? names[i].c_str() : nullptr;
}

} // namespace

namespace {
// The C options as the C++ ones.
mdl::CompileOptions options_of(const mdl_compile_options* o) {
    mdl::CompileOptions out;
    if (o == nullptr) {
        return out;
    }
    for (size_t i = 0; i < o->n_structural; ++i) {
        out.structural_parameters.emplace_back(o->structural_names[i], o->structural_values[i]);
    }
    for (size_t i = 0; i < o->n_library_paths; ++i) {
        out.library_paths.emplace_back(o->library_paths[i]);
    }
    return out;
}
} // namespace

extern "C" {

mdl_model* mdl_compile_file(const char* path, char** error) {
    return guarded([&] { return mdl::compile_file(path); }, error);
}

mdl_model* mdl_compile_string(const char* source, const char* name, char** error) {
    return guarded([&] { return mdl::compile(source, name ? name : "<model>"); }, error);
}

mdl_model* mdl_compile_file_with(const char* path, const mdl_compile_options* options,
                                 char** error) {
    return guarded([&] { return mdl::compile_file(path, options_of(options)); }, error);
}

mdl_model* mdl_compile_string_with(const char* source, const char* name,
                                   const mdl_compile_options* options, char** error) {
    return guarded(
        [&] { return mdl::compile(source, name ? name : "<model>", options_of(options)); }, error);
}

void mdl_free(mdl_model* model) {
    delete model;
}
void mdl_free_string(char* text) {
    std::free(text);
}

const char* mdl_model_name(const mdl_model* m) {
    return m->model.name().c_str();
}
size_t mdl_n_positions(const mdl_model* m) {
    return m->model.sizes().positions;
}
size_t mdl_n_states(const mdl_model* m) {
    return m->model.sizes().states;
}
size_t mdl_n_constraints(const mdl_model* m) {
    return m->model.sizes().constraints;
}
size_t mdl_n_vibrations(const mdl_model* m) {
    return m->model.sizes().vibrations;
}
size_t mdl_n_parameters(const mdl_model* m) {
    return m->model.sizes().parameters;
}
const char* mdl_position_name(const mdl_model* m, size_t i) {
    return name_at(m->model.position_names(), i);
}
const char* mdl_state_name(const mdl_model* m, size_t i) {
    return name_at(m->model.state_names(), i);
}
const char* mdl_constraint_name(const mdl_model* m, size_t i) {
    return name_at(m->model.constraint_names(), i);
}
const char* mdl_parameter_name(const mdl_model* m, size_t i) {
    return name_at(m->model.parameter_names(), i);
}

int mdl_set_parameter(mdl_model* m, const char* name, double value, char** error) {
    try {
        m->model.set_parameter(name, value);
        return 0;
    } catch (const std::exception& e) {
        store(error, e.what());
        return 1;
    }
}

int mdl_get_parameter(const mdl_model* m, const char* name, double* value) {
    try {
        *value = m->model.parameter(name);
        return 0;
    } catch (const std::exception&) {
        return 1;
    }
}

const double* mdl_parameters(const mdl_model* m) {
    return m->model.parameters().data();
}

void mdl_start(const mdl_model* m, double* q, double* v, double* x) {
    auto copy = [](const std::vector<double>& from, double* to) {
        if (to != nullptr && !from.empty()) {
            std::memcpy(to, from.data(), from.size() * sizeof(double));
        }
    };
    copy(m->model.start_positions(), q);
    copy(m->model.start_velocities(), v);
    copy(m->model.start_states(), x);
}

void mdl_phases(const mdl_model* m, double t, double* theta) {
    auto phases = m->model.phases(t);
    if (!phases.empty()) {
        std::memcpy(theta, phases.data(), phases.size() * sizeof(double));
    }
}

const mdl_kernels* mdl_kernels_of(const mdl_model* m) {
    return &m->model.kernels();
}

int mdl_mass_constant(const mdl_model* m) {
    return m->model.mass_constant() ? 1 : 0;
}

int mdl_mass_diagonal(const mdl_model* m) {
    return m->model.mass_diagonal() ? 1 : 0;
}

mdl_kernel_args mdl_args(const mdl_model* m, double t, const double* q, const double* v,
                         const double* x, const double* theta) {
    return m->model.args(t, q, v, x, theta);
}

} // extern "C"
