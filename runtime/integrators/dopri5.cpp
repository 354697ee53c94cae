#include "runtime/integrators/dopri5.hpp"

namespace mdl::runtime {

template class Dopri5<ModelForce>;
template class Dopri5<ConstrainedModelForce>;

namespace detail {

void throw_dopri5_underflow(const Model& model, std::string_view method, const State& s, double h,
                            const Phase& weighted_error) {
    // the variable with the largest weighted error of the last (rejected) attempt
    double worst = -1.0;
    std::string where;
    bool non_finite = false;
    const auto scan = [&](const Vector& e, auto&& name_of) {
        for (Eigen::Index i = 0; i < e.size(); ++i) {
            const double size = std::isfinite(e[i]) ? std::abs(e[i]) : HUGE_VAL;
            if (size > worst) {
                worst = size;
                where = name_of(i);
                non_finite = !std::isfinite(e[i]);
            }
        }
    };
    scan(weighted_error.q, [&](Eigen::Index i) { return model.position_name(i); });
    scan(weighted_error.v, [&](Eigen::Index i) { return model.velocity_name(i); });
    scan(weighted_error.x, [&](Eigen::Index i) { return model.state_name(i); });
    if (non_finite) {
        throw NumericalFailure(FailureKind::non_finite, method, s.t, where,
                               "the trial steps reach NaN or Inf however small they are (last "
                               "step size " +
                                   format_number(h) + ")");
    }
    throw NumericalFailure(FailureKind::step_size_underflow, method, s.t, where,
                           "the step size " + format_number(h) +
                               " is below the round-off of t; the solution may blow up here or "
                               "the problem is stiff or discontinuous");
}

} // namespace detail
} // namespace mdl::runtime
