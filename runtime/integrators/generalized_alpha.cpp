#include "runtime/integrators/generalized_alpha.hpp"

#include <stdexcept>

namespace mdl::runtime {

GeneralizedAlphaParameters GeneralizedAlphaParameters::chung_hulbert(double rho_inf) {
    if (!(rho_inf >= 0.0 && rho_inf <= 1.0)) {
        throw std::invalid_argument("galpha: the spectral radius at infinity rho_inf must lie in "
                                    "[0, 1], got " +
                                    format_number(rho_inf));
    }
    GeneralizedAlphaParameters p;
    p.alpha_m = (2.0 * rho_inf - 1.0) / (rho_inf + 1.0);
    p.alpha_f = rho_inf / (rho_inf + 1.0);
    p.beta = 0.25 * (1.0 - p.alpha_m + p.alpha_f) * (1.0 - p.alpha_m + p.alpha_f);
    p.gamma = 0.5 - p.alpha_m + p.alpha_f;
    return p;
}

GeneralizedAlphaParameters GeneralizedAlphaParameters::average_acceleration() {
    return GeneralizedAlphaParameters{0.0, 0.0, 0.25, 0.5};
}

template class GeneralizedAlpha<ModelForce>;

namespace detail {

void throw_implicit_not_finite(const Model& model, std::string_view method, double t, double h,
                               Eigen::Ref<const Vector> residual, const Vector& g) {
    for (Eigen::Index i = 0; i < residual.size(); ++i) {
        if (!std::isfinite(residual[i])) {
            throw NumericalFailure(FailureKind::non_finite, method, t, model.position_name(i),
                                   "the force on this coordinate is not finite at a Newton "
                                   "iterate (step " +
                                       format_number(h) + ")");
        }
    }
    for (Eigen::Index i = 0; i < g.size(); ++i) {
        if (!std::isfinite(g[i])) {
            throw NumericalFailure(FailureKind::non_finite, method, t, constraint_label(model, i),
                                   "the constraint is not finite at a Newton iterate (step " +
                                       format_number(h) + ")");
        }
    }
    throw NumericalFailure(FailureKind::non_finite, method, t, "", "non-finite Newton residual");
}

void throw_implicit_not_converged(const Model& model, std::string_view method, double t, double h,
                                  Eigen::Ref<const Vector> residual, double scale, const Vector& g,
                                  const SolverOptions& options) {
    const std::string after = " after " + std::to_string(options.max_iterations) +
                              " Newton iterations; reduce the step " + format_number(h) +
                              " or loosen the tolerance";
    Eigen::Index i = 0;
    const double dynamics = residual.cwiseAbs().maxCoeff(&i) / scale;
    if (dynamics > options.newton_tolerance) {
        throw NumericalFailure(FailureKind::newton_not_converged, method, t, model.position_name(i),
                               "the residual of M a = F for this coordinate is " +
                                   format_number(dynamics) + " relative to the accelerations (" +
                                   "tolerance " + format_number(options.newton_tolerance) + ")" +
                                   after);
    }
    Eigen::Index j = 0;
    const double geometry = g.size() > 0 ? g.cwiseAbs().maxCoeff(&j) : 0.0;
    throw NumericalFailure(FailureKind::newton_not_converged, method, t, constraint_label(model, j),
                           "the constraint residual is " + format_number(geometry) +
                               " (tolerance " + format_number(options.constraint_tolerance) + ")" +
                               after);
}

void throw_implicit_singular(const Model&, std::string_view method, double t, double h) {
    throw NumericalFailure(FailureKind::newton_not_converged, method, t, "",
                           "Newton's matrix (1 - alpha_m) I - (1 - alpha_f)(beta h^2 M^-1 df/dq + "
                           "gamma h M^-1 df/dv) is singular at the step " +
                               format_number(h) + "; reduce it");
}

} // namespace detail
} // namespace mdl::runtime
