// The Python module's native part, mdl._mdl (pybind11): compiled models, their kernels on
// NumPy arrays, and simulate() over the library's one simulation driver (mdl/simulate.hpp),
// with the GIL released while it integrates. python/mdl/__init__.py adds the rest of the
// public module (the sweep, the result's conveniences) in Python.
#include "chart_bindings.hpp"
#include "library_bindings.hpp"
#include "mdl/compiled_model.hpp"
#include "mdl/simulate.hpp"
#include "mdl/simulation_settings.hpp"
#include "modes_bindings.hpp"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace py = pybind11;

void register_periodic_bindings(py::module_& m); // periodic_bindings.cpp

namespace {

// A NumPy array that takes over `values` (no copy): a vector of `rows`, or a rows x width
// matrix (also of width 0).
py::array_t<double> take(std::vector<double>&& values, std::size_t rows,
                         std::optional<std::size_t> width = std::nullopt) {
    auto* owned = new std::vector<double>(std::move(values));
    py::capsule free_when_done(owned, [](void* p) { delete static_cast<std::vector<double>*>(p); });
    if (!width) {
        return py::array_t<double>({static_cast<py::ssize_t>(rows)}, owned->data(), free_when_done);
    }
    return py::array_t<double>({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(*width)},
                               owned->data(), free_when_done);
}

// A 1-d float64 array of `size` doubles (a copy only when the caller's is of another type or
// not contiguous), or a TypeError naming the argument.
py::array_t<double, py::array::c_style | py::array::forcecast>
vector_argument(const py::handle& value, std::size_t size, const char* name) {
    auto array = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(value);
    if (!array || array.ndim() != 1 || static_cast<std::size_t>(array.size()) != size) {
        throw py::type_error(std::string(name) + ": expected a vector of " + std::to_string(size) +
                             " floats");
    }
    return array;
}

// The settings from keyword arguments named as `mdl run`'s options ("micro_steps_per_period").
mdl::SimulationSettings settings_of(const py::kwargs& options) {
    mdl::SimulationSettings settings;
    for (const auto& [key, value] : options) {
        const std::string name = py::cast<std::string>(key);
        if (value.is_none()) {
            continue; // the model's annotation, then the method's default
        }
        if (name == "library") {
            settings.library_paths = py::cast<std::vector<std::string>>(value);
            continue;
        }
        std::visit(
            [&](auto* field) {
                using Field = std::remove_pointer_t<decltype(field)>;
                try {
                    if constexpr (std::is_same_v<Field, bool>) {
                        *field = py::cast<bool>(value);
                    } else {
                        *field = py::cast<typename Field::value_type>(value);
                    }
                } catch (const py::cast_error&) {
                    throw py::type_error(name + ": " + std::string(py::str(py::type::of(value))) +
                                         " is not of the option's type");
                }
            },
            mdl::setting_field(settings, name));
    }
    return settings;
}

mdl::CompileOptions compile_options_of(const py::dict& parameters,
                                       const std::vector<std::string>& library, bool no_cache) {
    mdl::CompileOptions options;
    for (const auto& [key, value] : parameters) {
        options.structural_parameters.emplace_back(py::cast<std::string>(key),
                                                   py::cast<double>(value));
    }
    options.library_paths = library;
    options.disk_cache = !no_cache;
    return options;
}

// The model's Real parameters set from the same mapping (Integer ones were compiled in).
void set_parameters(mdl::CompiledModel& model, const py::dict& parameters) {
    for (const auto& [key, value] : parameters) {
        model.set_parameter(py::cast<std::string>(key), py::cast<double>(value));
    }
}

// Calls a kernel of `model` at (t, q, v, x) with the phases at t; `outputs` doubles.
py::array_t<double> call_kernel(const mdl::CompiledModel& model, const mdl::Kernel& kernel,
                                const char* name, double t, const py::handle& q,
                                const py::handle& v, const py::handle& x) {
    if (!kernel) {
        throw py::value_error(std::string(name) + ": model '" + model.name() + "' has none");
    }
    const mdl::Sizes sizes = model.sizes();
    const auto qa = vector_argument(q, sizes.positions, "q");
    // no velocities: zero (a potential or a constraint does not read them)
    auto va = v.is_none() ? py::array_t<double, py::array::c_style | py::array::forcecast>(
                                static_cast<py::ssize_t>(sizes.positions))
                          : vector_argument(v, sizes.positions, "v");
    if (v.is_none()) {
        std::fill_n(va.mutable_data(), sizes.positions, 0.0);
    }
    std::vector<double> states;
    const double* xp = nullptr;
    py::array_t<double, py::array::c_style | py::array::forcecast> xa;
    if (!x.is_none()) {
        xa = vector_argument(x, sizes.states, "x");
        xp = xa.data();
    } else if (sizes.states > 0) {
        states = model.start_states();
        xp = states.data();
    }
    const std::vector<double> theta = model.phases(t);
    std::vector<double> out(kernel.outputs());
    kernel(model.args(t, qa.data(), va.data(), xp, theta.data()), out.data());
    const std::size_t size = out.size();
    return take(std::move(out), size);
}

std::vector<std::string> columns_of(const mdl::OutputLayout& layout) {
    return layout.columns;
}

} // namespace

PYBIND11_MODULE(_mdl, m) {
    m.doc() = "The native part of the mdl module (see help(mdl)).";

    // Exceptions: the classes are defined in Python (mdl/__init__.py) with their attributes;
    // the translator raises them.
    static py::object compile_error, numerical_failure;
    m.def("_register_exceptions", [](py::object compile, py::object numerical) {
        compile_error = std::move(compile);
        numerical_failure = std::move(numerical);
    });
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) {
                std::rethrow_exception(p);
            }
        } catch (const mdl::CompileError& e) {
            if (!compile_error) {
                throw;
            }
            py::object error = compile_error(std::string(e.what()));
            error.attr("report") = std::string(e.what());
            error.attr("messages") = e.messages();
            PyErr_SetObject(compile_error.ptr(), error.ptr());
        } catch (const mdl::NumericalFailure& e) {
            if (!numerical_failure) {
                throw;
            }
            py::object error = numerical_failure(std::string(e.what()));
            error.attr("time") = e.time();
            error.attr("method") = e.method();
            error.attr("variable") = e.where();
            error.attr("kind") = e.kind();
            error.attr("detail") = e.detail();
            PyErr_SetObject(numerical_failure.ptr(), error.ptr());
        }
    });

    py::class_<mdl::ErrorEstimate>(m, "ErrorEstimate",
                                   "A multiscale run's estimate of its position error at the stop "
                                   "time, in parts (docs/methods.md, Error estimates)")
        .def_readonly("total", &mdl::ErrorEstimate::total, "micro + macro + averaging")
        .def_readonly("micro", &mdl::ErrorEstimate::micro, "the micro integration's part")
        .def_readonly("macro", &mdl::ErrorEstimate::macro, "the macro integration's part")
        .def_readonly("averaging", &mdl::ErrorEstimate::averaging,
                      "the 1/omega terms and the filter's residual")
        .def_readonly("tolerance", &mdl::ErrorEstimate::tolerance, "atol + rtol max|q|")
        .def_readonly("dominant", &mdl::ErrorEstimate::dominant, "the largest part's name")
        .def_readonly("runs", &mdl::ErrorEstimate::runs, "runs made to meet the tolerance")
        .def_readonly("remedy", &mdl::ErrorEstimate::remedy,
                      "what would reduce the dominant part, when the tolerance is not met")
        .def_property_readonly("met", &mdl::ErrorEstimate::met)
        .def("__repr__", [](const mdl::ErrorEstimate& e) {
            return "<mdl.ErrorEstimate: " + std::to_string(e.total) + " (" + e.dominant +
                   " dominates; tolerance " + std::to_string(e.tolerance) + ")>";
        });

    py::class_<mdl::SimulationStatistics>(m, "Statistics", "What a run cost and how it was set up.")
        .def_readonly("method", &mdl::SimulationStatistics::method, "the method as run")
        .def_readonly("start", &mdl::SimulationStatistics::start)
        .def_readonly("stop", &mdl::SimulationStatistics::stop)
        .def_readonly("steps", &mdl::SimulationStatistics::steps, "(macro) steps taken")
        .def_readonly("rejected", &mdl::SimulationStatistics::rejected,
                      "rejected steps (adaptive methods)")
        .def_readonly("micro_steps", &mdl::SimulationStatistics::micro_steps,
                      "micro steps (multiscale methods)")
        .def_readonly("force_evaluations", &mdl::SimulationStatistics::force_evaluations)
        .def_readonly("rows", &mdl::SimulationStatistics::rows)
        .def_readonly("seconds", &mdl::SimulationStatistics::seconds,
                      "wall time of the integration")
        .def_readonly("summary", &mdl::SimulationStatistics::summary,
                      "the summary line mdl run prints")
        .def_readonly("error_estimate", &mdl::SimulationStatistics::error_estimate,
                      "a multiscale run's ErrorEstimate; None for the classical methods")
        .def_readonly("notes", &mdl::SimulationStatistics::notes,
                      "what the run tells its caller, one line each: the start values the "
                      "consistent start changed (mdl run prints them on stderr)")
        .def("__repr__", [](const mdl::SimulationStatistics& s) {
            return "<mdl.Statistics: " + s.summary + ">";
        });

    py::class_<mdl::SimulationResult, std::shared_ptr<mdl::SimulationResult>>(m, "_Result")
        .def_property_readonly("columns",
                               [](const mdl::SimulationResult& r) { return columns_of(r.layout); })
        .def_property_readonly("stats", [](const mdl::SimulationResult& r) { return r.statistics; })
        .def("_take", [](mdl::SimulationResult& r) {
            // the arrays, moved out once (mdl.Result keeps them)
            const std::size_t rows = r.rows();
            const mdl::OutputLayout& l = r.layout;
            py::dict arrays;
            arrays["t"] = take(std::move(r.t), rows);
            arrays["positions"] = take(std::move(r.positions), rows, l.positions);
            arrays["velocities"] = take(std::move(r.velocities), rows, l.positions);
            arrays["states"] = take(std::move(r.states), rows, l.states);
            arrays["residuals"] =
                l.residuals ? py::object(take(std::move(r.residuals), rows, l.constraints))
                            : py::none();
            arrays["multipliers"] =
                l.multipliers ? py::object(take(std::move(r.multipliers), rows, l.constraints))
                              : py::none();
            arrays["energy"] = l.energy ? py::object(take(std::move(r.energy), rows)) : py::none();
            return arrays;
        });

    py::class_<mdl::CompiledModel, std::shared_ptr<mdl::CompiledModel>>(m, "_Model")
        .def_property_readonly("name", &mdl::CompiledModel::name)
        .def_property_readonly("position_names", &mdl::CompiledModel::position_names)
        .def_property_readonly("velocity_names", &mdl::CompiledModel::velocity_names)
        .def_property_readonly("state_names", &mdl::CompiledModel::state_names)
        .def_property_readonly("constraint_names", &mdl::CompiledModel::constraint_names)
        .def_property_readonly("vibration_names", &mdl::CompiledModel::vibration_names)
        .def_property_readonly("parameter_names", &mdl::CompiledModel::parameter_names)
        .def("unit",
             [](const mdl::CompiledModel& c, const std::string& name) { return c.unit(name); })
        .def("parameter",
             [](const mdl::CompiledModel& c, const std::string& name) { return c.parameter(name); })
        .def("set_parameter", [](mdl::CompiledModel& c, const std::string& name,
                                 double value) { c.set_parameter(name, value); })
        .def("reset_parameters", &mdl::CompiledModel::reset_parameters)
        .def("with_parameters",
             [](const mdl::CompiledModel& c, const py::dict& parameters) {
                 std::vector<mdl::ParameterValue> overrides;
                 for (const auto& [key, value] : parameters) {
                     overrides.emplace_back(py::cast<std::string>(key), py::cast<double>(value));
                 }
                 return std::make_shared<mdl::CompiledModel>(c.with_parameters(overrides));
             })
        .def("start",
             [](const mdl::CompiledModel& c) {
                 auto q = c.start_positions(), v = c.start_velocities(), x = c.start_states();
                 const std::size_t n = q.size(), k = x.size();
                 return py::make_tuple(take(std::move(q), n), take(std::move(v), n),
                                       take(std::move(x), k));
             })
        .def("phases",
             [](const mdl::CompiledModel& c, double t) {
                 auto theta = c.phases(t);
                 const std::size_t r = theta.size();
                 return take(std::move(theta), r);
             })
        .def("setting_number", &mdl::CompiledModel::number_setting)
        .def("has_setting", &mdl::CompiledModel::has_setting)
        .def(
            "kernel",
            [](const mdl::CompiledModel& c, const std::string& name, double t, py::object q,
               py::object v, py::object x) {
                const std::pair<const char*, mdl::Kernel> kernels[] = {
                    {"force", c.force()},
                    {"mass", c.mass()},
                    {"mass_matrix", c.mass_matrix()},
                    {"rates", c.rates()},
                    {"potential", c.potential()},
                    {"constraint", c.constraint()},
                    {"constraint_jacobian", c.constraint_jacobian()},
                    {"curvature", c.curvature()},
                    {"force_dq", c.force_dq()},
                    {"force_dv", c.force_dv()},
                };
                for (const auto& [kernel_name, kernel] : kernels) {
                    if (name == kernel_name) {
                        return call_kernel(c, kernel, kernel_name, t, q, v, x);
                    }
                }
                throw py::value_error("no kernel '" + name + "'");
            },
            py::arg("name"), py::arg("t"), py::arg("q"), py::arg("v") = py::none(),
            py::arg("x") = py::none())
        .def("simulate", [](const mdl::CompiledModel& c, const py::kwargs& options) {
            const mdl::SimulationSettings settings = settings_of(options);
            auto result = std::make_shared<mdl::SimulationResult>();
            {
                py::gil_scoped_release unlocked;
                *result = mdl::simulate(c, settings);
            }
            return result;
        });

    m.def("_compile_file", [](const std::string& path, const py::dict& parameters,
                              const std::vector<std::string>& library, bool no_cache) {
        const mdl::CompileOptions options = compile_options_of(parameters, library, no_cache);
        std::shared_ptr<mdl::CompiledModel> model;
        {
            py::gil_scoped_release unlocked_while_compiling;
            model = std::make_shared<mdl::CompiledModel>(mdl::compile_file(path, options));
        }
        set_parameters(*model, parameters);
        return model;
    });
    m.def("_compile",
          [](const std::string& source, const std::string& name, const py::dict& parameters,
             const std::vector<std::string>& library, bool no_cache) {
              const mdl::CompileOptions options = compile_options_of(parameters, library, no_cache);
              std::shared_ptr<mdl::CompiledModel> model;
              {
                  py::gil_scoped_release unlocked_while_compiling;
                  model = std::make_shared<mdl::CompiledModel>(mdl::compile(source, name, options));
              }
              set_parameters(*model, parameters);
              return model;
          });
    m.def("_setting_names", &mdl::setting_names);
    register_modes(m); // mdl.Model.modes()
    register_periodic_bindings(m);
    register_chart_bindings(m);
    mdl::python::register_library_bindings(m, settings_of);
}
