// mdl/periodic.hpp: the library calls over runtime/analysis (shooting, continuation), with
// the model's start values as first guesses and runtime failures as mdl::NumericalFailure.
#include "mdl/periodic.hpp"

#include "mdl/simulate.hpp"
#include "runtime/analysis/continuation.hpp"
#include "runtime/analysis/forcing_period.hpp"
#include "runtime/analysis/shooting.hpp"
#include "runtime/numerical_failure.hpp"
#include "runtime_view.hpp"

#include <fmt/format.h>
#include <stdexcept>

namespace mdl {

namespace {

using runtime::Vector;

// The first guess: the given values, or the model's start values.
Vector guess(const std::vector<double>& given, const std::vector<double>& start, const char* what) {
    const std::vector<double>& values = given.empty() ? start : given;
    if (values.size() != start.size()) {
        throw std::invalid_argument(fmt::format("the first guess of {} has {} values; the model "
                                                "has {} positions",
                                                what, values.size(), start.size()));
    }
    return Eigen::Map<const Vector>(values.data(), static_cast<Eigen::Index>(values.size()));
}

std::vector<double> to_vector(const Vector& v) {
    return {v.data(), v.data() + v.size()};
}

template <class F>
auto translating(F&& f) {
    try {
        return f();
    } catch (const runtime::NumericalFailure& e) {
        throw NumericalFailure(e.what(), std::string(runtime::to_string(e.kind())), e.method(),
                               e.time(), e.where(), e.detail());
    }
}

runtime::analysis::PeriodicOrbit find_orbit(runtime::analysis::Flow& flow, double period,
                                            const Vector& q, const Vector& v,
                                            const runtime::analysis::ShootingOptions& options) {
    using namespace runtime::analysis;
    const runtime::Model& model = flow.model();
    const double T = forcing_period(model, "periodic", period);
    if (!forced(model)) {
        const double first = T > 0.0 ? T : return_time(flow, q, v);
        if (!(first > 0.0)) {
            throw runtime::MethodNotApplicable(
                "periodic", "the flow from the start values does not return near them; give a "
                            "guess of the period (--period) or start on the orbit");
        }
        return shoot_autonomous(flow, first, q, v, options);
    }
    try {
        return shoot_forced(flow, 0.0, T, q, v, options);
    } catch (const runtime::NumericalFailure&) {
        // let the transient decay for 100 periods, then shoot again from there
        const FlowEnd end = flow.state(0.0, q, v, 100.0 * T);
        return shoot_forced(flow, 0.0, T, end.q, end.v, options);
    }
}

} // namespace

PeriodicOrbit periodic_orbit(const CompiledModel& compiled, const PeriodicSettings& settings) {
    const CompiledModel with = compiled.with_parameters(settings.parameters);
    const runtime::Model model = runtime_model(with);
    const Vector q = guess(settings.q, with.start_positions(), "the positions");
    const Vector v = guess(settings.v, with.start_velocities(), "the velocities");
    runtime::analysis::ShootingOptions options;
    options.tolerance = settings.tolerance;
    options.max_iterations = settings.max_iterations;
    return translating([&] {
        runtime::analysis::Flow flow(model);
        const runtime::analysis::PeriodicOrbit o = find_orbit(flow, settings.period, q, v, options);
        PeriodicOrbit result;
        result.period = o.period;
        result.autonomous = o.autonomous;
        result.q = to_vector(o.q);
        result.v = to_vector(o.v);
        result.multipliers = o.floquet.multipliers;
        result.trivial = o.floquet.trivial;
        result.max_modulus = o.floquet.max_modulus;
        result.stable = o.floquet.stable;
        result.stability = runtime::analysis::stability_name(o.floquet);
        result.monodromy.assign(o.phi.data(), o.phi.data() + o.phi.size());
        result.iterations = o.iterations;
        result.residual = o.residual;
        result.columns.emplace_back("time");
        for (const std::string& name : with.position_names()) {
            result.columns.push_back(name);
        }
        for (const std::string& name : with.velocity_names()) {
            result.columns.push_back(name);
        }
        const Eigen::Index samples =
            static_cast<Eigen::Index>(std::max<std::size_t>(1, settings.samples));
        const runtime::Matrix rows = flow.samples(0.0, o.q, o.v, o.period, samples);
        result.orbit.assign(rows.data(), rows.data() + rows.size());
        return result;
    });
}

Branch continuation(const CompiledModel& compiled, const ContinuationSettings& settings) {
    const CompiledModel with = compiled.with_parameters(settings.parameters);
    runtime::Model model = runtime_model(with);
    runtime::analysis::ContinuationOptions options;
    options.parameter = settings.parameter;
    options.from = settings.from;
    options.to = settings.to;
    options.ds = settings.ds;
    options.ds_min = settings.ds_min;
    options.ds_max = settings.ds_max;
    options.max_points = settings.max_points;
    options.period = settings.period;
    options.shooting.tolerance = settings.tolerance;
    options.samples = static_cast<Eigen::Index>(std::max<std::size_t>(8, settings.samples));
    model.parameter(settings.parameter); // an unknown name: std::invalid_argument first
    model.set_parameter(settings.parameter, settings.from);
    const CompiledModel at_start =
        with.with_parameters(std::vector<ParameterValue>{{settings.parameter, settings.from}});
    const Vector q = guess(settings.q, at_start.start_positions(), "the positions");
    const Vector v = guess(settings.v, at_start.start_velocities(), "the velocities");
    return translating([&] {
        const runtime::analysis::Branch b =
            runtime::analysis::continue_orbits(model, q, v, options);
        Branch result;
        result.parameter = settings.parameter;
        result.autonomous = b.autonomous;
        result.positions = with.position_names();
        result.velocities = with.velocity_names();
        result.stop = b.stop;
        result.evaluations = b.evaluations;
        for (const runtime::analysis::BranchPoint& p : b.points) {
            BranchPoint point;
            point.parameter = p.parameter;
            point.period = p.period;
            point.q = to_vector(p.q);
            point.v = to_vector(p.v);
            point.amplitude = to_vector(p.amplitude);
            point.multipliers = p.floquet.multipliers;
            point.max_modulus = p.floquet.max_modulus;
            point.stable = p.floquet.stable;
            point.stability = runtime::analysis::stability_name(p.floquet);
            point.label = p.label;
            result.points.push_back(std::move(point));
        }
        return result;
    });
}

std::vector<std::string> Branch::columns() const {
    std::vector<std::string> names{parameter, "period"};
    for (const std::string& q : positions) {
        names.push_back("amplitude(" + q + ")");
    }
    names.insert(names.end(), positions.begin(), positions.end());
    names.insert(names.end(), velocities.begin(), velocities.end());
    for (std::size_t j = 1; j <= 2 * positions.size(); ++j) {
        names.push_back(fmt::format("mu{}_re", j));
        names.push_back(fmt::format("mu{}_im", j));
    }
    names.emplace_back("max_abs_mu");
    names.emplace_back("stable");
    return names;
}

std::vector<double> Branch::table() const {
    std::vector<double> values;
    const std::size_t m = 2 * positions.size();
    for (const BranchPoint& p : points) {
        values.push_back(p.parameter);
        values.push_back(p.period);
        values.insert(values.end(), p.amplitude.begin(), p.amplitude.end());
        values.insert(values.end(), p.q.begin(), p.q.end());
        values.insert(values.end(), p.v.begin(), p.v.end());
        for (std::size_t j = 0; j < m; ++j) {
            const std::complex<double> mu = j < p.multipliers.size() ? p.multipliers[j] : 0.0;
            values.push_back(mu.real());
            values.push_back(mu.imag());
        }
        values.push_back(p.max_modulus);
        values.push_back(p.stable ? 1.0 : 0.0);
    }
    return values;
}

std::vector<std::string> Branch::labels() const {
    std::vector<std::string> labels;
    for (const BranchPoint& p : points) {
        labels.push_back(p.label);
    }
    return labels;
}

} // namespace mdl
