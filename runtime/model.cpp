#include "runtime/model.hpp"

#include "runtime/names.hpp"
#include "runtime/numerical_failure.hpp"

#include <Eigen/Cholesky>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mdl::runtime {

namespace {

void require(bool ok, const std::string& message) {
    if (!ok) {
        throw std::invalid_argument(message);
    }
}

void default_names(std::vector<std::string>& names, std::size_t count, const char* prefix,
                   const char* what) {
    if (names.empty()) {
        for (std::size_t i = 1; i <= count; ++i) {
            names.push_back(prefix + std::to_string(i));
        }
    }
    require(names.size() == count, "model: " + std::to_string(names.size()) + " " + what +
                                       " names given for " + std::to_string(count) + " " + what +
                                       "s");
}

} // namespace

Model::Model(const mdl_kernels& kernels, std::vector<double> parameters, ModelNames names)
    : kernels_(kernels), parameters_(std::move(parameters)), names_(std::move(names)) {
    const std::string who = names_.model.empty() ? "model" : "model '" + names_.model + "'";
    require(kernels_.n_positions + kernels_.n_states > 0, who + " has nothing to integrate");
    require(parameters_.size() == kernels_.n_parameters,
            who + ": " + std::to_string(parameters_.size()) + " parameter values given, " +
                std::to_string(kernels_.n_parameters) + " expected");
    require(kernels_.n_positions == 0 || (kernels_.mass && kernels_.force),
            who + ": the mass and force kernels are missing");
    require(kernels_.n_states == 0 || kernels_.rates, who + ": the rates kernel is missing");
    require(kernels_.n_constraints == 0 ||
                (kernels_.constraint && kernels_.constraint_jacobian && kernels_.curvature),
            who + ": a constrained model needs the constraint, constraint_jacobian and "
                  "curvature kernels");
    require(kernels_.n_constraints <= kernels_.n_positions,
            who + " has more constraints than positions");
    require(kernels_.n_vibrations == 0 || (kernels_.phase && kernels_.phase_rate),
            who + ": the phase and phase_rate kernels are missing");
    require((kernels_.force_dq == nullptr) == (kernels_.force_dv == nullptr),
            who + ": force_dq and force_dv come together");
    require(mass_constant_diagonal() || kernels_.n_positions == 0 || kernels_.mass_matrix,
            who + ": a mass matrix that is not constant and diagonal needs the mass_matrix "
                  "kernel");
    require((kernels_.n_events == 0 || kernels_.event_indicator) &&
                (kernels_.n_reinits == 0 || kernels_.event_reinit),
            who + ": the event_indicator and event_reinit kernels are missing");
    for (unsigned i = 0; i < kernels_.n_events; ++i) { // default events: no reinit, by index
        events_.push_back({"event " + std::to_string(i + 1), i, {}, 0, false, ""});
    }
    default_names(names_.positions, kernels_.n_positions, "q", "position");
    default_names(names_.states, kernels_.n_states, "x", "state");
    default_names(names_.constraints, kernels_.n_constraints, "g", "constraint");
    default_names(names_.parameters, kernels_.n_parameters, "p", "parameter");
    evaluate_mass();
}

bool Model::conservative() const {
    // With M(q) the force depends on v through Lagrange's velocity terms, which do no work.
    const bool dissipative =
        mass_constant_diagonal() ? velocity_dependent() : kernels_.applied_velocity_dependent != 0;
    return has_potential() && !dissipative && !time_dependent() && vibrations() == 0 &&
           states() == 0;
}

std::size_t Model::parameter_index(std::string_view name) const {
    const auto& names = names_.parameters;
    const auto found = std::find(names.begin(), names.end(), name);
    if (found == names.end()) {
        std::string message = "unknown parameter '" + std::string(name) + "'";
        const std::string suggestion =
            closest_name(name, std::vector<std::string_view>(names.begin(), names.end()));
        if (!suggestion.empty()) {
            message += "; did you mean '" + suggestion + "'?";
        }
        throw std::invalid_argument(message);
    }
    return static_cast<std::size_t>(found - names.begin());
}

void Model::set_parameter(std::string_view name, double value) {
    parameters_[parameter_index(name)] = value;
    evaluate_mass();
}

double Model::parameter(std::string_view name) const {
    return parameters_[parameter_index(name)];
}

void Model::evaluate_mass() {
    mass_.resize(positions());
    inverse_mass_.resize(positions());
    if (positions() == 0) {
        return;
    }
    const Vector none;
    const mdl_kernel_args a = args(0.0, none, none, none, none);
    kernels_.mass(&a, mass_.data());
    for (Eigen::Index i = 0; i < positions(); ++i) {
        if (!mass_constant_diagonal() && std::isnan(mass_[i])) {
            continue; // a coordinate of the kinetic energy: its inertia is in M(q)
        }
        require(std::isfinite(mass_[i]) && mass_[i] > 0.0, "the mass of '" + position_name(i) +
                                                               "' is " + std::to_string(mass_[i]) +
                                                               "; masses must be positive");
    }
    inverse_mass_ = mass_.cwiseInverse();
}

std::string Model::velocity_name(Eigen::Index i) const {
    return "der(" + position_name(i) + ")";
}

mdl_kernel_args Model::args(double t, const Vector& q, const Vector& v, const Vector& x,
                            const Vector& theta) const {
    return mdl_kernel_args{t,
                           q.size() ? q.data() : nullptr,
                           v.size() ? v.data() : nullptr,
                           x.size() ? x.data() : nullptr,
                           theta.size() ? theta.data() : nullptr,
                           parameters_.empty() ? nullptr : parameters_.data()};
}

void Model::phases(double t, Vector& theta) const {
    if (vibrations() == 0) {
        return;
    }
    const Vector none;
    const mdl_kernel_args a = args(t, none, none, none, none);
    kernels_.phase(&a, theta.data());
}

void Model::phase_rates(Vector& omega) const {
    if (vibrations() == 0) {
        return;
    }
    const Vector none;
    const mdl_kernel_args a = args(0.0, none, none, none, none);
    kernels_.phase_rate(&a, omega.data());
}

// Kernels with no outputs are null pointers (kernel_abi.h): a model without positions (only
// first-order states) has no mass or force kernel, one without constraints no constraint
// kernels. Every call below is skipped when its kernel has nothing to compute.

void Model::force(double t, const Vector& q, const Vector& v, const Vector& x, const Vector& theta,
                  Vector& f) const {
    if (positions() == 0) {
        return;
    }
    const mdl_kernel_args a = args(t, q, v, x, theta);
    kernels_.force(&a, f.data());
}

void Model::mass_matrix(const Vector& q, Matrix& M) const {
    M.resize(positions(), positions());
    if (positions() == 0) {
        return;
    }
    if (kernels_.mass_matrix == nullptr) {
        M = mass_.asDiagonal();
        return;
    }
    const Vector none;
    const mdl_kernel_args a = args(0.0, q, none, none, none);
    kernels_.mass_matrix(&a, M.data());
}

void Model::acceleration(double t, const Vector& q, const Vector& v, const Vector& x,
                         const Vector& theta, Vector& acc) const {
    force(t, q, v, x, theta, acc);
    if (mass_constant_diagonal()) {
        acc.array() *= inverse_mass_.array();
        return;
    }
    Matrix M;
    mass_matrix(q, M);
    Eigen::LLT<Matrix> llt;
    solve_mass_matrix(*this, t, M, llt, acc);
}

void solve_mass_matrix(const Model& model, double t, const Matrix& M, Eigen::LLT<Matrix>& llt,
                       Vector& rhs) {
    llt.compute(M);
    if (llt.info() != Eigen::Success) {
        // the first velocity whose leading minor is not positive definite
        Eigen::Index at = 0;
        for (Eigen::Index k = 1; k <= M.rows(); ++k) {
            at = k - 1;
            if (Eigen::LLT<Matrix>(M.topLeftCorner(k, k)).info() != Eigen::Success) {
                break;
            }
        }
        // raised without the method's name: the drivers add it (NumericalFailure::in_method)
        throw NumericalFailure(FailureKind::singular_mass_matrix, "", t, model.velocity_name(at),
                               "the mass matrix M(q) = d2T/dv2 of the kinetic energy is not "
                               "positive definite here (the configuration reached a singular "
                               "point of the coordinates, or a parameter makes T degenerate); "
                               "M^-1 f is not defined");
    }
    llt.solveInPlace(rhs);
}

void Model::set_events(std::vector<Event> events) {
    if (events.size() != kernels_.n_events) {
        throw std::invalid_argument("model '" + names_.model + "' has " +
                                    std::to_string(kernels_.n_events) + " events, not " +
                                    std::to_string(events.size()));
    }
    for (const Event& e : events) {
        if (e.first_reinit + e.reinits.size() > kernels_.n_reinits) {
            throw std::invalid_argument("event '" + e.name + "' refers to reinits beyond the " +
                                        std::to_string(kernels_.n_reinits) + " of the model");
        }
    }
    events_ = std::move(events);
}

void Model::event_indicators(double t, const Vector& q, const Vector& v, const Vector& x,
                             const Vector& theta, Vector& g) const {
    if (kernels_.n_events == 0) {
        return;
    }
    const mdl_kernel_args a = args(t, q, v, x, theta);
    kernels_.event_indicator(&a, g.data());
}

void Model::event_rates(double t, const Vector& q, const Vector& v, const Vector& x,
                        const Vector& theta, Vector& r) const {
    if (kernels_.n_events == 0 || kernels_.event_rate == nullptr) {
        return;
    }
    const mdl_kernel_args a = args(t, q, v, x, theta);
    kernels_.event_rate(&a, r.data());
}

void Model::event_reinits(double t, const Vector& q, const Vector& v, const Vector& x,
                          const Vector& theta, Vector& values) const {
    if (kernels_.n_reinits == 0) {
        return;
    }
    const mdl_kernel_args a = args(t, q, v, x, theta);
    kernels_.event_reinit(&a, values.data());
}

void Model::rates(double t, const Vector& q, const Vector& v, const Vector& x, const Vector& theta,
                  Vector& xdot) const {
    if (states() == 0) {
        return;
    }
    const mdl_kernel_args a = args(t, q, v, x, theta);
    kernels_.rates(&a, xdot.data());
}

void Model::force_jacobians(double t, const Vector& q, const Vector& v, const Vector& x,
                            const Vector& theta, Matrix& f_q, Matrix& f_v) const {
    if (positions() == 0) {
        return;
    }
    const mdl_kernel_args a = args(t, q, v, x, theta);
    kernels_.force_dq(&a, f_q.data());
    kernels_.force_dv(&a, f_v.data());
}

void Model::call_constraint_kernel(mdl_kernel kernel, double t, const Vector& q, const Vector& v,
                                   double* out) const {
    const Vector none;
    if (!rheonomic() || vibrations() == 0) {
        const mdl_kernel_args a = args(t, q, v, none, none);
        kernel(&a, out);
        return;
    }
    Vector theta(vibrations()); // a moving anchor's vibration: its phase at t
    phases(t, theta);
    const mdl_kernel_args a = args(t, q, v, none, theta);
    kernel(&a, out);
}

void Model::constraint(double t, const Vector& q, Vector& g) const {
    if (constraints() == 0) {
        return;
    }
    call_constraint_kernel(kernels_.constraint, t, q, Vector(), g.data());
}

void Model::constraint_jacobian(double t, const Vector& q, Matrix& G) const {
    if (constraints() == 0) {
        return;
    }
    call_constraint_kernel(kernels_.constraint_jacobian, t, q, Vector(), G.data());
}

void Model::constraint_jacobian_values(double t, const Vector& q, double* values) const {
    if (constraints() == 0) {
        return;
    }
    call_constraint_kernel(kernels_.constraint_jacobian_values, t, q, Vector(), values);
}

void Model::curvature(double t, const Vector& q, const Vector& v, Vector& c) const {
    if (constraints() == 0) {
        return;
    }
    call_constraint_kernel(kernels_.curvature, t, q, v, c.data());
}

void Model::constraint_rate(double t, const Vector& q, Vector& g_t) const {
    if (!rheonomic() || constraints() == 0) {
        g_t.setZero();
        return;
    }
    call_constraint_kernel(kernels_.constraint_rate, t, q, Vector(), g_t.data());
}

void Model::require_scleronomic(const char* what) const {
    if (rheonomic()) {
        throw std::logic_error(std::string("Model::") + what +
                               " without a time: the constraints of model '" + names_.model +
                               "' depend on time");
    }
}

void Model::constraint(const Vector& q, Vector& g) const {
    require_scleronomic("constraint");
    constraint(0.0, q, g);
}

void Model::constraint_jacobian(const Vector& q, Matrix& G) const {
    require_scleronomic("constraint_jacobian");
    constraint_jacobian(0.0, q, G);
}

void Model::curvature(const Vector& q, const Vector& v, Vector& c) const {
    require_scleronomic("curvature");
    curvature(0.0, q, v, c);
}

double Model::kinetic_energy(const Vector& v) const {
    return 0.5 * v.dot(mass_.cwiseProduct(v));
}

double Model::kinetic_energy(const Vector& q, const Vector& v) const {
    if (mass_constant_diagonal()) {
        return kinetic_energy(v);
    }
    Matrix M;
    mass_matrix(q, M);
    return 0.5 * v.dot(M * v);
}

double Model::potential_energy(double t, const Vector& q, const Vector& theta) const {
    const Vector none;
    const mdl_kernel_args a = args(t, q, none, none, theta);
    double u = 0.0;
    kernels_.potential(&a, &u);
    return u;
}

double Model::energy(double t, const Vector& q, const Vector& v, const Vector& theta) const {
    return kinetic_energy(q, v) + potential_energy(t, q, theta);
}

State Model::zero_state(double t) const {
    State s;
    s.t = t;
    s.q = Vector::Zero(positions());
    s.v = Vector::Zero(positions());
    s.x = Vector::Zero(states());
    s.lambda = Vector::Zero(constraints());
    return s;
}

} // namespace mdl::runtime
