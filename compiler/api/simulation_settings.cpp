#include "mdl/simulation_settings.hpp"

#include "compiler/api/option_checks.hpp"
#include "runtime/numerical_failure.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>
#include <type_traits>

namespace mdl {

std::string option_number(double value) {
    return runtime::format_number(value);
}

void require_positive(const char* option, const std::optional<double>& value, const char* what) {
    if (value && !(*value > 0.0 && std::isfinite(*value))) {
        throw std::invalid_argument(fmt::format("{}: {} must be positive and finite, got {}",
                                                option, what, option_number(*value)));
    }
}

namespace {

std::string number(double value) {
    return runtime::format_number(value);
}

} // namespace

CompileOptions compile_options(const SimulationSettings& settings) {
    CompileOptions options;
    if (settings.relax_constraints) {
        // the spring constant is omega^2: a normal number, neither 0 nor inf
        const double omega = *settings.relax_constraints;
        if (!(omega > 0) || !std::isfinite(omega) || !std::isnormal(omega * omega)) {
            throw std::invalid_argument(fmt::format(
                "--relax-constraints: the frequency must be positive with omega^2 a finite "
                "normal number, got {}",
                number(omega)));
        }
        options.relax_constraints = *settings.relax_constraints;
    }
    options.library_paths = settings.library_paths;
    options.structural_parameters = settings.structural_parameters;
    options.disk_cache = !settings.no_cache;
    return options;
}

void validate_settings(const SimulationSettings& o) {
    if (o.start && !std::isfinite(*o.start)) {
        throw std::invalid_argument(
            fmt::format("--start: the start time must be finite, got {}", number(*o.start)));
    }
    if (o.stop && !std::isfinite(*o.stop)) {
        throw std::invalid_argument(
            fmt::format("--stop: the stop time must be finite, got {}", number(*o.stop)));
    }
    // a relative tolerance of 1 accepts any step; 0 is pure absolute control (with --atol)
    if (o.rtol && !(*o.rtol >= 0.0 && *o.rtol < 1.0)) {
        throw std::invalid_argument(fmt::format(
            "--rtol: the relative tolerance must lie in [0, 1), got {}", number(*o.rtol)));
    }
    // the error is measured in units of atol + rtol |y|: 0 divides by zero where y = 0
    require_positive("--atol", o.atol, "the absolute tolerance");
    if (o.rho_inf && !(*o.rho_inf >= 0.0 && *o.rho_inf <= 1.0)) {
        throw std::invalid_argument(
            fmt::format("--rho-inf: must lie in [0, 1], got {}", number(*o.rho_inf)));
    }
    require_positive("--constraint-tol", o.constraint_tol, "the constraint tolerance");
    if (o.every && *o.every == 0) {
        throw std::invalid_argument("--every: must be at least 1 (every row), got 0");
    }
    if (o.micro_steps_per_period && *o.micro_steps_per_period == 0) {
        throw std::invalid_argument("--micro-steps-per-period: must be at least 1, got 0");
    }
    // a window shorter than one fast period averages nothing: hmm-stiff ran with --window
    // 1e-300 and returned the unaveraged force
    if (o.window && !(*o.window >= 1.0 && std::isfinite(*o.window))) {
        throw std::invalid_argument(
            fmt::format("--window: the averaging window must be at least one fast period, got {}",
                        number(*o.window)));
    }
    require_positive("--macro-time", o.macro_time, "T_macro");
    require_positive("--period", o.period, "the common fast period");
    require_positive("--omega", o.omega, "the fast frequency");
}

const std::vector<std::string>& setting_names() {
    static const std::vector<std::string> names = {
        "method",     "library",   "no-cache", "start",           "stop",
        "step",       "rtol",      "atol",     "rho-inf",         "constraint-tol",
        "every",      "algorithm", "filter",   "window",          "micro-steps-per-period",
        "macro-time", "period",    "omega",    "reproject-every", "relax-constraints",
        "order",      "macro",     "micro"};
    return names;
}

SettingField setting_field(SimulationSettings& s, std::string_view name) {
    std::string key(name);
    std::replace(key.begin(), key.end(), '_', '-');
    const std::pair<const char*, SettingField> fields[] = {
        {"method", &s.method},
        {"no-cache", &s.no_cache},
        {"start", &s.start},
        {"stop", &s.stop},
        {"step", &s.step},
        {"rtol", &s.rtol},
        {"atol", &s.atol},
        {"rho-inf", &s.rho_inf},
        {"constraint-tol", &s.constraint_tol},
        {"every", &s.every},
        {"algorithm", &s.algorithm},
        {"filter", &s.filter},
        {"window", &s.window},
        {"micro-steps-per-period", &s.micro_steps_per_period},
        {"macro-time", &s.macro_time},
        {"period", &s.period},
        {"omega", &s.omega},
        {"reproject-every", &s.reproject_every},
        {"relax-constraints", &s.relax_constraints},
        {"order", &s.order},
        {"macro", &s.macro},
        {"micro", &s.micro},
    };
    for (const auto& field : fields) {
        if (key == field.first) {
            return field.second;
        }
    }
    std::string known;
    for (const auto& field : fields) {
        known += known.empty() ? "" : ", ";
        known += field.first;
    }
    throw std::invalid_argument(fmt::format(
        "unknown simulation option '{}'; the options are {} (library: a list of folders)", name,
        known));
}

namespace {

// A whole number of the option's type from its text, or std::invalid_argument naming it.
template <class Integer>
Integer whole_number(std::string_view option, std::string_view text) {
    Integer value{};
    const char* end = text.data() + text.size();
    const auto [ptr, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc() || ptr != end) {
        throw std::invalid_argument(
            fmt::format("--{}: '{}' is not a whole number in range", option, text));
    }
    return value;
}

} // namespace

void set_setting(SimulationSettings& settings, std::string_view name, std::string_view text) {
    std::string option(name);
    std::replace(option.begin(), option.end(), '_', '-');
    if (option == "library") {
        settings.library_paths.emplace_back(text);
        return;
    }
    std::visit(
        [&](auto* field) {
            using Field = std::remove_pointer_t<decltype(field)>;
            if constexpr (std::is_same_v<Field, bool>) {
                if (text == "true" || text == "1") {
                    *field = true;
                } else if (text == "false" || text == "0") {
                    *field = false;
                } else {
                    throw std::invalid_argument(
                        fmt::format("--{}: '{}' is not true or false", option, text));
                }
            } else if constexpr (std::is_same_v<Field, std::optional<std::string>>) {
                *field = std::string(text);
            } else if constexpr (std::is_same_v<Field, std::optional<double>>) {
                double value = 0;
                const char* end = text.data() + text.size();
                const auto [ptr, error] = std::from_chars(text.data(), end, value);
                if (error != std::errc() || ptr != end) {
                    throw std::invalid_argument(
                        fmt::format("--{}: '{}' is not a number", option, text));
                }
                *field = value;
            } else {
                *field = whole_number<typename Field::value_type>(option, text);
            }
        },
        setting_field(settings, option));
}

} // namespace mdl
