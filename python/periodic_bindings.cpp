// mdl._mdl's periodic orbits and continuation (mdl/periodic.hpp) on NumPy arrays, with the
// GIL released while they compute. python/mdl/__init__.py wraps them as
// Model.periodic_orbit() and Model.continuation().
#include "mdl/compiled_model.hpp"
#include "mdl/periodic.hpp"

#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <complex>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

// A copy of values as a NumPy array of shape (rows,) or (rows, width).
template <class T>
py::array_t<T> array(const std::vector<T>& values, std::size_t rows, std::size_t width = 0) {
    if (width == 0) {
        py::array_t<T> a(static_cast<py::ssize_t>(rows));
        std::copy(values.begin(), values.end(), a.mutable_data());
        return a;
    }
    py::array_t<T> a({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(width)});
    std::copy(values.begin(), values.end(), a.mutable_data());
    return a;
}

std::vector<double> guess(const py::object& value) {
    if (value.is_none()) {
        return {};
    }
    return py::cast<std::vector<double>>(value);
}

std::vector<mdl::ParameterValue> parameters_of(const py::dict& parameters) {
    std::vector<mdl::ParameterValue> values;
    for (const auto& [key, value] : parameters) {
        values.emplace_back(py::cast<std::string>(key), py::cast<double>(value));
    }
    return values;
}

py::dict orbit_dict(const mdl::PeriodicOrbit& o) {
    py::dict d;
    const std::size_t n = o.q.size(), columns = o.columns.size();
    d["period"] = o.period;
    d["autonomous"] = o.autonomous;
    d["q"] = array(o.q, n);
    d["v"] = array(o.v, n);
    d["multipliers"] = array(o.multipliers, o.multipliers.size());
    d["trivial"] = o.trivial;
    d["max_modulus"] = o.max_modulus;
    d["stable"] = o.stable;
    d["stability"] = o.stability;
    d["monodromy"] = array(o.monodromy, 2 * n, 2 * n);
    d["iterations"] = o.iterations;
    d["residual"] = o.residual;
    d["columns"] = o.columns;
    d["orbit"] = array(o.orbit, columns ? o.orbit.size() / columns : 0, columns);
    return d;
}

py::dict branch_dict(const mdl::Branch& b) {
    const std::size_t N = b.points.size(), n = b.positions.size();
    std::vector<double> parameter, period, amplitude, q, v, max_modulus;
    std::vector<std::complex<double>> multipliers;
    std::vector<bool> stable;
    std::vector<std::string> labels;
    for (const mdl::BranchPoint& p : b.points) {
        parameter.push_back(p.parameter);
        period.push_back(p.period);
        amplitude.insert(amplitude.end(), p.amplitude.begin(), p.amplitude.end());
        q.insert(q.end(), p.q.begin(), p.q.end());
        v.insert(v.end(), p.v.begin(), p.v.end());
        multipliers.insert(multipliers.end(), p.multipliers.begin(), p.multipliers.end());
        max_modulus.push_back(p.max_modulus);
        stable.push_back(p.stable);
        labels.push_back(p.label);
    }
    py::array_t<bool> stable_array(static_cast<py::ssize_t>(N));
    for (std::size_t i = 0; i < N; ++i) {
        stable_array.mutable_data()[i] = stable[i];
    }
    py::dict d;
    d["parameter_name"] = b.parameter;
    d["autonomous"] = b.autonomous;
    d["positions"] = b.positions;
    d["parameter"] = array(parameter, N);
    d["period"] = array(period, N);
    d["amplitude"] = array(amplitude, N, n);
    d["q"] = array(q, N, n);
    d["v"] = array(v, N, n);
    d["multipliers"] = array(multipliers, N, 2 * n);
    d["max_modulus"] = array(max_modulus, N);
    d["stable"] = stable_array;
    d["labels"] = labels;
    d["stop"] = b.stop;
    return d;
}

} // namespace

void register_periodic_bindings(py::module_& m) {
    m.def("_periodic_orbit", [](const mdl::CompiledModel& c, const py::dict& parameters,
                                double period, const py::object& q, const py::object& v,
                                std::size_t samples, double tolerance, int max_iterations) {
        mdl::PeriodicSettings s;
        s.parameters = parameters_of(parameters);
        s.period = period;
        s.q = guess(q);
        s.v = guess(v);
        s.samples = samples;
        s.tolerance = tolerance;
        s.max_iterations = max_iterations;
        mdl::PeriodicOrbit orbit;
        {
            py::gil_scoped_release unlocked;
            orbit = mdl::periodic_orbit(c, s);
        }
        return orbit_dict(orbit);
    });
    m.def("_continuation",
          [](const mdl::CompiledModel& c, const std::string& parameter, double from, double to,
             const py::dict& parameters, double ds, double ds_min, double ds_max, int max_points,
             double period, const py::object& q, const py::object& v, std::size_t samples,
             double tolerance) {
              mdl::ContinuationSettings s;
              s.parameter = parameter;
              s.from = from;
              s.to = to;
              s.parameters = parameters_of(parameters);
              s.ds = ds;
              s.ds_min = ds_min;
              s.ds_max = ds_max;
              s.max_points = max_points;
              s.period = period;
              s.q = guess(q);
              s.v = guess(v);
              s.samples = samples;
              s.tolerance = tolerance;
              mdl::Branch branch;
              {
                  py::gil_scoped_release unlocked;
                  branch = mdl::continuation(c, s);
              }
              return branch_dict(branch);
          });
}
