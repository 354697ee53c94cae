// mdl.Model.stability_chart (python/mdl/__init__.py) over mdl::stability_chart
// (mdl/stability_chart.hpp): the chart as mdl.StabilityChart, its grid and boundary points as
// NumPy arrays, with the GIL released while the chart is computed (on its own threads).
#include "chart_bindings.hpp"

#include "mdl/compiled_model.hpp"
#include "mdl/stability_chart.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace {

template <typename T>
py::array_t<T> array(const std::vector<T>& values, std::vector<py::ssize_t> shape) {
    py::array_t<T> out(shape);
    std::copy(values.begin(), values.end(), out.mutable_data());
    return out;
}

// (name, lo, hi, points, log) from Python.
mdl::ChartRange range_of(const py::tuple& t) {
    if (t.size() != 5) {
        throw py::value_error("a range is (name, lo, hi, points, log)");
    }
    return {py::cast<std::string>(t[0]), py::cast<double>(t[1]), py::cast<double>(t[2]),
            py::cast<std::size_t>(t[3]), py::cast<bool>(t[4])};
}

py::dict boundary_arrays(const mdl::StabilityChart& c) {
    const auto n = static_cast<py::ssize_t>(c.boundary.size());
    std::vector<double> x, y, width, stable_mu, unstable_mu;
    std::vector<std::uint8_t> along_x, converged, stable_first;
    for (const mdl::ChartBoundaryPoint& p : c.boundary) {
        x.push_back(p.x);
        y.push_back(p.y);
        width.push_back(p.width);
        stable_mu.push_back(p.stable_multiplier);
        unstable_mu.push_back(p.unstable_multiplier);
        along_x.push_back(p.along_x);
        converged.push_back(p.converged);
        stable_first.push_back(p.stable_first);
    }
    py::dict d;
    d["x"] = array(x, {n});
    d["y"] = array(y, {n});
    d["width"] = array(width, {n});
    d["stable_multiplier"] = array(stable_mu, {n});
    d["unstable_multiplier"] = array(unstable_mu, {n});
    d["along_x"] = array(along_x, {n}).attr("astype")("bool");
    d["converged"] = array(converged, {n}).attr("astype")("bool");
    d["stable_first"] = array(stable_first, {n}).attr("astype")("bool");
    return d;
}

} // namespace

void register_chart_bindings(py::module_& m) {
    using Chart = mdl::StabilityChart;
    py::class_<Chart, std::shared_ptr<Chart>>(
        m, "StabilityChart",
        "A stability chart (mdl.Model.stability_chart): grid verdicts and refined boundaries.")
        .def_property_readonly("x_name", [](const Chart& c) { return c.x.name; })
        .def_property_readonly("y_name", [](const Chart& c) { return c.y.name; })
        .def_property_readonly(
            "x",
            [](const Chart& c) {
                return array(c.x_values, {static_cast<py::ssize_t>(c.x_values.size())});
            },
            "the first parameter's values (N1)")
        .def_property_readonly(
            "y",
            [](const Chart& c) {
                return array(c.y_values, {static_cast<py::ssize_t>(c.y_values.size())});
            },
            "the second parameter's values (N2)")
        .def_property_readonly(
            "verdict",
            [](const Chart& c) {
                std::vector<std::int8_t> v;
                for (const mdl::ChartPoint& p : c.points) {
                    v.push_back(p.verdict == mdl::ChartPoint::Verdict::stable     ? 1
                                : p.verdict == mdl::ChartPoint::Verdict::unstable ? 0
                                                                                  : -1);
                }
                return array(v, {static_cast<py::ssize_t>(c.x.points),
                                 static_cast<py::ssize_t>(c.y.points)});
            },
            "N1 x N2: 1 stable, 0 unstable, -1 failed (element [i, j] at x[i], y[j])")
        .def_property_readonly(
            "max_multiplier",
            [](const Chart& c) {
                std::vector<double> v;
                for (const mdl::ChartPoint& p : c.points) {
                    v.push_back(p.max_multiplier);
                }
                return array(v, {static_cast<py::ssize_t>(c.x.points),
                                 static_cast<py::ssize_t>(c.y.points)});
            },
            "N1 x N2: the largest |Floquet multiplier| (NaN where failed)")
        .def_property_readonly(
            "failures",
            [](const Chart& c) {
                py::list out;
                for (std::size_t k = 0; k < c.points.size(); ++k) {
                    if (c.points[k].verdict == mdl::ChartPoint::Verdict::failed) {
                        out.append(py::make_tuple(c.x_values[k / c.y.points],
                                                  c.y_values[k % c.y.points], c.points[k].message));
                    }
                }
                return out;
            },
            "(x, y, message) of each point whose solution could not be computed")
        .def_property_readonly("boundary", &boundary_arrays,
                               "the refined boundary points: a dict of arrays x, y, along_x, "
                               "width, converged, stable_first, stable_multiplier, "
                               "unstable_multiplier")
        .def_readonly("solution", &Chart::solution)
        .def_readonly("evaluations", &Chart::evaluations)
        .def_readonly("tolerance", &Chart::tolerance)
        .def(
            "svg",
            [](const Chart& c, const std::string& title) {
                return mdl::stability_chart_svg(c, title);
            },
            py::arg("title") = "", "the chart as an SVG image (text)")
        .def("grid_csv",
             [](const Chart& c) {
                 std::ostringstream out;
                 mdl::write_chart_grid_csv(out, c);
                 return out.str();
             })
        .def("boundary_csv", [](const Chart& c) {
            std::ostringstream out;
            mdl::write_chart_boundary_csv(out, c);
            return out.str();
        });

    m.def("_stability_chart",
          [](const mdl::CompiledModel& model, const py::tuple& x, const py::tuple& y,
             const std::vector<std::pair<std::string, double>>& at, bool orbit, double period,
             double tolerance, double stability_tolerance, std::size_t threads) {
              mdl::StabilityChartSettings s;
              s.x = range_of(x);
              s.y = range_of(y);
              s.at = at;
              s.orbit = orbit;
              s.period = period;
              s.tolerance = tolerance;
              s.stability_tolerance = stability_tolerance;
              s.threads = threads;
              auto chart = std::make_shared<Chart>();
              {
                  py::gil_scoped_release unlocked;
                  *chart = mdl::stability_chart(model, s);
              }
              return chart;
          });
}
