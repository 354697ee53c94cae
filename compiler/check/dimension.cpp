#include "check/dimension.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <vector>

namespace mdl::check {

namespace {

__extension__ typedef __int128 Wide; // no overflow in products of 64-bit exponents

Wide gcd(Wide a, Wide b) {
    a = a < 0 ? -a : a;
    while (b != 0) {
        Wide t = a % b;
        a = b;
        b = t < 0 ? -t : t;
    }
    return a;
}

// n/d in lowest terms, computed wide; exponents beyond 10^15 (only absurd towers of powers
// reach them) are clamped, so no arithmetic overflows.
Rational reduced(Wide n, Wide d) {
    if (d == 0) {
        d = 1;
    }
    if (d < 0) {
        n = -n;
        d = -d;
    }
    const Wide g = gcd(n, d);
    if (g > 1) {
        n /= g;
        d /= g;
    }
    constexpr Wide limit = 1'000'000'000'000'000;
    Rational r;
    r.num = static_cast<std::int64_t>(n > limit ? limit : n < -limit ? -limit : n);
    r.den = static_cast<std::int64_t>(d > limit ? limit : d);
    return r;
}

} // namespace

Rational::Rational(std::int64_t n, std::int64_t d) {
    *this = reduced(n, d);
}

Rational operator+(Rational a, Rational b) {
    return reduced(Wide(a.num) * b.den + Wide(b.num) * a.den, Wide(a.den) * b.den);
}
Rational operator-(Rational a, Rational b) {
    return a + (-b);
}
Rational operator*(Rational a, Rational b) {
    return reduced(Wide(a.num) * b.num, Wide(a.den) * b.den);
}
Rational operator/(Rational a, Rational b) {
    return reduced(Wide(a.num) * b.den, Wide(a.den) * b.num);
}

std::optional<Rational> to_rational(double x) {
    if (!std::isfinite(x) || std::fabs(x) > 1e6) {
        return std::nullopt;
    }
    for (std::int64_t den = 1; den <= 12; ++den) {
        double n = x * static_cast<double>(den);
        if (std::fabs(n - std::round(n)) < 1e-9) {
            return Rational(static_cast<std::int64_t>(std::llround(n)), den);
        }
    }
    return std::nullopt;
}

Dimension Dimension::of(Base b, Rational power) {
    Dimension d;
    d.exponent[b] = power;
    return d;
}

bool Dimension::same(const Dimension& o) const {
    for (std::size_t i = 0; i < rad; ++i) {
        if (exponent[i] != o.exponent[i]) {
            return false;
        }
    }
    return true;
}

Dimension Dimension::operator*(const Dimension& o) const {
    Dimension d;
    for (std::size_t i = 0; i < count; ++i) {
        d.exponent[i] = exponent[i] + o.exponent[i];
    }
    return d;
}

Dimension Dimension::operator/(const Dimension& o) const {
    return *this * o.power(-1);
}

Dimension Dimension::power(Rational p) const {
    Dimension d;
    for (std::size_t i = 0; i < count; ++i) {
        d.exponent[i] = exponent[i] * p;
    }
    return d;
}

namespace {

const char* const base_symbols[Dimension::count] = {"kg", "m", "s", "A", "K", "mol", "cd", "rad"};

struct Named {
    const char* symbol;
    Dimension dimension;
};

std::vector<Named> named_units() {
    using D = Dimension;
    std::vector<Named> out;
    for (std::size_t i = 0; i < D::count; ++i) {
        out.push_back({base_symbols[i], D::of(static_cast<D::Base>(i))});
    }
    out.push_back({"sr", D::of(D::rad, 2)});
    out.push_back({"N", newton()});
    out.push_back({"J", joule()});
    out.push_back({"W", joule() * D::of(D::s, -1)});
    out.push_back({"Pa", newton() * D::of(D::m, -2)});
    out.push_back({"Hz", D::of(D::s, -1)});
    return out;
}

class UnitParser {
public:
    UnitParser(std::string_view text, std::string& error) : t_(text), error_(error) {}

    std::optional<Dimension> parse() {
        if (t_.empty()) {
            return fail("an empty unit; write \"1\" for a dimensionless quantity");
        }
        auto d = expression();
        if (d && i_ != t_.size()) {
            return fail(fmt::format("unexpected '{}'", t_[i_]));
        }
        return d;
    }

private:
    std::optional<Dimension> fail(const std::string& why) {
        if (error_.empty()) {
            error_ = why;
        }
        return std::nullopt;
    }

    bool eat(char c) {
        if (i_ < t_.size() && t_[i_] == c) {
            ++i_;
            return true;
        }
        return false;
    }

    std::optional<Dimension> expression() {
        std::optional<Dimension> top;
        if (eat('(')) {
            top = expression();
            if (top && !eat(')')) {
                return fail("expected ')'");
            }
        } else if (i_ < t_.size() && t_[i_] == '1') {
            ++i_;
            top = Dimension::one();
        } else {
            top = factor();
            while (top && eat('.')) {
                auto f = factor();
                if (!f) {
                    return f;
                }
                *top = *top * *f;
            }
        }
        if (!top || !eat('/')) {
            return top;
        }
        std::optional<Dimension> below;
        if (eat('(')) {
            below = expression();
            if (below && !eat(')')) {
                return fail("expected ')'");
            }
        } else {
            below = factor();
        }
        if (below && i_ < t_.size() && t_[i_] == '.') {
            return fail("a denominator of more than one factor needs parentheses, e.g. "
                        "\"kg/(m.s2)\"");
        }
        return below ? std::optional<Dimension>(*top / *below) : std::nullopt;
    }

    std::optional<Dimension> factor() {
        std::size_t start = i_;
        while (i_ < t_.size() && std::isalpha(static_cast<unsigned char>(t_[i_]))) {
            ++i_;
        }
        std::string symbol(t_.substr(start, i_ - start));
        if (symbol.empty()) {
            return fail(i_ < t_.size() ? fmt::format("expected a unit symbol at '{}'", t_[i_])
                                       : "expected a unit symbol at the end");
        }
        std::int64_t power = 1;
        std::size_t digits = i_;
        bool negative = eat('-');
        if (!negative) {
            eat('+');
        }
        std::size_t first_digit = i_;
        while (i_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[i_])) &&
               i_ - first_digit < 6) {
            ++i_;
        }
        if (i_ > first_digit) {
            power = std::strtoll(std::string(t_.substr(first_digit, i_ - first_digit)).c_str(),
                                 nullptr, 10);
            power = negative ? -power : power;
        } else if (i_ != digits) {
            return fail(fmt::format("expected digits after the sign in '{}'", symbol));
        }
        for (const Named& n : named_units()) {
            if (symbol == n.symbol) {
                return n.dimension.power(power);
            }
        }
        static const char* const scaled[] = {"mm", "cm", "km", "g",   "mg",  "deg", "min", "h",
                                             "ms", "kN", "mN", "kPa", "MPa", "rpm", "l"};
        for (const char* s : scaled) {
            if (symbol == s) {
                return fail(fmt::format("'{}' is not a coherent SI unit; mdl checks units but "
                                        "does not convert values, so give the value in SI "
                                        "units (kg, m, s, rad, N, ...)",
                                        symbol));
            }
        }
        return fail(fmt::format("unknown unit symbol '{}' (mdl knows kg m s A K mol cd rad sr "
                                "N J W Pa Hz)",
                                symbol));
    }

    std::string_view t_;
    std::string& error_;
    std::size_t i_ = 0;
};

std::string exponent_text(Rational r) {
    if (r.den == 1) {
        return r.num == 1 ? "" : std::to_string(r.num);
    }
    return fmt::format("^({}/{})", r.num, r.den);
}

// "kg.m2/(s2.A)" from a symbol before the base units (or none) and the exponents.
std::string format(const char* derived, const Dimension& rest) {
    std::string up, down;
    int down_count = 0;
    if (derived) {
        up = derived;
    }
    for (std::size_t i = 0; i < Dimension::count; ++i) {
        Rational e = rest.exponent[i];
        if (e.zero()) {
            continue;
        }
        if (e.num > 0) {
            up += (up.empty() ? "" : ".") + std::string(base_symbols[i]) + exponent_text(e);
        } else {
            down += (down.empty() ? "" : ".") + std::string(base_symbols[i]) + exponent_text(-e);
            ++down_count;
        }
    }
    if (up.empty()) {
        up = "1";
    }
    if (down.empty()) {
        return up;
    }
    return up + "/" + (down_count > 1 ? "(" + down + ")" : down);
}

// How long a unit's plain form is; in double, since an exponent may be any 64-bit integer
// (x^1e12 of a length): an int would overflow.
double complexity(const Dimension& d) {
    double c = 0.0;
    for (std::size_t i = 0; i < Dimension::rad; ++i) {
        const Rational e = d.exponent[i];
        c += std::fabs(static_cast<double>(e.num)) * (e.den == 1 ? 1.0 : 2.0);
    }
    return c;
}

} // namespace

std::optional<Dimension> parse_unit(std::string_view text, std::string& error) {
    error.clear();
    return UnitParser(text, error).parse();
}

std::string to_string(const Dimension& in) {
    // rad is shown for angles and their rates only ("rad", "rad/s2"): "N/m", not "N.rad/m"
    Dimension d = in;
    for (std::size_t i = 0; i < Dimension::rad; ++i) {
        if (i != Dimension::s && !d.exponent[i].zero()) {
            d.exponent[Dimension::rad] = 0;
        }
    }
    // A named unit times a rest without kg, when that is shorter: "N/m", "J", "N.s", "W".
    const double plain = complexity(d);
    const char* best = nullptr;
    Dimension best_rest = d;
    double best_cost = plain;
    const std::pair<const char*, Dimension> derived[] = {
        {"N", newton()},
        {"J", joule()},
        {"W", joule() * Dimension::of(Dimension::s, -1)},
        {"Pa", newton() * Dimension::of(Dimension::m, -2)}};
    for (const auto& [symbol, unit] : derived) {
        Dimension rest = d / unit;
        rest.exponent[Dimension::rad] = d.exponent[Dimension::rad];
        if (!rest.exponent[Dimension::kg].zero()) {
            continue;
        }
        const double cost = 1.0 + complexity(rest);
        if (cost < best_cost) {
            best = symbol;
            best_rest = rest;
            best_cost = cost;
        }
    }
    return format(best, best_rest);
}

} // namespace mdl::check
