// Inference of units by unification: each quantity whose unit is not declared is a variable,
// each rule of dimensional analysis (the terms of a sum agree, an equation's sides agree, a
// potential is an energy) an equation between products of powers of variables and known units.
// Equations are solved as they come: one with a single unknown determines it, one with none is
// checked, one with more waits until the others are known. An inconsistency is a located error
// naming both sides' units, with a note where an inferred unit came from.
#pragma once

#include "check/dimension.hpp"
#include "source/diagnostics.hpp"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace mdl::check {

// A unit: known * prod(variable^power). `literal` marks an expression of numbers only, whose
// unit is whatever its place in a sum, relation or branch needs; `invalid` an expression whose
// error was reported (it then agrees with anything, so one mistake gives one error).
struct UnitForm {
    Dimension known;
    std::vector<std::pair<std::uint32_t, Rational>> terms; // by variable, powers non-zero
    bool literal = false;
    bool invalid = false;

    static UnitForm of(Dimension d) {
        UnitForm f;
        f.known = d;
        return f;
    }
    static UnitForm variable(std::uint32_t v) {
        UnitForm f;
        f.terms.push_back({v, Rational(1)});
        return f;
    }
    static UnitForm number() {
        UnitForm f;
        f.literal = true;
        return f;
    }
    static UnitForm error() {
        UnitForm f;
        f.invalid = true;
        return f;
    }
    bool free() const { return literal || invalid; }
};

UnitForm product(const UnitForm& a, const UnitForm& b, Rational power_of_b = 1);
UnitForm power(const UnitForm& a, Rational p);

class UnitSolver {
public:
    explicit UnitSolver(source::Diagnostics& d) : d_(d) {}

    // A quantity of the model: declared (its unit fixed) or to be inferred.
    std::uint32_t add_variable(std::string name, std::optional<Dimension> declared);
    const std::optional<Dimension>& value(std::uint32_t v) const { return vars_[v].value; }
    bool declared(std::uint32_t v) const { return vars_[v].declared; }
    std::size_t variable_count() const { return vars_.size(); }

    // `lhs` and `rhs` must have the same unit. On an inconsistency: an error at `at`, the
    // message with {0} replaced by lhs's unit and {1} by rhs's ("the two sides of '+' have
    // different units: {0} and {1}"). False when an error was reported.
    bool equal(const UnitForm& lhs, const UnitForm& rhs, source::Range at, std::string message);

    // The form with every variable known so far replaced by its unit.
    UnitForm resolved(const UnitForm& f) const;
    // "N/m", or with unknowns "m.(unit of 'k')".
    std::string describe(const UnitForm& f) const;

private:
    struct Variable {
        std::string name;
        std::optional<Dimension> value;
        bool declared = false;
        std::optional<source::Range> inferred_at;
    };
    struct Equation {
        UnitForm lhs, rhs;
        source::Range at;
        std::string message;
        bool done = false;
    };

    // Solves or checks equation i; queues the variables it determines.
    void process(std::size_t i);
    void report(const Equation& e);
    void solve(std::uint32_t v, Dimension value, source::Range at);

    source::Diagnostics& d_;
    std::vector<Variable> vars_;
    std::vector<Equation> equations_;
    std::vector<std::vector<std::size_t>> waiting_; // by variable: equations that wait on it
    std::vector<std::uint32_t> queue_;
    std::set<std::pair<std::uint32_t, std::uint32_t>> reported_; // (file, offset)
};

} // namespace mdl::check
