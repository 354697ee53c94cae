#include "runtime/integrators/stepper_support.hpp"

#include <stdexcept>

namespace mdl::runtime {

void require_no_first_order_states(const Model& model, std::string_view method) {
    if (model.states() > 0) {
        throw MethodNotApplicable(
            method, "the model has " + std::to_string(model.states()) + " first-order state(s) (" +
                        model.state_name(0) +
                        ", ...); this method integrates second-order mechanics only: use rk4 or "
                        "dopri5");
    }
}

std::string mass_matrix_description(const Model& model) {
    const std::string what = "the model's mass matrix M = d2T/dv2 from its kinetic energy ";
    if (!model.mass_depends_on_positions()) {
        return what + "is constant but couples coordinates (not diagonal)";
    }
    return what + "depends on the positions" +
           (model.mass_coupled() ? " and couples coordinates" : "");
}

void require_constant_diagonal_mass(const Model& model, std::string_view method) {
    if (model.mass_constant_diagonal()) {
        return;
    }
    throw MethodNotApplicable(
        method,
        mass_matrix_description(model) +
            ", and this method assumes a constant diagonal mass (it multiplies forces "
            "by M^-1 component by component); use rk4, dopri5 or cvode-bdf, which "
            "solve M(q) a = f at every evaluation" +
            (model.constrained() ? " (with the constraints: rk4, dopri5, cvode-bdf or ida)" : ""));
}

void require_unconstrained(const Model& model, std::string_view method) {
    if (model.constrained() && !model.mass_constant_diagonal()) {
        throw MethodNotApplicable(
            method,
            "the model has " + std::to_string(model.constraints()) + " constraint(s) (" +
                model.constraint_name(0) + ", ...) and " + mass_matrix_description(model) +
                "; this method does not integrate constraints: use rk4, dopri5, cvode-bdf or "
                "ida, which solve the saddle-point system of M(q) and the constraints");
    }
    if (model.constrained()) {
        // the methods that enforce constraints, the one refusing left out (a stepper built
        // without the multiplier form must not name itself)
        std::string others;
        for (std::string_view m : {"rattle", "shake", "newmark", "galpha", "rk4", "dopri5"}) {
            if (m != method) {
                others += (others.empty() ? "" : ", ") + std::string(m);
            }
        }
        throw MethodNotApplicable(
            method, "the model has " + std::to_string(model.constraints()) + " constraint(s) (" +
                        model.constraint_name(0) + ", ...); use " + others +
                        ", which enforce them with Lagrange multipliers (also cvode-bdf and "
                        "ida)");
    }
}

void require_constraints(const Model& model, std::string_view method) {
    if (!model.constrained()) {
        throw MethodNotApplicable(method, "the model has no constraints; without them this method "
                                          "is velocity Verlet: use verlet");
    }
}

void require_velocity_free(const Model& model, bool velocity_dependent, std::string_view method) {
    if (velocity_dependent) {
        const std::string which = model.name().empty() ? "the model" : "'" + model.name() + "'";
        throw MethodNotApplicable(
            method, "the force of " + which +
                        " depends on velocity (a damper or a velocity-dependent force). "
                        "Störmer's method (GE3) is unstable for every damped system: its "
                        "amplification matrix is even in A h, so it is unstable everywhere in "
                        "the open left half-plane (second-derivative models, \"Stability and "
                        "damping of GE3\"). Use verlet, newmark, galpha, rk4 or dopri5");
    }
}

void require_state_shape(const Model& model, const State& state, std::string_view method) {
    const auto mismatch = [&](const char* what, Eigen::Index got, Eigen::Index want) {
        throw std::invalid_argument(std::string(method) + ": the state has " + std::to_string(got) +
                                    " " + what + ", the model " + std::to_string(want));
    };
    if (state.q.size() != model.positions()) {
        mismatch("positions", state.q.size(), model.positions());
    }
    if (state.v.size() != model.positions()) {
        mismatch("velocities", state.v.size(), model.positions());
    }
    if (state.x.size() != model.states()) {
        mismatch("first-order states", state.x.size(), model.states());
    }
    if (state.lambda.size() != model.constraints()) {
        mismatch("multipliers", state.lambda.size(), model.constraints());
    }
}

namespace detail {

void throw_kick_not_converged(const Model& model, std::string_view method, double t,
                              Eigen::Index velocity, double change, double h, int iterations) {
    throw NumericalFailure(
        FailureKind::newton_not_converged, method, t, model.velocity_name(velocity),
        "the implicit half kick of the velocity-dependent force did not converge in " +
            std::to_string(iterations) + " fixed-point iterations (last change " +
            format_number(change) + "); the step " + format_number(h) +
            " is too large for the damping (it needs h |df/dv| / m < 2): reduce it or use "
            "newmark/galpha");
}

} // namespace detail
} // namespace mdl::runtime
