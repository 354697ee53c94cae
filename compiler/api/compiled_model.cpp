#include "mdl/compiled_model.hpp"

#include "c_header.hpp"
#include "check/checker.hpp"
#include "check/dimension.hpp"
#include "check/evaluate.hpp"
#include "check/fast_scales.hpp"
#include "check/front_end.hpp"
#include "codegen/compiled_kernels.hpp"
#include "codegen/object_file.hpp"
#include "parse/parser.hpp"
#include "symbolic/equations_of_motion.hpp"
#include "symbolic/parity.hpp"
#include "warnings.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <mutex>
#include <optional>

namespace mdl {

struct CompiledModel::State {
    // What one compilation produced, never changed afterwards: shared by the model compile()
    // returns and every model with_parameters makes from it, so any number of threads may
    // read it.
    struct Compilation {
        check::CheckedModel checked;
        symbolic::System system;
        codegen::CompiledKernels compiled;
        std::vector<bool> force_even_in_phase; // per vibration, proved once at compile time
        bool force_even_in_all_phases = true;  // all phases mirrored at once
    };

    explicit State(std::shared_ptr<const Compilation> shared)
        : compilation(std::move(shared)), checked(compilation->checked),
          system(compilation->system), compiled(compilation->compiled) {}

    std::shared_ptr<const Compilation> compilation;
    const check::CheckedModel& checked;
    const symbolic::System& system;
    const codegen::CompiledKernels& compiled;
    // this model's own: with_parameters copies them
    std::vector<double> parameters;
    std::vector<bool> fixed; // set by the host: not recomputed from their expressions
    std::vector<std::string> position_names, velocity_names, state_names, constraint_names,
        vibration_names, parameter_names;
    std::vector<std::string> constraint_locations; // "file:line:col" of each declaration
    std::vector<std::string> constraint_excerpts;  // its source line and caret
    std::vector<std::pair<std::string, long long>> structural; // Integer parameters as compiled
    Timings timings;
    codegen::CodegenOptions codegen_options; // as compiled, for object_code()
    std::string source;                      // the file name given to compile()

    check::Values values() const { return check::Values(parameters); }
    double evaluate(const check::ExprPtr& e) const { return check::evaluate(*e, values()); }
};

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

[[noreturn]] void fail(const source::Diagnostics& diagnostics) {
    std::vector<std::string> messages;
    for (const auto& d : diagnostics.all()) {
        const auto& file =
            diagnostics.file(d.range.file < diagnostics.file_count() ? d.range.file : 0);
        auto lc = file.line_column(d.range.begin);
        const char* severity = d.severity == source::Severity::error     ? "error"
                               : d.severity == source::Severity::warning ? "warning"
                                                                         : "note";
        messages.push_back(
            fmt::format("{}:{}:{}: {}: {}", file.name(), lc.line, lc.column, severity, d.message));
    }
    throw CompileError(diagnostics.render(), std::move(messages));
}

[[noreturn]] void fail(const std::string& file, const std::string& message) {
    std::string line = fmt::format("{}: error: {}", file, message);
    throw CompileError(line + "\n", {line});
}

// The parameters after recomputing every one not fixed, in dependency order.
std::vector<double> recompute(const check::CheckedModel& model, std::vector<double> values,
                              const std::vector<bool>& fixed) {
    for (std::uint32_t i : model.parameter_order) {
        if (!fixed[i]) {
            values[i] = check::evaluate(*model.parameters[i].value, check::Values(values));
        }
    }
    return values;
}

} // namespace

namespace {

std::mutex warning_mutex;
std::function<void(const std::string& warning)> warning_handler;

} // namespace

void warn(const std::string& warning) {
    std::function<void(const std::string&)> handler;
    {
        std::lock_guard lock(warning_mutex);
        handler = warning_handler;
    }
    if (handler) {
        handler(warning);
    }
}

void set_warning_handler(std::function<void(const std::string& warning)> handler) {
    {
        std::lock_guard lock(warning_mutex);
        warning_handler = std::move(handler);
    }
    codegen::set_cache_warning_handler(
        [](const std::string& warning) { warn("code cache: " + warning); });
}

CompiledModel compile(std::string_view source_text, std::string_view name,
                      const CompileOptions& options) {
    auto start = Clock::now();
    source::SourceFile file{std::string(name), std::string(source_text)};
    source::Diagnostics diagnostics(file);
    check::FrontEndOptions front_end;
    front_end.overrides = options.structural_parameters;
    front_end.library_paths = options.library_paths;
    std::optional<check::CheckedModel> checked = check::check_file(file, diagnostics, front_end);
    if (!checked) {
        fail(diagnostics);
    }
    CompiledModel::Timings timings;
    timings.frontend_ms = ms_since(start);

    auto symbolic_start = Clock::now();
    std::optional<symbolic::System> system;
    try {
        system.emplace(symbolic::equations_of_motion(
            *checked,
            options.node_limit ? options.node_limit : symbolic::ExprPool::default_node_limit,
            options.relax_constraints));
    } catch (const symbolic::ExpressionTooLarge& e) {
        fail(std::string(name), std::string("the derived equations are too large: ") + e.what());
    }
    if (options.relax_constraints > 0) {
        checked->constraints.clear(); // relaxed into stiff springs: none left
    }
    timings.symbolic_ms = ms_since(symbolic_start);

    auto codegen_start = Clock::now();
    codegen::CodegenOptions codegen_options;
    codegen_options.opt_level = static_cast<codegen::OptLevel>(std::clamp(options.opt_level, 0, 3));
    codegen_options.fast_math = options.fast_math;
    codegen_options.keep_ir = options.keep_ir;
    codegen_options.use_disk_cache = options.disk_cache;
    std::optional<codegen::CompiledKernels> compiled;
    try {
        compiled.emplace(codegen::CompiledKernels::compile(*system, codegen_options));
    } catch (const std::exception& e) {
        fail(std::string(name), std::string("code generation failed: ") + e.what());
    }
    timings.codegen_ms = ms_since(codegen_start);
    timings.cache = codegen::to_string(compiled->timings().cache);
    timings.total_ms = ms_since(start);

    // The parity proofs add nodes to the expression pool: done here, once, so that the shared
    // compilation is never written to again.
    std::vector<bool> even(checked->vibrations.size());
    for (std::size_t i = 0; i < even.size(); ++i) {
        even[i] =
            symbolic::is_even_in_phase(system->pool(), system->outputs(symbolic::Kernel::force),
                                       static_cast<std::uint32_t>(i));
    }
    const bool even_jointly =
        symbolic::is_even_in_all_phases(system->pool(), system->outputs(symbolic::Kernel::force),
                                        static_cast<std::uint32_t>(checked->vibrations.size()));
    auto state = std::make_unique<CompiledModel::State>(
        std::make_shared<const CompiledModel::State::Compilation>(CompiledModel::State::Compilation{
            std::move(*checked), std::move(*system), std::move(*compiled), std::move(even),
            even_jointly}));
    state->timings = timings;
    state->codegen_options = codegen_options;
    state->source = std::string(name);
    const auto& m = state->checked;
    state->parameters = m.default_parameters();
    state->fixed.assign(m.parameters.size(), false);
    for (const auto& p : m.positions) {
        state->position_names.push_back(p.name);
        state->velocity_names.push_back(p.velocity_name);
    }
    for (const auto& s : m.states) {
        state->state_names.push_back(s.name);
    }
    for (const auto& c : m.constraints) {
        state->constraint_names.push_back(c.name);
        const auto& in =
            diagnostics.file(c.range.file < diagnostics.file_count() ? c.range.file : 0);
        const auto at = in.line_column(c.range.begin);
        state->constraint_locations.push_back(
            fmt::format("{}:{}:{}", in.name(), at.line, at.column));
        // A rendered diagnostic without its first line ("file:line:col: note: ").
        const std::string shown =
            diagnostics.render(source::Diagnostic{source::Severity::note, c.range, ""});
        state->constraint_excerpts.push_back(
            shown.substr(std::min(shown.size(), shown.find('\n') + 1)));
    }
    for (const auto& v : m.vibrations) {
        state->vibration_names.push_back(v.name);
    }
    for (const auto& p : m.parameters) {
        state->parameter_names.push_back(p.name);
    }
    for (const auto& p : m.structural) {
        state->structural.emplace_back(p.name, p.value);
    }
    return CompiledModel(std::move(state));
}

CompiledModel compile_file(const std::string& path, const CompileOptions& options) {
    std::optional<source::SourceFile> file;
    try {
        file = source::SourceFile::read(path);
    } catch (const std::exception& e) {
        fail("mdl", e.what());
    }
    return compile(file->text(), path, options);
}

CompiledModel::CompiledModel(std::unique_ptr<State> state) : state_(std::move(state)) {}
CompiledModel::CompiledModel(CompiledModel&&) noexcept = default;
CompiledModel& CompiledModel::operator=(CompiledModel&&) noexcept = default;
CompiledModel::~CompiledModel() = default;

const std::string& CompiledModel::name() const {
    return state_->checked.name;
}

Sizes CompiledModel::sizes() const {
    const auto& m = state_->checked;
    return {m.positions.size(), m.states.size(), m.constraints.size(), m.vibrations.size(),
            m.parameters.size()};
}

const std::vector<std::string>& CompiledModel::position_names() const {
    return state_->position_names;
}
const std::vector<std::string>& CompiledModel::velocity_names() const {
    return state_->velocity_names;
}
const std::vector<std::string>& CompiledModel::state_names() const {
    return state_->state_names;
}
const std::vector<std::string>& CompiledModel::constraint_names() const {
    return state_->constraint_names;
}
const std::vector<std::string>& CompiledModel::constraint_locations() const {
    return state_->constraint_locations;
}
const std::vector<std::string>& CompiledModel::constraint_excerpts() const {
    return state_->constraint_excerpts;
}
const std::vector<std::string>& CompiledModel::vibration_names() const {
    return state_->vibration_names;
}
const std::vector<std::string>& CompiledModel::parameter_names() const {
    return state_->parameter_names;
}

std::string CompiledModel::unit(std::string_view name) const {
    const check::CheckedModel& m = state_->checked;
    const check::QuantityUnits& u = m.units;
    if (u.parameters.empty() && u.positions.empty() && u.states.empty()) {
        return ""; // not checked for units
    }
    if (name == "time") {
        return "s";
    }
    if (name == "energy") {
        return "J";
    }
    for (const std::string_view column :
         {std::string_view("residual("), std::string_view("lambda(")}) {
        if (name.size() > column.size() && name.substr(0, column.size()) == column &&
            name.back() == ')') {
            // a constraint's residual is in the unit of its sides; its multiplier in J over it
            // (G^T lambda is a generalized force, G = dg/dq)
            const auto inner = name.substr(column.size(), name.size() - column.size() - 1);
            for (std::size_t i = 0; i < m.constraints.size() && i < u.constraints.size(); ++i) {
                if (m.constraints[i].name != inner || u.constraints[i].empty()) {
                    continue;
                }
                std::string why;
                const auto d = check::parse_unit(u.constraints[i], why);
                return column[0] == 'r' || !d ? u.constraints[i]
                                              : check::to_string(check::joule() / *d);
            }
            return "";
        }
    }
    if (name.size() > 5 && name.substr(0, 4) == "der(" && name.back() == ')') {
        std::string inner = unit(name.substr(4, name.size() - 5)), why;
        const auto d = inner.empty() ? std::nullopt : check::parse_unit(inner, why);
        return d ? check::to_string(*d / check::Dimension::of(check::Dimension::s)) : "";
    }
    const auto find = [&](const auto& table, const std::vector<std::string>& units,
                          const auto& name_of) -> std::optional<std::string> {
        for (std::size_t i = 0; i < table.size() && i < units.size(); ++i) {
            if (name_of(table[i]) == name) {
                return units[i];
            }
        }
        return std::nullopt;
    };
    const auto named = [](const auto& x) -> const std::string& {
        return x.name;
    };
    for (auto found :
         {find(m.parameters, u.parameters, named), find(m.positions, u.positions, named),
          find(m.positions, u.velocities,
               [](const check::Position& p) -> const std::string& { return p.velocity_name; }),
          find(m.states, u.states, named), find(m.vibrations, u.vibrations, named)}) {
        if (found) {
            return *found;
        }
    }
    return "";
}

std::span<const double> CompiledModel::parameters() const {
    return state_->parameters;
}

const std::vector<std::pair<std::string, long long>>& CompiledModel::structural_parameters() const {
    return state_->structural;
}

namespace {
std::size_t parameter_index(const CompiledModel::State& s, std::string_view name) {
    for (std::size_t i = 0; i < s.parameter_names.size(); ++i) {
        if (s.parameter_names[i] == name) {
            return i;
        }
    }
    std::string guess = source::closest_name(std::string(name), s.parameter_names);
    throw std::invalid_argument(
        fmt::format("model '{}' has no parameter '{}'{}", s.checked.name, name,
                    guess.empty() ? "" : "; did you mean '" + guess + "'?"));
}
} // namespace

double CompiledModel::parameter(std::string_view name) const {
    return state_->parameters[parameter_index(*state_, name)];
}

namespace {
// The parameters and fixed flags of `s` with `overrides` set and the others recomputed; `s`
// is only read. Throws std::invalid_argument as set_parameter documents.
std::pair<std::vector<double>, std::vector<bool>>
with_overrides(const CompiledModel::State& s, std::span<const ParameterValue> overrides) {
    std::vector<double> values = s.parameters;
    std::vector<bool> fixed = s.fixed;
    for (const auto& [name, value] : overrides) {
        // An Integer parameter keeps the value it was compiled with.
        const std::string& wanted = name; // clang 14 cannot capture a structured binding
        auto structural = std::find_if(s.structural.begin(), s.structural.end(),
                                       [&](const auto& p) { return p.first == wanted; });
        if (structural != s.structural.end()) {
            if (value != static_cast<double>(structural->second)) {
                throw std::invalid_argument(fmt::format(
                    "'{}' is an Integer parameter, fixed when the model is compiled (= {}): "
                    "recompile with the new value (mdl run -p {}={} recompiles)",
                    name, structural->second, name, value));
            }
            continue;
        }
        std::size_t i = parameter_index(s, name);
        if (!std::isfinite(value)) {
            throw std::invalid_argument(
                fmt::format("parameter '{}' must be finite, got {}", name, value));
        }
        values[i] = value;
        fixed[i] = true;
    }
    values = recompute(s.checked, std::move(values), fixed);
    for (std::size_t j = 0; j < values.size(); ++j) {
        if (!std::isfinite(values[j])) {
            std::string set;
            for (const auto& [name, value] : overrides) {
                set += fmt::format("{}'{}' = {}", set.empty() ? "" : ", ", name, value);
            }
            throw std::invalid_argument(
                fmt::format("setting {} makes parameter '{}' non-finite ({})", set,
                            s.parameter_names[j], values[j]));
        }
    }
    return {std::move(values), std::move(fixed)};
}
} // namespace

void CompiledModel::set_parameter(std::string_view name, double value) {
    const ParameterValue overrides[] = {{std::string(name), value}};
    auto [values, fixed] = with_overrides(*state_, overrides);
    state_->parameters = std::move(values);
    state_->fixed = std::move(fixed);
}

std::vector<double>
CompiledModel::parameters_with(std::span<const ParameterValue> overrides) const {
    return with_overrides(*state_, overrides).first;
}

CompiledModel CompiledModel::with_parameters(std::span<const ParameterValue> overrides) const {
    auto [values, fixed] = with_overrides(*state_, overrides);
    auto state = std::make_unique<State>(*state_);
    state->parameters = std::move(values);
    state->fixed = std::move(fixed);
    return CompiledModel(std::move(state));
}

void CompiledModel::reset_parameters() {
    state_->parameters = state_->checked.default_parameters();
    state_->fixed.assign(state_->parameters.size(), false);
}

std::vector<double> CompiledModel::start_positions() const {
    std::vector<double> out;
    for (const auto& p : state_->checked.positions) {
        out.push_back(state_->evaluate(p.start));
    }
    return out;
}
std::vector<double> CompiledModel::start_velocities() const {
    std::vector<double> out;
    for (const auto& p : state_->checked.positions) {
        out.push_back(state_->evaluate(p.velocity_start));
    }
    return out;
}
std::vector<bool> CompiledModel::start_fixed() const {
    std::vector<bool> out;
    for (const auto& p : state_->checked.positions) {
        out.push_back(p.fixed);
    }
    return out;
}
std::vector<double> CompiledModel::start_states() const {
    std::vector<double> out;
    for (const auto& s : state_->checked.states) {
        out.push_back(state_->evaluate(s.start));
    }
    return out;
}

std::vector<double> CompiledModel::phases(double t) const {
    std::vector<double> out(sizes().vibrations);
    if (!out.empty()) {
        mdl_kernel_args a = args(t, nullptr, nullptr);
        kernels().phase(&a, out.data());
    }
    return out;
}
std::vector<double> CompiledModel::phase_rates() const {
    std::vector<double> out(sizes().vibrations);
    if (!out.empty()) {
        mdl_kernel_args a = args(0, nullptr, nullptr);
        kernels().phase_rate(&a, out.data());
    }
    return out;
}

std::vector<FastScale> CompiledModel::fast_scales() const {
    std::vector<FastScale> out;
    for (const auto& f : check::fast_scales(state_->checked, state_->parameters)) {
        out.push_back({f.source, f.omega});
    }
    return out;
}

std::vector<EventInfo> CompiledModel::events() const {
    std::vector<EventInfo> out;
    std::size_t next_reinit = 0;
    for (const check::Event& e : state_->checked.events) {
        EventInfo info;
        info.name = e.name;
        info.clause = e.clause;
        info.first_reinit = next_reinit;
        for (const check::Reinit& r : e.reinits) {
            const auto target =
                r.target == check::Expr::Kind::position ? EventInfo::Target::position
                : r.target == check::Expr::Kind::state  ? EventInfo::Target::state
                                                        : EventInfo::Target::velocity;
            info.reinits.push_back({target, r.index, r.target_name});
            ++next_reinit;
        }
        info.terminates = e.terminate.has_value();
        info.terminate_message = e.terminate.value_or("");
        out.push_back(std::move(info));
    }
    return out;
}

bool CompiledModel::force_even_in_phase(std::size_t vibration) const {
    const auto& even = state_->compilation->force_even_in_phase;
    return vibration >= even.size() || even[vibration]; // no such phase: nothing depends on it
}

bool CompiledModel::force_even_in_all_phases() const {
    return state_->compilation->force_even_in_all_phases;
}

mdl_kernel_args CompiledModel::args(double t, const double* q, const double* v, const double* x,
                                    const double* theta) const {
    return mdl_kernel_args{t, q, v, x, theta, state_->parameters.data()};
}

const mdl_kernels& CompiledModel::kernels() const {
    return state_->compiled.kernels();
}

Kernel CompiledModel::mass() const {
    return {kernels().mass, sizes().positions};
}
Kernel CompiledModel::mass_matrix() const {
    return {kernels().mass_matrix, sizes().positions * sizes().positions};
}
bool CompiledModel::mass_constant() const {
    return kernels().mass_depends_on_positions == 0;
}
bool CompiledModel::mass_diagonal() const {
    return kernels().mass_coupled == 0;
}
Kernel CompiledModel::force() const {
    return {kernels().force, sizes().positions};
}
Kernel CompiledModel::rates() const {
    return {kernels().rates, sizes().states};
}
Kernel CompiledModel::potential() const {
    return {kernels().potential, kernels().potential ? 1u : 0u};
}
Kernel CompiledModel::constraint() const {
    return {kernels().constraint, sizes().constraints};
}
Kernel CompiledModel::constraint_jacobian() const {
    return {kernels().constraint_jacobian, sizes().constraints * sizes().positions};
}
Kernel CompiledModel::curvature() const {
    return {kernels().curvature, sizes().constraints};
}
Kernel CompiledModel::force_dq() const {
    return {kernels().force_dq, sizes().positions * sizes().positions};
}
Kernel CompiledModel::force_dv() const {
    return {kernels().force_dv, sizes().positions * sizes().positions};
}

bool CompiledModel::has_setting(std::string_view key) const {
    return state_->checked.experiment.count(std::string(key)) > 0;
}
double CompiledModel::number_setting(std::string_view key, double fallback) const {
    auto it = state_->checked.experiment.find(std::string(key));
    if (it == state_->checked.experiment.end() || it->second.is_text) {
        return fallback;
    }
    return state_->evaluate(it->second.value);
}
std::string CompiledModel::text_setting(std::string_view key, const std::string& fallback) const {
    auto it = state_->checked.experiment.find(std::string(key));
    if (it == state_->checked.experiment.end() || !it->second.is_text) {
        return fallback;
    }
    return it->second.text;
}

namespace {

std::string object_prefix(const CompiledModel& model, const ObjectOptions& options) {
    if (!options.prefix.empty()) {
        return options.prefix;
    }
    std::string prefix;
    for (char c : model.name()) {
        prefix += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return prefix;
}

} // namespace

std::string CompiledModel::object_code(const ObjectOptions& options) const {
    codegen::ObjectTarget target;
    target.triple = options.triple;
    target.cpu = options.cpu;
    codegen::CodegenOptions codegen_options = state_->codegen_options;
    codegen_options.keep_ir = false;
    try {
        return codegen::emit_object(state_->system, object_prefix(*this, options), target,
                                    codegen_options)
            .bytes;
    } catch (const codegen::CodegenError& e) {
        throw std::invalid_argument(e.what());
    }
}

std::string CompiledModel::c_header(const ObjectOptions& options) const {
    const std::string prefix = object_prefix(*this, options);
    if (!codegen::is_c_identifier(prefix)) {
        throw std::invalid_argument(fmt::format("'{}' cannot prefix C symbols: use letters, "
                                                "digits and _, not starting with a digit",
                                                prefix));
    }
    api::HeaderModel m;
    m.model = name();
    m.source = state_->source;
    m.prefix = prefix;
    const codegen::ObjectTarget target =
        codegen::resolve_target(codegen::ObjectTarget{options.triple, options.cpu});
    m.triple = target.triple;
    m.cpu = target.cpu;
    for (symbolic::Kernel k : symbolic::all_kernels) {
        if (state_->system.has_kernel(k)) {
            m.kernels.emplace_back(symbolic::kernel_name(k));
        }
    }
    for (symbolic::Kernel k : symbolic::all_kernels) { // the values of the sparse ones
        if (state_->system.has_kernel(k) && symbolic::is_matrix_kernel(k)) {
            m.kernels.push_back(std::string(symbolic::kernel_name(k)) + "_values");
        }
    }
    m.positions = state_->position_names;
    m.velocities = state_->velocity_names;
    m.states = state_->state_names;
    m.constraints = state_->constraint_names;
    m.vibrations = state_->vibration_names;
    m.parameters = state_->parameter_names;
    m.parameter_values = state_->parameters;
    m.start_positions = start_positions();
    m.start_velocities = start_velocities();
    m.start_states = start_states();
    return api::c_header(m);
}

std::string CompiledModel::symbolic_text() const {
    return symbolic::print_system(state_->system);
}
const std::string& CompiledModel::llvm_ir() const {
    return state_->compiled.ir();
}
const CompiledModel::Timings& CompiledModel::timings() const {
    return state_->timings;
}

} // namespace mdl
