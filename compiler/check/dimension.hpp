// Physical dimensions as vectors of rational exponents over the SI base units kg, m, s, A, K,
// mol, cd, plus rad; the unit strings of Modelica ("N.m", "rad/s2", "kg.m2", "m/s", "1") parsed
// into them; and the readable form messages print ("N/m", "kg.m2", "rad/s").
//
// rad is dimensionless, as in SI and Modelica (sin takes an angle, l*phi is a length), but it
// is tracked: "rad/s" stays "rad/s" in messages and summaries. Comparisons ignore it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mdl::check {

// p/q in lowest terms, q > 0.
struct Rational {
    std::int64_t num = 0;
    std::int64_t den = 1;

    Rational() = default;
    Rational(std::int64_t n, std::int64_t d = 1);

    bool zero() const { return num == 0; }
    friend Rational operator+(Rational a, Rational b);
    friend Rational operator-(Rational a, Rational b);
    friend Rational operator*(Rational a, Rational b);
    friend Rational operator/(Rational a, Rational b);
    friend Rational operator-(Rational a) { return {-a.num, a.den}; }
    friend bool operator==(Rational a, Rational b) { return a.num == b.num && a.den == b.den; }
    friend bool operator!=(Rational a, Rational b) { return !(a == b); }
};

// A double that is a fraction with a small denominator (2.5, 1/3, -2), or nullopt.
std::optional<Rational> to_rational(double x);

struct Dimension {
    enum Base { kg, m, s, A, K, mol, cd, rad, count };
    std::array<Rational, count> exponent{};

    static Dimension of(Base b, Rational power = 1);
    static Dimension one() { return {}; }

    // Equal up to rad (an angle is dimensionless).
    bool same(const Dimension& o) const;
    bool dimensionless() const { return same(one()); }
    Dimension operator*(const Dimension& o) const;
    Dimension operator/(const Dimension& o) const;
    Dimension power(Rational p) const;
};

// Units mdl knows by name.
inline Dimension newton() {
    return Dimension::of(Dimension::kg) * Dimension::of(Dimension::m) *
           Dimension::of(Dimension::s, -2);
}
inline Dimension joule() {
    return newton() * Dimension::of(Dimension::m);
}

// A Modelica unit string: factors joined by '.', each a symbol with an optional integer
// exponent ("m2", "s-2"), one optional '/' and a denominator (a factor or parenthesized),
// "1" for a dimensionless quantity. Symbols: the SI base units kg m s A K mol cd, rad and sr,
// and N J W Pa Hz. Only coherent SI units: "mm", "g", "deg", "min" are refused, since mdl
// does not convert values. nullopt with `error` set when the string is not one.
std::optional<Dimension> parse_unit(std::string_view text, std::string& error);

// The readable form: "N", "N/m", "J", "kg.m2", "m/s2", "rad/s", "1/s", "1". rad appears only
// in angles and their rates (rad, rad/s, rad/s2); elsewhere it is left out.
std::string to_string(const Dimension& d);

} // namespace mdl::check
