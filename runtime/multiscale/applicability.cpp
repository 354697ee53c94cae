#include "runtime/multiscale/applicability.hpp"

#include "runtime/integrators/stepper_support.hpp"
#include "runtime/multiscale/common_period.hpp"
#include "runtime/numerical_failure.hpp"

#include <cmath>
#include <numbers>

namespace mdl::runtime::multiscale {

namespace {

Applicability refused(std::string reason) {
    return Applicability{false, std::move(reason)};
}

// The stiff-spring HMM and the constrained multiscale methods multiply forces by M^-1
// component by component (the stiff HMM's kernel, the SHAKE/RATTLE and half-explicit
// projections along M^-1 G^T). hmm and strobo without constraints solve M(q) a = f in their
// micro-steps (ModelForce), and their macro-steps integrate the averaged accelerations or the
// period map, which need no mass.
Applicability refused_for_mass_matrix(const Model& model, std::string_view method) {
    return refused(mass_matrix_description(model) + ", and " + std::string(method) +
                   " assumes a constant diagonal mass; integrate it directly with dopri5, "
                   "rk4 or cvode-bdf (resolving the fast scale), or write it with bodies and "
                   "point masses");
}

// M(q) with constraints: no multiscale method (their projections use a diagonal M^-1).
Applicability refused_for_constrained_mass_matrix(const Model& model, std::string_view method) {
    return refused(mass_matrix_description(model) + ", and the model has " +
                   std::to_string(model.constraints()) + " constraint(s) (" +
                   model.constraint_name(0) + ", ...): " + std::string(method) +
                   " projects onto the constraints with a constant diagonal mass. With M(q), "
                   "hmm and strobo apply to models without constraints (write the mechanism "
                   "in independent coordinates, e.g. joint angles); or integrate this one "
                   "directly with dopri5, rk4, cvode-bdf or ida (resolving the fast scale)");
}

std::vector<double> rates_of(const Model& model) {
    Vector omega = Vector::Zero(model.vibrations());
    if (model.vibrations() > 0) {
        model.phase_rates(omega);
    }
    return {omega.data(), omega.data() + omega.size()};
}

// Averaging assumes smooth forcing: an impact's jump in velocity has no average over a fast
// period (docs/events.md).
Applicability refused_for_events(const Model& model, std::string_view method) {
    return refused("model '" + model.name() +
                   "' has events (when-clauses): " + std::string(method) +
                   " averages a smooth force over fast periods, and the jumps of reinit have "
                   "no such average; integrate it with dopri5, rk4 or cvode-* (with constraints "
                   "also rattle, shake, newmark or galpha), which locate the events");
}

} // namespace

void asynchronous_start_phase(const Model& model, Vector& theta) {
    theta = Vector::Zero(model.vibrations());
    if (model.vibrations() <= 1) {
        return;
    }
    model.phases(0.0, theta);
    for (Eigen::Index i = 0; i < theta.size(); ++i) {
        theta[i] = std::remainder(theta[i], 2.0 * std::numbers::pi);
    }
    if (theta.cwiseAbs().maxCoeff() <= 1e-12) {
        theta.setZero();
    }
}

Applicability hmm_applicability(const Model& model, const HmmOptions& options) {
    if (model.has_events()) {
        return refused_for_events(model, "HMM");
    }
    if (!model.mass_constant_diagonal()) {
        if (model.constrained()) {
            return refused_for_constrained_mass_matrix(model,
                                                       std::string(to_string(options.macro)));
        }
        if (options.macro != HmmMacro::verlet) {
            return refused(mass_matrix_description(model) + ", and " +
                           std::string(to_string(options.macro)) +
                           " integrates constrained models with a constant diagonal mass; this "
                           "model has no constraints: use hmm, which solves M(q) a = f in its "
                           "Verlet micro-steps");
        }
    }
    if (model.states() > 0) {
        return refused("HMM integrates second-order models only (the model has first-order "
                       "states); use strobo, which averages the period map of the whole "
                       "first-order system");
    }
    if (model.vibrations() == 0) {
        return refused("HMM needs a fast vibration (the model declares none)");
    }
    const bool constrained = options.macro != HmmMacro::verlet;
    if (constrained != model.constrained()) {
        return refused(constrained ? "hmm-shake and hmm-rattle integrate constrained models (use "
                                     "hmm)"
                                   : "the model has constraints: use hmm-shake or hmm-rattle");
    }
    if (constrained && model.rheonomic()) {
        return refused("the constraints depend on time (a moving anchor or a driven joint): "
                       "HMM filters the constraint forces of micro-integrations that start at "
                       "phases of their own, which a constraint moving with the vibration does "
                       "not allow; use strobo, which averages the period map of the rheonomic "
                       "system, or write the support's motion as a force in its frame (a "
                       "gravity field with the support's acceleration, models/kapitza.mdl)");
    }
    if (constrained && options.algorithm == HmmAlgorithm::synchronous) {
        return refused("the synchronous algorithm needs the enslaved velocity of the "
                       "unconstrained form; use --algorithm async for constrained models");
    }
    std::string why;
    if (!find_common_period(rates_of(model), model.names().vibrations, options.period, why)) {
        return refused(why + "; HMM averages over one common fast period");
    }
    if (constrained && model.velocity_dependent()) {
        return refused("with constraints, HMM does not handle velocity-dependent forces (dampers, "
                       "der() in a force): the averaged force then depends on the averaged "
                       "velocity, which the SHAKE micro-integration from rest does not see; use "
                       "strobo");
    }
    if (options.filter == FilterKind::simple) {
        if (options.algorithm == HmmAlgorithm::synchronous) {
            return refused("simple filtering (eq. 2.16) removes the fast oscillation only when "
                           "the force is even in the phase at the window's centre; the "
                           "synchronous algorithm centres its window at the macro time's phase. "
                           "Use --filter exp, or --algorithm async");
        }
        Vector start;
        asynchronous_start_phase(model, start);
        if (!options.force_even_in_phase || !start.isZero(0.0)) {
            return refused(
                std::string("simple filtering (eq. 2.16) divides the fast oscillation by omega^2 "
                            "only for forces even in the phase (eq. 2.17), and ") +
                (options.force_even_in_phase
                     ? "the vibrations' phase offsets put no even point on their orbit"
                     : "the force is not shown to be even in the phase (theta -> -theta)") +
                "; use --filter exp (the exponential kernel over 40 periods)");
        }
    }
    return {};
}

Applicability strobo_applicability(const Model& model, const StroboscopicOptions& options) {
    if (model.has_events()) {
        return refused_for_events(model, "stroboscopic averaging");
    }
    if (!model.mass_constant_diagonal()) {
        if (model.constrained()) {
            return refused_for_constrained_mass_matrix(model, "stroboscopic averaging (strobo)");
        }
        if (options.micro == StroboscopicMicro::verlet ||
            options.micro == StroboscopicMicro::half_explicit_rk3) {
            return refused(mass_matrix_description(model) + ", and the micro-integrator " +
                           std::string(to_string(options.micro)) +
                           " assumes a constant diagonal mass; use --micro rk4 (the default "
                           "without constraints), which solves M(q) a = f at every stage");
        }
    }
    if (model.vibrations() == 0 && options.period == 0.0) {
        return refused("the model has no vibration: stroboscopic averaging needs a fast periodic "
                       "forcing (or an explicit period)");
    }
    std::string why;
    if (model.vibrations() > 0 &&
        !find_common_period(rates_of(model), model.names().vibrations, options.period, why)) {
        return refused(why + "; stroboscopic averaging samples the motion once per common period");
    }
    if (model.vibrations() == 0 && !(options.period > 0.0)) {
        return refused("the period must be positive, got " + format_number(options.period));
    }
    if (model.rheonomic() && model.time_dependent()) {
        return refused("the constraints depend on time and so does the force other than through "
                       "vibrations: stroboscopic averaging of a rheonomic system samples it at "
                       "one phase of its fast period and needs its time dependence periodic "
                       "with that period (the constraints' motion and vibrations only)");
    }
    if (model.constrained() &&
        (options.micro == StroboscopicMicro::rk4 || options.micro == StroboscopicMicro::verlet)) {
        return refused("the micro-integrator " + std::string(to_string(options.micro)) +
                       " does not keep the constraints; constrained models use herk3 (the "
                       "default)");
    }
    return {};
}

Applicability stiff_hmm_applicability(const Model& model) {
    if (model.has_events()) {
        return refused_for_events(model, "the stiff-spring HMM");
    }
    if (!model.mass_constant_diagonal()) {
        return refused_for_mass_matrix(model, "the stiff-spring HMM");
    }
    if (model.constrained()) {
        return refused("the model has constraints: relax them into stiff springs "
                       "(--relax-constraints OMEGA) or use rattle/shake");
    }
    if (model.states() > 0) {
        return refused("the model has first-order states; the stiff HMM integrates "
                       "second-order models only");
    }
    if (model.vibrations() > 0) {
        return refused("the model has a vibration, which the stiff HMM's kernel does not "
                       "average (its window follows the stiff springs); use hmm or strobo");
    }
    if (model.velocity_dependent()) {
        return refused("the stiff HMM averages conservative stiff oscillations (the "
                       "Hamiltonian setting of its theory); the model has velocity-dependent "
                       "forces (dampers, der() in a force): use an implicit method (galpha, "
                       "cvode-bdf)");
    }
    return {};
}

} // namespace mdl::runtime::multiscale
