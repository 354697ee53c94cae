#include "reproduce/reproduce_andrews.hpp"

#include "reproduce/test_set_run.hpp"

#include <cmath>
#include <stdexcept>

namespace mdl::runtime::mechanics {

bool AndrewsRun::passes() const {
    for (double error : relative_errors) {
        if (!(error <= andrews_tolerance)) {
            return false;
        }
    }
    return constraint_residual <= andrews_constraint_limit;
}

AndrewsRun run_andrews(const Model& model, const State& start, Method method, double rtol) {
    if (model.positions() != static_cast<Eigen::Index>(andrews_reference.size()) ||
        model.constraints() != 6) {
        throw std::invalid_argument("Andrews' mechanism: the model must have the 7 angles and 6 "
                                    "loop constraints of models/andrews.mdl");
    }
    require_position_names(model, "Andrews' mechanism", andrews_reference,
                           andrews_reference.size());
    const TestSetIntegration run = integrate_to(model, start, method, andrews_end_time, rtol, true);
    AndrewsRun out;
    out.stats = run.stats;
    out.seconds = run.seconds;
    out.method = run.method;
    out.rtol = rtol;
    const State& state = run.end;
    for (std::size_t i = 0; i < andrews_reference.size(); ++i) {
        out.angles[i] = state.q[static_cast<Eigen::Index>(i)];
        out.relative_errors[i] = std::abs(out.angles[i] / andrews_reference[i].reference - 1.0);
    }
    Vector g = Vector::Zero(model.constraints());
    model.constraint(state.q, g);
    out.constraint_residual = g.cwiseAbs().maxCoeff();
    return out;
}

std::vector<AndrewsRun> reproduce_andrews(const Model& model, const State& start) {
    std::vector<AndrewsRun> runs;
    if (ida_available()) {
        runs.push_back(run_andrews(model, start, Method::ida, 1e-10));
    }
    runs.push_back(run_andrews(model, start, Method::dopri5, 1e-10));
    return runs;
}

std::string andrews_markdown(const std::vector<AndrewsRun>& runs) {
    std::string out = "| angle | Test Set t = 0.03 |";
    std::string rule = "|---|---|";
    for (const AndrewsRun& r : runs) {
        out += " " + r.method + " (rtol " + printed("%g", r.rtol) + ") | rel. error |";
        rule += "---|---|";
    }
    out += "\n" + rule + "\n";
    for (std::size_t i = 0; i < andrews_reference.size(); ++i) {
        out += "| " + std::string(andrews_reference[i].name) + " | " +
               printed("%.16g", andrews_reference[i].reference) + " |";
        for (const AndrewsRun& r : runs) {
            out += " " + printed("%.16g", r.angles[i]) + " | " +
                   printed("%.2e", r.relative_errors[i]) + " |";
        }
        out += "\n";
    }
    out += "| max abs g(q) | < 1e-8 |";
    for (const AndrewsRun& r : runs) {
        out += " " + printed("%.2e", r.constraint_residual) + " | |";
    }
    return out + steps_and_time_rows(runs);
}

} // namespace mdl::runtime::mechanics
