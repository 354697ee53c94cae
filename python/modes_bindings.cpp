#include "modes_bindings.hpp"

#include "mdl/compiled_model.hpp"
#include "mdl/modes.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace {

// A copy of `values` as a NumPy vector, or as a rows x columns matrix.
py::array_t<double> array_of(const std::vector<double>& values) {
    return py::array_t<double>(static_cast<py::ssize_t>(values.size()), values.data());
}

py::array_t<double> matrix_of(const std::vector<double>& values, std::size_t rows,
                              std::size_t columns) {
    return py::array_t<double>({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(columns)},
                               values.data());
}

} // namespace

void register_modes(py::module_& m) {
    m.def(
        "_modes",
        [](const mdl::CompiledModel& model, const py::dict& at, const std::string& search,
           double tolerance, int max_iterations) {
            mdl::ModesOptions options;
            for (const auto& [key, value] : at) {
                options.at.emplace_back(py::cast<std::string>(key), py::cast<double>(value));
            }
            options.search = search;
            options.tolerance = tolerance;
            options.max_iterations = max_iterations;
            mdl::ModesResult r;
            {
                py::gil_scoped_release unlocked;
                r = mdl::modes(model, options);
            }
            const std::size_t n = r.coordinates.size(), k = r.modes();
            py::dict out;
            out["coordinates"] = r.coordinates;
            out["constraints"] = r.constraints;
            out["equilibrium"] = array_of(r.equilibrium);
            out["multipliers"] = array_of(r.multipliers);
            out["degrees_of_freedom"] = r.degrees_of_freedom;
            out["newton_iterations"] = r.newton_iterations;
            out["search"] = r.search;
            out["force_residual"] = r.force_residual;
            out["constraint_residual"] = r.constraint_residual;
            out["omega"] = array_of(r.omega);
            out["frequency_hz"] = array_of(r.frequency_hz);
            out["damping_ratio"] = array_of(r.damping_ratio);
            out["kind"] = r.kind;
            out["shapes"] = matrix_of(r.shapes, k, n);
            out["mass"] = matrix_of(r.mass, n, n);
            out["damping"] = matrix_of(r.damping, n, n);
            out["stiffness"] = matrix_of(r.stiffness, n, n);
            out["notes"] = r.notes;
            return out;
        },
        py::arg("model"), py::arg("at"), py::arg("search"), py::arg("tolerance"),
        py::arg("max_iterations"));
}
