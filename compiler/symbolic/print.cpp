#include "symbolic/print.hpp"

#include "symbolic/simplify.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>

namespace mdl::symbolic {

namespace {

// Binding strength of what an expression prints as; a context asks for a minimum and gets
// parentheses otherwise.
// Modelica's order: if-expressions bind weakest, then or, and, not, relations, sums, ...
enum Precedence : int {
    top = 0, // if c then a else b
    disjunction,
    conjunction,
    negation,
    relation,
    sum,
    product,
    unary,
    power,
    atom
};

// How a select prints: and, or and not where the condition and the other branch are 0/1
// values (the checker's forms of them), else if-then-else.
enum class SelectForm { conditional, conjunction, disjunction, negation };

std::string indexed(std::string_view stem, std::uint32_t i) {
    return std::string(stem) + "[" + std::to_string(i) + "]";
}

const std::string* entry(const std::vector<std::string>& list, std::uint32_t i) {
    return i < list.size() && !list[i].empty() ? &list[i] : nullptr;
}

class Printer {
public:
    Printer(const ExprPool& pool, const VariableNames& names, const PrintOptions& options,
            std::span<const ExprId> roots)
        : pool_(pool), names_(names) {
        analyse(roots, options);
    }

    // "#k = ..." for every named node, in definition order.
    void write_definitions(std::string& out) {
        for (std::size_t i = 0; i < named_order_.size(); ++i) {
            const ExprId id = named_order_[i];
            out += '#';
            out += std::to_string(i + 1);
            out += " = ";
            write_node(id, false, out);
            out += '\n';
        }
    }

    void write(ExprId id, std::string& out) { write_at(id, top, false, out); }

private:
    void analyse(std::span<const ExprId> roots, const PrintOptions& options) {
        const std::vector<ExprId> order = reachable_in_order(pool_, roots);
        if (order.empty()) {
            return;
        }
        const std::size_t n = order.back().index + 1;
        std::vector<std::uint32_t> uses(n, 0);
        for (ExprId r : roots) {
            ++uses[r.index];
        }
        for (ExprId id : order) {
            for (ExprId c : pool_.children(id)) {
                ++uses[c.index];
            }
        }
        constexpr std::uint64_t saturated = std::uint64_t{1} << 40;
        std::vector<std::uint64_t> size(n, 0);
        std::vector<std::uint64_t> depth(n, 0);
        name_of_.assign(n, 0);
        boolean_.assign(n, 0);
        dynamic_.assign(n, 0);
        for (ExprId id : order) {
            boolean_[id.index] = is_boolean_node(id) ? 1 : 0;
            if (pool_.op(id) == Op::variable) {
                dynamic_[id.index] = pool_.variable_of(id).kind != VarKind::parameter ? 1 : 0;
            }
            for (ExprId c : pool_.children(id)) {
                dynamic_[id.index] |= dynamic_[c.index];
            }
            std::uint64_t s = 1;
            std::uint64_t d = 0;
            for (ExprId c : pool_.children(id)) {
                const bool cut = name_of_[c.index] != 0;
                s = std::min(saturated, s + (cut ? 1 : size[c.index]));
                d = std::max(d, cut ? 0 : depth[c.index]);
            }
            size[id.index] = s;
            depth[id.index] = d + 1;
            const bool leaf = pool_.children(id).empty();
            if (!leaf && ((uses[id.index] >= 2 && s > options.inline_size) ||
                          depth[id.index] > options.max_depth)) {
                named_order_.push_back(id);
                name_of_[id.index] = static_cast<std::uint32_t>(named_order_.size());
                size[id.index] = 1;
                depth[id.index] = 0;
            }
        }
    }

    bool is_named(ExprId id) const { return id.index < name_of_.size() && name_of_[id.index]; }

    // 0 or 1 wherever defined, from its children's entries (analyse fills them in order).
    bool is_boolean_node(ExprId id) const {
        switch (pool_.op(id)) {
        case Op::constant:
            return pool_.is_constant(id, 0.0) || pool_.is_constant(id, 1.0);
        case Op::compare:
            return true;
        case Op::select:
            return boolean_[pool_.children(id)[1].index] != 0 &&
                   boolean_[pool_.children(id)[2].index] != 0;
        default:
            return false;
        }
    }

    bool is_boolean(ExprId id) const {
        return id.index < boolean_.size() && boolean_[id.index] != 0;
    }

    SelectForm select_form(ExprId id) const {
        const auto kids = pool_.children(id);
        if (!is_boolean(kids[0]) || !is_boolean(id)) {
            return SelectForm::conditional;
        }
        if (pool_.is_constant(kids[2], 0.0)) {
            return SelectForm::conjunction; // select(a, b, 0)
        }
        if (pool_.is_constant(kids[1], 1.0)) {
            return SelectForm::disjunction; // select(a, 1, b)
        }
        if (pool_.is_constant(kids[1], 0.0) && pool_.is_constant(kids[2], 1.0)) {
            return SelectForm::negation; // select(a, 0, 1)
        }
        return SelectForm::conditional;
    }

    // Negative constant exponent, printed in a denominator or as 1/x^k.
    bool is_reciprocal(ExprId id) const {
        if (pool_.op(id) != Op::pow) {
            return false;
        }
        const ExprId e = pool_.children(id)[1];
        return pool_.is_constant(e) && pool_.constant_value(e) < 0.0;
    }

    int precedence(ExprId id, bool negate) const {
        if (is_named(id) && !negate) {
            return atom;
        }
        const Node& n = pool_.node(id);
        switch (n.op) {
        case Op::constant:
            return (n.value < 0.0) != negate ? unary : atom;
        case Op::variable:
        case Op::call:
            return negate ? unary : atom;
        case Op::add:
            return negate ? unary : sum;
        case Op::mul: {
            const ExprId first = pool_.children(id)[0];
            const bool negative_coefficient =
                pool_.is_constant(first) && pool_.constant_value(first) < 0.0;
            return negative_coefficient != negate ? unary : product;
        }
        case Op::pow:
            return negate ? unary : is_reciprocal(id) ? product : power;
        case Op::compare:
            return negate ? unary : relation;
        case Op::select:
            if (negate) {
                return unary;
            }
            switch (select_form(id)) {
            case SelectForm::conjunction:
                return conjunction;
            case SelectForm::disjunction:
                return disjunction;
            case SelectForm::negation:
                return negation;
            case SelectForm::conditional:
                return top;
            }
            return top;
        }
        return atom;
    }

    void write_at(ExprId id, int min_precedence, bool negate, std::string& out) {
        const bool parenthesize = precedence(id, negate) < min_precedence;
        if (parenthesize) {
            out += '(';
        }
        if (is_named(id) && !negate) {
            out += '#';
            out += std::to_string(name_of_[id.index]);
        } else {
            write_node(id, negate, out);
        }
        if (parenthesize) {
            out += ')';
        }
    }

    // The node's own text (never just its #name): used for definitions and inline uses.
    void write_node(ExprId id, bool negate, std::string& out) {
        const Node& n = pool_.node(id);
        switch (n.op) {
        case Op::constant:
            out += format_number(negate ? -n.value : n.value);
            return;
        case Op::mul:
            write_product(id, negate, out);
            return;
        default:
            break;
        }
        if (negate) {
            out += '-';
            write_at(id, unary + 1, false, out);
            return;
        }
        switch (n.op) {
        case Op::variable:
            out += names_.name(pool_.variable_of(id));
            return;
        case Op::add:
            write_sum(id, out);
            return;
        case Op::pow:
            write_power(id, out);
            return;
        case Op::call: {
            out += function_name(static_cast<Func>(n.tag));
            out += '(';
            bool first = true;
            for (ExprId c : pool_.children(id)) {
                if (!first) {
                    out += ", ";
                }
                first = false;
                write_at(c, top, false, out);
            }
            out += ')';
            return;
        }
        case Op::compare:
            write_comparison(id, out);
            return;
        case Op::select:
            write_select(id, out);
            return;
        default:
            return;
        }
    }

    // "a < b", except that what does not change in a run (constants, parameters) goes to the
    // right, as one writes it: 0 < x prints as "x > 0", l < q as "q > l".
    void write_comparison(ExprId id, std::string& out) {
        ExprId a = pool_.children(id)[0];
        ExprId b = pool_.children(id)[1];
        Comparison c = pool_.comparison_of(id);
        const auto dynamic = [&](ExprId e) {
            return e.index < dynamic_.size() && dynamic_[e.index] != 0;
        };
        if ((!dynamic(a) && dynamic(b)) ||
            (!dynamic(a) && !dynamic(b) && pool_.is_constant(a) && !pool_.is_constant(b))) {
            std::swap(a, b);
            c = c == Comparison::lt   ? Comparison::gt
                : c == Comparison::le ? Comparison::ge
                : c == Comparison::gt ? Comparison::lt
                : c == Comparison::ge ? Comparison::le
                                      : c;
        }
        write_at(a, sum, false, out);
        out += ' ';
        out += check::to_string(c);
        out += ' ';
        write_at(b, sum, false, out);
    }

    void write_select(ExprId id, std::string& out) {
        const auto kids = pool_.children(id);
        const ExprId c = kids[0], a = kids[1], b = kids[2];
        switch (select_form(id)) {
        case SelectForm::conjunction:
            write_at(c, conjunction, false, out);
            out += " and ";
            write_at(a, conjunction, false, out);
            return;
        case SelectForm::disjunction:
            write_at(c, disjunction, false, out);
            out += " or ";
            write_at(b, disjunction, false, out);
            return;
        case SelectForm::negation:
            out += "not ";
            write_at(c, negation, false, out);
            return;
        case SelectForm::conditional:
            break;
        }
        out += "if ";
        if (is_boolean(c)) {
            write_at(c, disjunction, false, out);
        } else {
            write_at(c, sum, false, out); // a number as a condition: true where != 0
            out += " <> 0";
        }
        out += " then ";
        write_at(a, disjunction, false, out);
        out += " else ";
        write_at(b, top, false, out);
    }

    // Terms in canonical order, those with a plus sign first, then the subtracted ones, then
    // the constant: "x1^2 + y1^2 - l1^2", "a*x - b*y + 1".
    void write_sum(ExprId id, std::string& out) {
        std::optional<double> constant;
        std::vector<ExprId> added;
        std::vector<ExprId> subtracted;
        for (ExprId t : pool_.children(id)) {
            if (pool_.is_constant(t)) {
                constant = pool_.constant_value(t);
            } else if (!is_named(t) && is_negative_form(pool_, t)) {
                subtracted.push_back(t);
            } else {
                added.push_back(t);
            }
        }
        bool first = true;
        for (ExprId t : added) {
            out += first ? "" : " + ";
            write_at(t, first ? sum : product, false, out);
            first = false;
        }
        for (ExprId t : subtracted) {
            if (first) {
                write_at(t, sum, false, out); // "-a*x - b*y"
                first = false;
            } else {
                out += " - ";
                write_at(t, product, true, out);
            }
        }
        if (constant) {
            out += *constant < 0.0 ? " - " : " + ";
            out += format_number(std::fabs(*constant));
        }
    }

    // c * a * b * x^-1 * y^-2 prints as c*a*b/(x*y^2); a negative c as a leading minus.
    void write_product(ExprId id, bool negate, std::string& out) {
        double coefficient = 1.0;
        std::vector<ExprId> numerator;
        std::vector<ExprId> denominator;
        for (ExprId f : pool_.children(id)) {
            if (pool_.is_constant(f)) {
                coefficient = pool_.constant_value(f);
            } else if (is_reciprocal(f) && !is_named(f)) {
                denominator.push_back(f);
            } else {
                numerator.push_back(f);
            }
        }
        if (negate) {
            coefficient = -coefficient;
        }
        if (coefficient < 0.0) {
            out += '-';
            coefficient = -coefficient;
        }
        bool first = true;
        if (coefficient != 1.0 || numerator.empty()) {
            out += format_number(coefficient);
            first = false;
        }
        for (ExprId f : numerator) {
            if (!first) {
                out += '*';
            }
            first = false;
            write_at(f, product, false, out);
        }
        if (denominator.empty()) {
            return;
        }
        out += '/';
        if (denominator.size() > 1) {
            out += '(';
        }
        for (std::size_t i = 0; i < denominator.size(); ++i) {
            if (i > 0) {
                out += '*';
            }
            write_reciprocal_base(denominator[i], denominator.size() > 1 ? product : unary, out);
        }
        if (denominator.size() > 1) {
            out += ')';
        }
    }

    // For b^-k: b^k, parenthesized as a lone denominator needs ("/x^2", "/(x + y)").
    void write_reciprocal_base(ExprId reciprocal, int min_precedence, std::string& out) {
        const ExprId base = pool_.children(reciprocal)[0];
        const double k = -pool_.constant_value(pool_.children(reciprocal)[1]);
        if (k == 1.0) {
            write_at(base, min_precedence, false, out);
            return;
        }
        write_at(base, atom, false, out);
        out += '^';
        out += format_number(k);
    }

    void write_power(ExprId id, std::string& out) {
        if (is_reciprocal(id)) {
            out += "1/";
            write_reciprocal_base(id, unary, out);
            return;
        }
        const ExprId base = pool_.children(id)[0];
        const ExprId exponent = pool_.children(id)[1];
        write_at(base, atom, false, out);
        out += '^';
        write_at(exponent, atom, false, out);
    }

    const ExprPool& pool_;
    const VariableNames& names_;
    std::vector<std::uint32_t> name_of_; // 0: printed inline; k: printed as #k
    std::vector<std::uint8_t> boolean_;  // by node id: 1 where the value is 0 or 1
    std::vector<std::uint8_t> dynamic_;  // by node id: 1 where it depends on more than parameters
    std::vector<ExprId> named_order_;
};

} // namespace

std::string VariableNames::name(Variable v) const {
    switch (v.kind) {
    case VarKind::time:
        return time;
    case VarKind::parameter:
        if (const auto* s = entry(parameters, v.index)) {
            return *s;
        }
        return indexed("p", v.index);
    case VarKind::position:
        if (const auto* s = entry(positions, v.index)) {
            return *s;
        }
        return indexed("q", v.index);
    case VarKind::velocity:
        if (const auto* s = entry(velocities, v.index)) {
            return *s;
        }
        return "der(" + name(Variable{VarKind::position, v.index}) + ")";
    case VarKind::state:
        if (const auto* s = entry(states, v.index)) {
            return *s;
        }
        return indexed("x", v.index);
    case VarKind::phase:
        if (const auto* s = entry(phases, v.index)) {
            return *s;
        }
        return indexed("theta", v.index);
    }
    return "?";
}

std::string format_number(double value) {
    if (std::isnan(value)) {
        return "nan";
    }
    if (std::isinf(value)) {
        return value > 0.0 ? "inf" : "-inf";
    }
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

std::string print_listing(const ExprPool& pool, std::span<const Labelled> entries,
                          const VariableNames& names, const PrintOptions& options) {
    std::vector<ExprId> roots;
    roots.reserve(entries.size());
    for (const Labelled& e : entries) {
        roots.push_back(e.expr);
    }
    Printer printer(pool, names, options, roots);
    std::string out;
    printer.write_definitions(out);
    for (const Labelled& e : entries) {
        out += e.label;
        out += " = ";
        printer.write(e.expr, out);
        out += '\n';
    }
    return out;
}

std::string to_string(const ExprPool& pool, ExprId e, const VariableNames& names,
                      const PrintOptions& options) {
    const ExprId roots[] = {e};
    Printer printer(pool, names, options, roots);
    std::string out;
    printer.write_definitions(out);
    printer.write(e, out);
    return out;
}

} // namespace mdl::symbolic
