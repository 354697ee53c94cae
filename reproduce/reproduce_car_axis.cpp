#include "reproduce/reproduce_car_axis.hpp"

#include "runtime/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace mdl::runtime::mechanics {

namespace {

std::string format(const char* pattern, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, pattern, value);
    return buffer;
}

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
    for (Eigen::Index i = 0; i < 4; ++i) {
        const auto& expected = car_axis_reference[static_cast<std::size_t>(i)].name;
        if (model.position_name(i) != expected) {
            throw std::invalid_argument("car axis: coordinate " + std::to_string(i + 1) + " is '" +
                                        model.position_name(i) + "', expected '" +
                                        std::string(expected) + "'");
        }
    }
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
    RunSettings settings;
    settings.method = setting.method;
    settings.stop_time = car_axis_end_time;
    if (adaptive(setting.method)) {
        settings.step = 0.0; // every accepted step, only the last one is kept
        settings.adaptive.rtol = setting.rtol_or_step;
        settings.adaptive.atol = setting.rtol_or_step;
    } else {
        settings.step = setting.rtol_or_step;
    }
    State state = start;
    const auto begin = std::chrono::steady_clock::now();
    CarAxisRun out;
    out.setting = setting;
    out.stats = run(model, state, settings, [](const State&) {});
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    out.method = std::string(info(setting.method).name);
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
    if (info(Method::ida).summary.find("not available") == std::string_view::npos) {
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
               format("%g", r.setting.rtol_or_step) + ") | error |";
        rule += "---|---|";
    }
    out += "\n" + rule + "\n";
    for (std::size_t i = 0; i < car_axis_reference.size(); ++i) {
        out += "| " + std::string(car_axis_reference[i].name) + " | " +
               format("%.16g", car_axis_reference[i].reference) + " |";
        for (const CarAxisRun& r : runs) {
            out += " " + format("%.16g", r.values[i]) + " | " + format("%.2e", r.errors[i]) + " |";
        }
        out += "\n";
    }
    const char* multiplier_names[2] = {"lambda(perpendicular)", "lambda(axle)"};
    for (std::size_t i = 0; i < 2; ++i) {
        out += std::string("| ") + multiplier_names[i] + " | " +
               format("%.16g", car_axis_reference_multipliers[i]) + " |";
        for (const CarAxisRun& r : runs) {
            out += " " + format("%.16g", r.multipliers[i]) + " | " +
                   format("%.2e", std::abs(r.multipliers[i] - car_axis_reference_multipliers[i])) +
                   " |";
        }
        out += "\n";
    }
    out += "| correct digits (scd) | |";
    for (const CarAxisRun& r : runs) {
        out += " " + format("%.2f", r.correct_digits()) + " | |";
    }
    out += "\n| largest error (accepted) | |";
    for (const CarAxisRun& r : runs) {
        out += " " + format("%.2e", r.largest_error()) + " | < " +
               format("%g", r.setting.tolerance) + " |";
    }
    out += "\n| max abs g(t, q) | < " + format("%g", car_axis_constraint_limit) + " |";
    for (const CarAxisRun& r : runs) {
        out += " " + format("%.2e", r.constraint_residual) + " | |";
    }
    out += "\n| steps (rejected) | |";
    for (const CarAxisRun& r : runs) {
        out +=
            " " + std::to_string(r.stats.steps) + " (" + std::to_string(r.stats.rejected) + ") | |";
    }
    out += "\n| time [s] | |";
    for (const CarAxisRun& r : runs) {
        out += " " + format("%.3f", r.seconds) + " | |";
    }
    return out + "\n";
}

} // namespace mdl::runtime::mechanics
