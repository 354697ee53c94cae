// mdl._mdl's export, sweep and warnings over the library (mdl/export.hpp, mdl/sweep.hpp,
// mdl::set_warning_handler); python/mdl/__init__.py wraps them as mdl.export_fmu,
// mdl.export_c_library, mdl.sweep and mdl.set_warning_handler.
#include "library_bindings.hpp"

#include "mdl/compiled_model.hpp"
#include "mdl/export.hpp"
#include "mdl/sweep.hpp"

#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace mdl::python {

namespace {

// The exception of a sweep's point, raised in Python as the module's translator raises it.
struct PointFailure {
    std::exception_ptr error;
};

SweepGrid grid_of(const std::vector<std::pair<std::string, std::vector<double>>>& axes) {
    std::vector<SweepAxis> out;
    for (const auto& [name, values] : axes) {
        out.push_back({name, values});
    }
    return SweepGrid(std::move(out));
}

ExportSettings export_settings(const py::kwargs& options, SettingsOf settings_of) {
    py::kwargs simulation;
    ExportSettings settings;
    for (const auto& [key, value] : options) {
        const std::string name = py::cast<std::string>(key);
        if (name == "cpu") {
            settings.cpu = py::cast<std::string>(value);
        } else if (name == "parameters") {
            if (!value.is_none()) {
                for (const auto& [n, v] : py::cast<py::dict>(value)) {
                    settings.parameters.emplace_back(py::cast<std::string>(n), py::cast<double>(v));
                }
            }
        } else {
            simulation[key] = value;
        }
    }
    settings.simulation = settings_of(simulation);
    return settings;
}

// Exports from a model file (str) or a compiled model; returns the ExportSummary's fields.
template <typename ToFile, typename ToCompiled>
py::dict export_with(const py::object& model, const std::string& target, const py::kwargs& options,
                     SettingsOf settings_of, ToFile to_file, ToCompiled to_compiled) {
    const ExportSettings settings = export_settings(options, settings_of);
    ExportSummary summary;
    if (py::isinstance<CompiledModel>(model)) {
        const CompiledModel& compiled = model.cast<const CompiledModel&>();
        py::gil_scoped_release unlocked;
        summary = to_compiled(compiled, target, settings);
    } else {
        const std::string file = py::str(model);
        py::gil_scoped_release unlocked;
        summary = to_file(file, target, settings);
    }
    py::dict out;
    out["identifier"] = summary.identifier;
    out["method"] = summary.method;
    out["model_exchange"] = summary.model_exchange;
    out["variables"] = summary.variables;
    return out;
}

} // namespace

void register_library_bindings(py::module_& m, SettingsOf settings_of) {
    m.def("_export_fmu",
          [settings_of](const py::object& model, const std::string& path, const py::kwargs& o) {
              return export_with(
                  model, path, o, settings_of,
                  [](const std::string& f, const std::string& t, const ExportSettings& s) {
                      return export_fmu(f, t, s);
                  },
                  [](const CompiledModel& c, const std::string& t, const ExportSettings& s) {
                      return export_fmu(c, t, s);
                  });
          });
    m.def("_export_c_library",
          [settings_of](const py::object& model, const std::string& folder, const py::kwargs& o) {
              return export_with(
                  model, folder, o, settings_of,
                  [](const std::string& f, const std::string& t, const ExportSettings& s) {
                      return export_c_library(f, t, s);
                  },
                  [](const CompiledModel& c, const std::string& t, const ExportSettings& s) {
                      return export_c_library(c, t, s);
                  });
          });

    py::class_<PointFailure>(m, "_PointFailure").def("raise_", [](const PointFailure& f) {
        std::rethrow_exception(f.error);
    });
    // In memory, on threads: [(parameters, result or None, failure or None)] in grid order.
    m.def("_sweep_results",
          [settings_of](const CompiledModel& model,
                        const std::vector<std::pair<std::string, std::vector<double>>>& axes,
                        std::size_t jobs, const py::kwargs& options) {
              const SweepGrid grid = grid_of(axes);
              const SimulationSettings settings = settings_of(options);
              std::vector<SweepPoint> points;
              {
                  py::gil_scoped_release unlocked;
                  points = sweep_results(model, grid, settings, jobs);
              }
              py::list out;
              for (SweepPoint& p : points) {
                  py::object failure = p.error ? py::cast(PointFailure{p.error}) : py::none();
                  out.append(py::make_tuple(p.parameters, p.result, failure));
              }
              return out;
          });
    // To files as `mdl sweep` writes them: [(status, message, notes)] in grid order.
    m.def("_sweep_files",
          [settings_of](const CompiledModel& model,
                        const std::vector<std::pair<std::string, std::vector<double>>>& axes,
                        const std::string& output, std::size_t jobs, bool processes,
                        bool trajectories, const py::kwargs& options) {
              const SweepGrid grid = grid_of(axes);
              const SimulationSettings settings = settings_of(options);
              SweepOptions o;
              o.output = output;
              o.jobs = jobs;
              o.isolation = processes ? Isolation::processes : Isolation::threads;
              o.trajectories = trajectories;
              SweepReport report;
              {
                  py::gil_scoped_release unlocked;
                  report = sweep(model, grid, settings, o);
              }
              py::list out;
              for (const RunOutcome& r : report.outcomes) {
                  out.append(py::make_tuple(std::string(to_string(r.status)), r.message, r.notes));
              }
              return out;
          });

    // The library's warnings to a Python callable (None: dropped), called with the GIL held.
    // The callable is kept for the life of the process (not destroyed after the interpreter).
    m.def("_set_warning_handler", [](const py::object& handler) {
        if (handler.is_none()) {
            set_warning_handler({});
            return;
        }
        auto* kept = new py::object(handler); // never freed: see above
        set_warning_handler([kept](const std::string& warning) {
            if (!Py_IsInitialized()) {
                return;
            }
            py::gil_scoped_acquire locked;
            try {
                (*kept)(warning);
            } catch (py::error_already_set& e) {
                e.discard_as_unraisable("mdl warning handler");
            }
        });
    });
}

} // namespace mdl::python
