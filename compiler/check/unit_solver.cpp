#include "check/unit_solver.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace mdl::check {

UnitForm product(const UnitForm& a, const UnitForm& b, Rational power_of_b) {
    if (a.invalid || b.invalid) {
        return UnitForm::error();
    }
    UnitForm out;
    out.literal = a.literal && b.literal;
    out.known = a.known * b.known.power(power_of_b);
    out.terms = a.terms;
    for (const auto& term : b.terms) {
        const auto& v = term.first;  // not a structured binding: clang 14 (the fuzz preset)
        const auto& p = term.second; // cannot capture those in the lambda below
        auto it = std::find_if(out.terms.begin(), out.terms.end(),
                               [&](const auto& t) { return t.first == v; });
        if (it == out.terms.end()) {
            out.terms.push_back({v, p * power_of_b});
        } else {
            it->second = it->second + p * power_of_b;
        }
    }
    out.terms.erase(std::remove_if(out.terms.begin(), out.terms.end(),
                                   [](const auto& t) { return t.second.zero(); }),
                    out.terms.end());
    return out;
}

UnitForm power(const UnitForm& a, Rational p) {
    if (a.invalid) {
        return a;
    }
    UnitForm out;
    out.literal = a.literal;
    out.known = a.known.power(p);
    for (const auto& [v, q] : a.terms) {
        if (!(q * p).zero()) {
            out.terms.push_back({v, q * p});
        }
    }
    return out;
}

std::uint32_t UnitSolver::add_variable(std::string name, std::optional<Dimension> declared) {
    Variable v;
    v.name = std::move(name);
    v.declared = declared.has_value();
    v.value = declared;
    vars_.push_back(std::move(v));
    waiting_.emplace_back();
    return static_cast<std::uint32_t>(vars_.size() - 1);
}

UnitForm UnitSolver::resolved(const UnitForm& f) const {
    if (f.free()) {
        return f;
    }
    UnitForm out = UnitForm::of(f.known);
    for (const auto& [v, p] : f.terms) {
        if (vars_[v].value) {
            out.known = out.known * vars_[v].value->power(p);
        } else {
            out.terms.push_back({v, p});
        }
    }
    return out;
}

std::string UnitSolver::describe(const UnitForm& f) const {
    UnitForm r = resolved(f);
    std::string s = r.terms.empty() || !r.known.same(Dimension::one()) ? to_string(r.known) : "";
    for (const auto& [v, p] : r.terms) {
        std::string power = p == Rational(1) ? ""
                            : p.den == 1     ? fmt::format("^{}", p.num)
                                             : fmt::format("^({}/{})", p.num, p.den);
        s += fmt::format("{}(unit of '{}'){}", s.empty() ? "" : ".", vars_[v].name, power);
    }
    return s;
}

bool UnitSolver::equal(const UnitForm& lhs, const UnitForm& rhs, source::Range at,
                       std::string message) {
    if (lhs.free() || rhs.free()) {
        return true;
    }
    equations_.push_back({lhs, rhs, at, std::move(message), false});
    std::size_t errors = d_.error_count();
    process(equations_.size() - 1);
    while (!queue_.empty()) {
        std::uint32_t v = queue_.back();
        queue_.pop_back();
        std::vector<std::size_t> waiting = std::move(waiting_[v]);
        waiting_[v].clear();
        for (std::size_t i : waiting) {
            process(i);
        }
    }
    return d_.error_count() == errors;
}

void UnitSolver::process(std::size_t i) {
    Equation& e = equations_[i];
    if (e.done) {
        return;
    }
    UnitForm difference = resolved(product(e.lhs, e.rhs, -1));
    if (difference.terms.empty()) {
        e.done = true;
        if (!difference.known.same(Dimension::one())) {
            report(e);
        }
        return;
    }
    if (difference.terms.size() == 1) {
        e.done = true;
        // known * v^p = 1: v = known^(-1/p)
        const auto [v, p] = difference.terms[0];
        solve(v, difference.known.power(Rational(-1) / p), e.at);
        return;
    }
    for (const auto& [v, p] : difference.terms) {
        waiting_[v].push_back(i);
    }
}

void UnitSolver::solve(std::uint32_t v, Dimension value, source::Range at) {
    vars_[v].value = value;
    vars_[v].inferred_at = at;
    queue_.push_back(v);
}

void UnitSolver::report(const Equation& e) {
    if (!reported_.insert({e.at.file, e.at.begin}).second) {
        return;
    }
    d_.error(e.at, fmt::format(fmt::runtime(e.message), describe(e.lhs), describe(e.rhs)));
    int notes = 0;
    for (const UnitForm* side : {&e.lhs, &e.rhs}) {
        for (const auto& [v, p] : side->terms) {
            const Variable& var = vars_[v];
            if (var.declared || !var.inferred_at || notes == 2) {
                continue;
            }
            d_.note(*var.inferred_at, fmt::format("the unit of '{}', {}, is inferred here",
                                                  var.name, to_string(*var.value)));
            ++notes;
        }
    }
}

} // namespace mdl::check
