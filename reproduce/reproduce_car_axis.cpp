#include "reproduce/reproduce_car_axis.hpp"

#include "reproduce/test_set_run.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mdl::runtime::mechanics {

namespace {

bool adaptive(Method method) {
    return method == Method::ida || method == Method::dopri5;
}

void require_car_axis(const Model& model) {
    if (model.positions() != 4 || model.constraints() != 2 ||
        model.constraint_name(0) != "perpendicular" || model.constraint_name(1) != "axle") {
        throw std::invalid_argument("car axis: the model must have the 4 coordinates and the "
                                    "constraints 'perpendicular' and 'axle' of "
                                    "models/car_axis.mdl");
    }
    require_position_names(model, "car axis", car_axis_reference, 4);
}

} // namespace

double CarAxisRun::largest_error() const {
    return *std::max_element(errors.begin(), errors.end());
}

double CarAxisRun::correct_digits() const {
    double worst = 0.0;
    for (std::size_t i = 0; i < errors.size(); ++i) {
        worst = std::max(worst, errors[i] / std::abs(car_axis_reference[i].reference));
    }
    return -std::log10(worst);
}

bool CarAxisRun::passes() const {
    return largest_error() <= setting.tolerance && constraint_residual <= car_axis_constraint_limit;
}

CarAxisRun run_car_axis(const Model& model, const State& start, const CarAxisSetting& setting) {
    require_car_axis(model);
    const TestSetIntegration run = integrate_to(model, start, setting.method, car_axis_end_time,
                                                setting.rtol_or_step, adaptive(setting.method));
    CarAxisRun out;
    out.setting = setting;
    out.stats = run.stats;
    out.seconds = run.seconds;
    out.method = run.method;
    const State& state = run.end;
    for (Eigen::Index i = 0; i < 4; ++i) {
        out.values[static_cast<std::size_t>(i)] = state.q[i];
        out.values[static_cast<std::size_t>(i) + 4] = state.v[i];
    }
    for (std::size_t i = 0; i < out.values.size(); ++i) {
        out.errors[i] = std::abs(out.values[i] - car_axis_reference[i].reference);
    }
    out.multipliers = {state.lambda[0], state.lambda[1]};
    Vector g = Vector::Zero(2);
    model.constraint(state.t, state.q, g);
    out.constraint_residual = g.cwiseAbs().maxCoeff();
    return out;
}

std::vector<CarAxisSetting> car_axis_settings() {
    std::vector<CarAxisSetting> settings;
    if (ida_available()) {
        settings.push_back({Method::ida, 1e-12, 1e-8});
    }
    settings.push_back({Method::dopri5, 1e-12, 1e-8});
    settings.push_back({Method::rattle, 1e-5, 1e-5});
    settings.push_back({Method::galpha, 1e-5, 1e-5});
    return settings;
}

std::vector<CarAxisRun> reproduce_car_axis(const Model& model, const State& start) {
    std::vector<CarAxisRun> runs;
    for (const CarAxisSetting& s : car_axis_settings()) {
        runs.push_back(run_car_axis(model, start, s));
    }
    return runs;
}

std::string car_axis_markdown(const std::vector<CarAxisRun>& runs) {
    std::string out = "| component | Test Set t = 3 |";
    std::string rule = "|---|---|";
    for (const CarAxisRun& r : runs) {
        out += " " + r.method + (adaptive(r.setting.method) ? " (rtol " : " (h ") +
               printed("%g", r.setting.rtol_or_step) + ") | error |";
        rule += "---|---|";
    }
    out += "\n" + rule + "\n";
    for (std::size_t i = 0; i < car_axis_reference.size(); ++i) {
        out += "| " + std::string(car_axis_reference[i].name) + " | " +
               printed("%.16g", car_axis_reference[i].reference) + " |";
        for (const CarAxisRun& r : runs) {
            out +=
                " " + printed("%.16g", r.values[i]) + " | " + printed("%.2e", r.errors[i]) + " |";
        }
        out += "\n";
    }
    const char* multiplier_names[2] = {"lambda(perpendicular)", "lambda(axle)"};
    for (std::size_t i = 0; i < 2; ++i) {
        out += std::string("| ") + multiplier_names[i] + " | " +
               printed("%.16g", car_axis_reference_multipliers[i]) + " |";
        for (const CarAxisRun& r : runs) {
            out += " " + printed("%.16g", r.multipliers[i]) + " | " +
                   printed("%.2e", std::abs(r.multipliers[i] - car_axis_reference_multipliers[i])) +
                   " |";
        }
        out += "\n";
    }
    out += "| correct digits (scd) | |";
    for (const CarAxisRun& r : runs) {
        out += " " + printed("%.2f", r.correct_digits()) + " | |";
    }
    out += "\n| largest error (accepted) | |";
    for (const CarAxisRun& r : runs) {
        out += " " + printed("%.2e", r.largest_error()) + " | < " +
               printed("%g", r.setting.tolerance) + " |";
    }
    out += "\n| max abs g(t, q) | < " + printed("%g", car_axis_constraint_limit) + " |";
    for (const CarAxisRun& r : runs) {
        out += " " + printed("%.2e", r.constraint_residual) + " | |";
    }
    return out + steps_and_time_rows(runs);
}

} // namespace mdl::runtime::mechanics
