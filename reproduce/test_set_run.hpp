// What the reproductions of the IVP Test Set's problems (Mazzia & Magherini, Test Set for IVP
// Solvers: Andrews' squeezing mechanism, the car axis) share: checking that the compiled model
// has the problem's coordinates, one timed integration to the reference time, and the
// tables' last rows.
#pragma once

#include "runtime/integrate.hpp"
#include "runtime/methods.hpp"
#include "runtime/model.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mdl::runtime::mechanics {

// `value` as printf's `pattern` ("%.16g", "%.2e") prints it.
std::string printed(const char* pattern, double value);

// Whether SUNDIALS' IDA is built in (else the reproductions leave it out).
bool ida_available();

// Throws std::invalid_argument "PROBLEM: coordinate 2 is 'x', expected 'y'" unless the model's
// first positions are named as `references` (anything with a `name`) names them, one each.
template <class References>
void require_position_names(const Model& model, std::string_view problem,
                            const References& references, std::size_t count);
void require_position_name(const Model& model, std::string_view problem, std::size_t index,
                           std::string_view expected);

// One integration from `start` to `end_time`: an adaptive method at rtol = atol =
// `rtol_or_step` (every accepted step, only the last one kept), or a fixed step.
struct TestSetIntegration {
    State end;
    IntegrationStats stats;
    double seconds = 0.0; // the integration's wall time
    std::string method;   // its name
};
TestSetIntegration integrate_to(const Model& model, const State& start, Method method,
                                double end_time, double rtol_or_step, bool adaptive);

// The last rows of a reproduction's markdown table: each run's steps (rejected) and time [s];
// `Run` has `stats` and `seconds`.
template <class Run>
std::string steps_and_time_rows(const std::vector<Run>& runs) {
    std::string out = "\n| steps (rejected) | |";
    for (const Run& r : runs) {
        out +=
            " " + std::to_string(r.stats.steps) + " (" + std::to_string(r.stats.rejected) + ") | |";
    }
    out += "\n| time [s] | |";
    for (const Run& r : runs) {
        out += " " + printed("%.3f", r.seconds) + " | |";
    }
    return out + "\n";
}

template <class References>
void require_position_names(const Model& model, std::string_view problem,
                            const References& references, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
        require_position_name(model, problem, i, references[i].name);
    }
}

} // namespace mdl::runtime::mechanics
