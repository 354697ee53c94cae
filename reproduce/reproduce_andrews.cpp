#include "reproduce/reproduce_andrews.hpp"

#include "runtime/run.hpp"

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

} // namespace

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
    for (std::size_t i = 0; i < andrews_reference.size(); ++i) {
        if (model.position_name(static_cast<Eigen::Index>(i)) != andrews_reference[i].name) {
            throw std::invalid_argument(
                "Andrews' mechanism: coordinate " + std::to_string(i + 1) + " is '" +
                model.position_name(static_cast<Eigen::Index>(i)) + "', expected '" +
                std::string(andrews_reference[i].name) + "'");
        }
    }
    RunSettings settings;
    settings.method = method;
    settings.stop_time = andrews_end_time;
    settings.step = 0.0; // adaptive: every accepted step, only the last one is kept
    settings.adaptive.rtol = rtol;
    settings.adaptive.atol = rtol;
    State state = start;
    const auto begin = std::chrono::steady_clock::now();
    AndrewsRun out;
    out.stats = run(model, state, settings, [](const State&) {});
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    out.method = std::string(info(method).name);
    out.rtol = rtol;
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
    if (info(Method::ida).summary.find("not available") == std::string_view::npos) {
        runs.push_back(run_andrews(model, start, Method::ida, 1e-10));
    }
    runs.push_back(run_andrews(model, start, Method::dopri5, 1e-10));
    return runs;
}

std::string andrews_markdown(const std::vector<AndrewsRun>& runs) {
    std::string out = "| angle | Test Set t = 0.03 |";
    std::string rule = "|---|---|";
    for (const AndrewsRun& r : runs) {
        out += " " + r.method + " (rtol " + format("%g", r.rtol) + ") | rel. error |";
        rule += "---|---|";
    }
    out += "\n" + rule + "\n";
    for (std::size_t i = 0; i < andrews_reference.size(); ++i) {
        out += "| " + std::string(andrews_reference[i].name) + " | " +
               format("%.16g", andrews_reference[i].reference) + " |";
        for (const AndrewsRun& r : runs) {
            out += " " + format("%.16g", r.angles[i]) + " | " +
                   format("%.2e", r.relative_errors[i]) + " |";
        }
        out += "\n";
    }
    out += "| max abs g(q) | < 1e-8 |";
    for (const AndrewsRun& r : runs) {
        out += " " + format("%.2e", r.constraint_residual) + " | |";
    }
    out += "\n| steps (rejected) | |";
    for (const AndrewsRun& r : runs) {
        out +=
            " " + std::to_string(r.stats.steps) + " (" + std::to_string(r.stats.rejected) + ") | |";
    }
    out += "\n| time [s] | |";
    for (const AndrewsRun& r : runs) {
        out += " " + format("%.3f", r.seconds) + " | |";
    }
    return out + "\n";
}

} // namespace mdl::runtime::mechanics
