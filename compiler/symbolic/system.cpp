#include "symbolic/system.hpp"

#include "symbolic/dependence.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <span>

namespace mdl::symbolic {

namespace {

constexpr std::array<std::string_view, kernel_count> kernel_names{
    "mass",
    "force",
    "rates",
    "potential",
    "constraint",
    "constraint_jacobian",
    "curvature",
    "force_dq",
    "force_dv",
    "phase",
    "phase_rate",
    "mass_matrix",
    "event_indicator",
    "event_reinit",
    "constraint_rate",
    "event_rate",
};

std::string_view kind_description(VarKind kind) {
    switch (kind) {
    case VarKind::parameter:
        return "parameters";
    case VarKind::position:
        return "positions";
    case VarKind::velocity:
        return "velocities";
    case VarKind::state:
        return "states";
    case VarKind::time:
        return "time";
    case VarKind::phase:
        return "vibration phases";
    }
    return "?";
}

bool is_positive_zero(const ExprPool& pool, ExprId e) {
    return pool.is_constant(e, 0.0) && !std::signbit(pool.constant_value(e));
}

std::string plural(std::uint32_t count, std::string_view word) {
    return std::to_string(count) + " " + std::string(word) + (count == 1 ? "" : "s");
}

} // namespace

std::string_view kernel_name(Kernel k) {
    return kernel_names[static_cast<std::size_t>(k)];
}

bool is_matrix_kernel(Kernel k) {
    return k == Kernel::constraint_jacobian || k == Kernel::force_dq || k == Kernel::force_dv ||
           k == Kernel::mass_matrix;
}

System::System(SystemSizes sizes, std::size_t node_limit) : pool_(node_limit), sizes_(sizes) {}

Expr System::time() {
    return {pool_, pool_.variable({VarKind::time, 0})};
}

namespace {
void check_index(std::uint32_t i, std::uint32_t count, const char* what) {
    if (i >= count) {
        throw std::out_of_range(std::string(what) + " index " + std::to_string(i) +
                                " out of range (the system has " + std::to_string(count) + ")");
    }
}
} // namespace

Expr System::position(std::uint32_t i) {
    check_index(i, sizes_.positions, "position");
    return {pool_, pool_.variable({VarKind::position, i})};
}

Expr System::velocity(std::uint32_t i) {
    check_index(i, sizes_.positions, "velocity");
    return {pool_, pool_.variable({VarKind::velocity, i})};
}

Expr System::state(std::uint32_t i) {
    check_index(i, sizes_.states, "state");
    return {pool_, pool_.variable({VarKind::state, i})};
}

Expr System::phase(std::uint32_t i) {
    check_index(i, sizes_.vibrations, "vibration");
    return {pool_, pool_.variable({VarKind::phase, i})};
}

Expr System::parameter(std::uint32_t i) {
    check_index(i, sizes_.parameters, "parameter");
    return {pool_, pool_.variable({VarKind::parameter, i})};
}

Expr System::constant(double value) {
    return {pool_, pool_.constant(value)};
}

std::pair<std::uint32_t, std::uint32_t> System::matrix_shape(Kernel k) const {
    if (k == Kernel::constraint_jacobian) {
        return {sizes_.constraints, sizes_.positions};
    }
    return {sizes_.positions, sizes_.positions};
}

bool System::has_kernel(Kernel k) const {
    if (is_sparse(k)) {
        const auto [rows, columns] = matrix_shape(k);
        return rows > 0 && columns > 0;
    }
    return !outputs(k).empty();
}

Sparsity System::sparsity(Kernel k) const {
    if (const auto& set = sparsity_[static_cast<std::size_t>(k)]) {
        return *set;
    }
    const auto [rows, columns] = matrix_shape(k);
    return Sparsity::dense(rows, columns);
}

void System::set_sparse(Kernel k, Sparsity pattern, std::vector<ExprId> values) {
    if (!is_matrix_kernel(k)) {
        throw InvalidSystem(std::string(kernel_name(k)) + " is not a matrix kernel");
    }
    if (values.size() != pattern.nonzeros()) {
        throw InvalidSystem(std::string(kernel_name(k)) + ": " + std::to_string(values.size()) +
                            " values for a pattern of " + std::to_string(pattern.nonzeros()) +
                            " entries");
    }
    outputs(k) = std::move(values);
    sparsity_[static_cast<std::size_t>(k)] = std::move(pattern);
}

void System::set_from_dense(Kernel k, const std::vector<ExprId>& entries) {
    const auto [rows, columns] = matrix_shape(k);
    if (entries.size() != static_cast<std::size_t>(rows) * columns) {
        throw InvalidSystem(std::string(kernel_name(k)) + " has " + std::to_string(entries.size()) +
                            " entries, expected " +
                            std::to_string(static_cast<std::size_t>(rows) * columns));
    }
    Sparsity pattern;
    pattern.rows = rows;
    pattern.columns = columns;
    pattern.row_start.assign(static_cast<std::size_t>(rows) + 1, 0);
    std::vector<ExprId> values;
    for (std::uint32_t i = 0; i < rows; ++i) {
        for (std::uint32_t j = 0; j < columns; ++j) {
            const ExprId e = entries[static_cast<std::size_t>(i) * columns + j];
            if (!is_positive_zero(pool_, e)) {
                pattern.column.push_back(j);
                values.push_back(e);
            }
        }
        pattern.row_start[i + 1] = static_cast<std::uint32_t>(pattern.column.size());
    }
    set_sparse(k, std::move(pattern), std::move(values));
}

std::vector<ExprId> System::dense_outputs(Kernel k) const {
    if (!is_sparse(k)) {
        return outputs(k);
    }
    const Sparsity& s = *sparsity_[static_cast<std::size_t>(k)];
    const std::vector<ExprId>& values = outputs(k);
    std::vector<ExprId> dense(static_cast<std::size_t>(s.rows) * s.columns, pool_.zero());
    for (std::uint32_t i = 0; i < s.rows; ++i) {
        for (std::uint32_t e = s.row_start[i]; e < s.row_start[i + 1]; ++e) {
            dense[static_cast<std::size_t>(i) * s.columns + s.column[e]] = values[e];
        }
    }
    return dense;
}

std::size_t System::expected_outputs(Kernel k) const {
    if (is_sparse(k)) {
        return sparsity_[static_cast<std::size_t>(k)]->nonzeros();
    }
    const std::size_t n = sizes_.positions;
    const std::size_t m = sizes_.constraints;
    switch (k) {
    case Kernel::mass:
    case Kernel::force:
        return n;
    case Kernel::rates:
        return sizes_.states;
    case Kernel::potential:
        return std::min<std::size_t>(outputs(k).size(), 1);
    case Kernel::constraint:
    case Kernel::curvature:
        return m;
    case Kernel::constraint_jacobian:
        return m * n;
    case Kernel::force_dq:
    case Kernel::force_dv:
    case Kernel::mass_matrix:
        return n * n;
    case Kernel::phase:
    case Kernel::phase_rate:
        return sizes_.vibrations;
    case Kernel::event_indicator:
        return sizes_.events;
    case Kernel::event_reinit:
        return sizes_.reinits;
    case Kernel::constraint_rate:
        return outputs(k).empty() ? 0 : m;
    case Kernel::event_rate:
        return outputs(k).empty() ? 0 : sizes_.events;
    }
    return 0;
}

void System::validate() const {
    for (Kernel k : all_kernels) {
        if (const auto& pattern = sparsity_[static_cast<std::size_t>(k)]) {
            const auto [rows, columns] = matrix_shape(k);
            bool ok = pattern->rows == rows && pattern->columns == columns &&
                      pattern->row_start.size() == static_cast<std::size_t>(rows) + 1 &&
                      pattern->row_start.front() == 0 &&
                      pattern->row_start.back() == pattern->column.size();
            for (std::uint32_t i = 0; ok && i < rows; ++i) {
                ok = pattern->row_start[i] <= pattern->row_start[i + 1];
                for (std::uint32_t e = pattern->row_start[i]; ok && e < pattern->row_start[i + 1];
                     ++e) {
                    ok =
                        pattern->column[e] < columns &&
                        (e == pattern->row_start[i] || pattern->column[e - 1] < pattern->column[e]);
                }
            }
            if (!ok) {
                throw InvalidSystem(std::string(kernel_name(k)) +
                                    " has a malformed sparsity pattern (expected " +
                                    std::to_string(rows) + " x " + std::to_string(columns) +
                                    ", ascending columns within rows)");
            }
        }
        const std::size_t expected = expected_outputs(k);
        if (outputs(k).size() != expected) {
            throw InvalidSystem(std::string(kernel_name(k)) + " has " +
                                std::to_string(outputs(k).size()) + " outputs, expected " +
                                std::to_string(expected) +
                                (k == Kernel::potential ? " (at most one)" : ""));
        }
        for (ExprId e : outputs(k)) {
            if (e.index >= pool_.size()) {
                throw InvalidSystem(std::string(kernel_name(k)) + " refers to expression #" +
                                    std::to_string(e.index) + ", which is not in the pool");
            }
        }
    }

    const auto count_of = [&](VarKind kind) -> std::uint32_t {
        switch (kind) {
        case VarKind::parameter:
            return sizes_.parameters;
        case VarKind::position:
        case VarKind::velocity:
            return sizes_.positions;
        case VarKind::state:
            return sizes_.states;
        case VarKind::time:
            return 1;
        case VarKind::phase:
            return sizes_.vibrations;
        }
        return 0;
    };
    // Which variables each kernel may read, beyond the indices being in range. One pass over
    // each kernel's DAG; only when it finds a violation are the outputs examined one by one,
    // to name the offending output.
    const auto check = [&](Kernel k, std::initializer_list<VarKind> allowed, const char* why) {
        const auto violation = [&](std::span<const ExprId> roots) -> std::optional<Variable> {
            for (Variable v : variables_in(pool_, roots)) {
                const bool kind_ok =
                    allowed.size() == 0 ||
                    std::find(allowed.begin(), allowed.end(), v.kind) != allowed.end();
                if (v.index >= count_of(v.kind) || !kind_ok) {
                    return v;
                }
            }
            return std::nullopt;
        };
        const auto& list = outputs(k);
        if (!violation(list)) {
            return;
        }
        for (std::size_t i = 0; i < list.size(); ++i) {
            const auto v = violation(std::span<const ExprId>(&list[i], 1));
            if (!v) {
                continue;
            }
            const std::string where =
                std::string(kernel_name(k)) + "[" + std::to_string(i) + "] uses " + names.name(*v);
            if (v->index >= count_of(v->kind)) {
                throw InvalidSystem(where + ", but the system has only " +
                                    std::to_string(count_of(v->kind)) + " " +
                                    std::string(kind_description(v->kind)));
            }
            throw InvalidSystem(where + ": " + why);
        }
    };
    using enum VarKind;
    check(Kernel::mass, {parameter}, "the mass may depend on parameters only");
    check(Kernel::force, {}, "");
    check(Kernel::rates, {}, "");
    check(Kernel::potential, {}, "");
    const char* holonomic = "constraints must be holonomic, g(t, q) = 0";
    check(Kernel::constraint, {time, position, phase, parameter}, holonomic);
    check(Kernel::constraint_jacobian, {time, position, phase, parameter}, holonomic);
    check(Kernel::curvature, {time, position, velocity, phase, parameter}, holonomic);
    check(Kernel::constraint_rate, {time, position, phase, parameter}, holonomic);
    check(Kernel::force_dq, {}, "");
    check(Kernel::force_dv, {}, "");
    check(Kernel::mass_matrix, {position, parameter},
          "the mass matrix may depend on positions and parameters only");
    check(Kernel::phase, {time, parameter},
          "a vibration phase may depend on time and parameters only");
    check(Kernel::event_indicator, {}, "");
    check(Kernel::event_reinit, {}, "");
    check(Kernel::event_rate, {time, position, velocity, phase, parameter},
          "the indicators' rate follows from indicators of t, q and the phases only");
    check(Kernel::phase_rate, {parameter},
          "a vibration phase must be linear in time, theta = omega*t + c, with omega(p)");
}

std::string print_system(const System& system) {
    const SystemSizes& s = system.sizes();
    const VariableNames& names = system.names;
    const auto name_list = [&](VarKind kind, std::uint32_t count) {
        std::string out;
        for (std::uint32_t i = 0; i < count; ++i) {
            out += (i == 0 ? " (" : ", ") + names.name({kind, i});
        }
        return count == 0 ? out : out + ")";
    };
    std::string out =
        "// " + plural(s.positions, "position") + name_list(VarKind::position, s.positions) + ", " +
        plural(s.states, "state") + name_list(VarKind::state, s.states) + ", " +
        plural(s.constraints, "constraint") + ", " + plural(s.vibrations, "vibration") +
        name_list(VarKind::phase, s.vibrations) + ", " + plural(s.parameters, "parameter") +
        name_list(VarKind::parameter, s.parameters) + "\n";
    out += std::string("// force depends on velocity: ") +
           (system.velocity_dependent ? "yes" : "no") +
           "; on time other than through phases: " + (system.time_dependent ? "yes" : "no") + "\n";
    out +=
        std::string("// mass matrix: ") +
        (system.mass_constant_diagonal()
             ? "constant and diagonal (mass[])"
             : std::string(system.mass_depends_on_positions ? "depends on positions" : "constant") +
                   (system.mass_coupled ? ", coupled" : ", diagonal") + " (mass_matrix[])") +
        "\n";

    const auto position = [&](std::size_t i) {
        return names.name({VarKind::position, static_cast<std::uint32_t>(i)});
    };
    std::vector<Labelled> entries;
    std::string omitted;
    for (Kernel k : all_kernels) {
        if (k == Kernel::mass_matrix && system.mass_constant_diagonal()) {
            continue; // mass[] is M
        }
        const auto& list = system.outputs(k);
        const std::string stem(kernel_name(k));
        std::size_t zeros = 0;
        std::size_t entries_total = list.size();
        if (is_matrix_kernel(k)) {
            const Sparsity pattern = system.sparsity(k);
            entries_total = static_cast<std::size_t>(pattern.rows) * pattern.columns;
            zeros = entries_total;
            for (std::uint32_t r = 0; r < pattern.rows; ++r) {
                for (std::uint32_t e = pattern.row_start[r]; e < pattern.row_start[r + 1]; ++e) {
                    if (system.pool().is_constant(list[e], 0.0)) {
                        continue;
                    }
                    --zeros;
                    const std::uint32_t c = pattern.column[e];
                    const std::string row =
                        k == Kernel::constraint_jacobian ? std::to_string(r) : position(r);
                    const std::string column =
                        k == Kernel::force_dv ? names.name({VarKind::velocity, c}) : position(c);
                    entries.push_back({stem + "[" + row + ", " + column + "]", list[e]});
                }
            }
        }
        for (std::size_t i = 0; i < list.size() && !is_matrix_kernel(k); ++i) {
            std::string label;
            switch (k) {
            case Kernel::mass:
            case Kernel::force:
                label = stem + "[" + position(i) + "]";
                break;
            case Kernel::rates:
                label =
                    stem + "[" + names.name({VarKind::state, static_cast<std::uint32_t>(i)}) + "]";
                break;
            case Kernel::potential:
                label = stem;
                break;
            case Kernel::phase:
            case Kernel::phase_rate:
                label =
                    stem + "[" + names.name({VarKind::phase, static_cast<std::uint32_t>(i)}) + "]";
                break;
            case Kernel::constraint_jacobian:
            case Kernel::force_dq:
            case Kernel::force_dv:
            case Kernel::mass_matrix:
                break; // above
            case Kernel::constraint:
            case Kernel::curvature:
            case Kernel::event_indicator:
            case Kernel::event_reinit:
            case Kernel::constraint_rate:
            case Kernel::event_rate:
                label = stem + "[" + std::to_string(i) + "]";
                break;
            }
            entries.push_back({label, list[i]});
        }
        if (zeros > 0) {
            omitted += (omitted.empty() ? "" : ", ") + stem + " " +
                       (zeros == entries_total
                            ? std::string("(all)")
                            : std::to_string(zeros) + " of " + std::to_string(entries_total));
        }
    }
    out += print_listing(system.pool(), entries, names);
    if (!omitted.empty()) {
        out += "// zero entries not shown: " + omitted + "\n";
    }
    return out;
}

} // namespace mdl::symbolic
