// A generator of random small vibrated models from the features users combine: potentials
// (linear and cubic springs, a coupling spring), damping, a slow drive in `time`, one or two
// vibrations (commensurate or not, with phase offsets, even or odd waves), constraints (a
// pendulum on a rod) and first-order states. Each model is a valid .mdl text whose slow motion
// is O(1) and whose fast forcing is O(omega) with zero mean, the setting of the averaging
// theory (Calvo & Sanz-Serna, SIAM J. Sci. Comput. 32 (2010), eqs. (3.1)-(3.3)).
//
// Deterministic for a seed on every platform: its own uniform numbers from splitmix64 (the
// standard library's distributions are implementation-defined).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace mdl::test {

struct RandomVibratedModel {
    std::string text;
    std::vector<std::string> features; // "damping", "slow drive", "two vibrations", ...
    bool constrained = false;
    bool states = false;
    bool incommensurate = false;
};

class SplitMix {
public:
    explicit SplitMix(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    double uniform(double lo, double hi) {
        return lo + (hi - lo) * static_cast<double>(next() >> 11) * 0x1.0p-53;
    }
    bool chance(double p) { return uniform(0.0, 1.0) < p; }
    int pick(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }

private:
    std::uint64_t state_;
};

inline std::string number(double x) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6g", x);
    return buffer;
}

// omega: the vibrations' base rate (the test uses 1e4 .. 1e5).
inline RandomVibratedModel random_vibrated_model(std::uint64_t seed, double omega) {
    SplitMix r(seed);
    RandomVibratedModel out;
    const bool constrained = r.chance(0.2);
    const bool states = !constrained && r.chance(0.15);
    const bool damping = r.chance(0.4);
    const bool drive = r.chance(0.4);
    const int vibrations = r.chance(0.3) ? 2 : 1;
    const bool incommensurate = vibrations == 2 && r.chance(0.3);
    out.constrained = constrained;
    out.states = states;
    out.incommensurate = incommensurate;
    if (damping) {
        out.features.push_back("damping");
    }
    if (drive) {
        out.features.push_back("slow drive");
    }
    if (vibrations == 2) {
        out.features.push_back(incommensurate ? "two incommensurate vibrations"
                                              : "two vibrations (omega, 2 omega)");
    }
    if (constrained) {
        out.features.push_back("constraint");
    }
    if (states) {
        out.features.push_back("first-order state");
    }

    std::string t = "model Random" + std::to_string(seed) + "\n";
    t += "  parameter Real omega = " + number(omega) + ";\n";
    // the vibrations: zero-mean waves of size omega; phase offsets; even (cos) or odd (sin)
    const char* waves[] = {"cos(theta)", "sin(theta)", "cos(theta) + 0.3*cos(2*theta)",
                           "cos(theta + 0.7)"};
    for (int i = 0; i < vibrations; ++i) {
        const std::string name = i == 0 ? "a" : "b";
        std::string rate = "omega";
        if (i == 1) {
            rate = incommensurate ? "1.4142135623730951*omega" : "2*omega";
        }
        std::string phase = rate + "*time";
        if (r.chance(0.3)) {
            phase += " + " + number(r.uniform(0.1, 3.0));
        }
        const int wave = r.pick(4);
        if (wave == 1) {
            out.features.push_back("odd wave");
        }
        t += "  vibration " + name + "(theta = " + phase + ") = " + number(r.uniform(0.5, 1.5)) +
             "*omega*(" + waves[wave] + ");\n";
    }
    const std::string fast = vibrations == 2 ? "(a + " + number(r.uniform(0.3, 1.0)) + "*b)" : "a";
    if (constrained) {
        // a pendulum on a rod of length l from a vibrating pivot, Cartesian, the vibration as
        // the inertial force of the pivot's frame (as the HMM paper's eq. (4.3))
        const double l = r.uniform(0.5, 1.5), phi = r.uniform(-0.8, 0.8);
        t += "  parameter Real l = " + number(l) + ", g = " + number(r.uniform(0.5, 2.0)) + ";\n";
        t += "  body p(m = 1, x(start = " + number(l * std::sin(phi)) +
             "), y(start = " + number(l * std::cos(phi)) + "));\n";
        t += "  constraint rod: p.x^2 + p.y^2 = l^2;\n";
        t += "  potential U = p.y*(g + " + number(r.uniform(0.3, 0.8)) + "*" + fast + ");\n";
        if (damping) {
            t += "  force friction(p) = {-" + number(r.uniform(0.05, 0.3)) + "*p.vx, -" +
                 number(r.uniform(0.05, 0.3)) + "*p.vy};\n";
        }
        if (drive) {
            t += "  force push(p) = {" + number(r.uniform(0.1, 0.5)) + "*cos(" +
                 number(r.uniform(0.5, 2.0)) + "*time), 0};\n";
        }
    } else {
        const bool two = r.chance(0.4);
        const int n = two ? 2 : 1;
        for (int i = 1; i <= n; ++i) {
            const std::string x = "x" + std::to_string(i);
            t += "  coordinate " + x + "(start = " + number(r.uniform(-1.0, 1.0)) +
                 ", vstart = " + number(r.uniform(-0.5, 0.5)) +
                 ", m = " + number(r.uniform(0.5, 2.0)) + ");\n";
        }
        std::string U =
            number(r.uniform(0.5, 2.0)) + "/2*x1^2 + " + number(r.uniform(0.0, 0.5)) + "/4*x1^4";
        if (two) {
            U += " + " + number(r.uniform(0.5, 2.0)) + "/2*x2^2 + " + number(r.uniform(0.2, 1.0)) +
                 "/2*(x1 - x2)^2";
        }
        t += "  potential U = " + U + ";\n";
        for (int i = 1; i <= n; ++i) {
            const std::string x = "x" + std::to_string(i);
            std::string f;
            // the fast force: parametric (Duffing, Mathieu), Kapitza-like or additive
            const int coupling = r.pick(3);
            const std::string amp = number(r.uniform(0.3, 1.0));
            if (coupling == 0) {
                f = amp + "*" + fast + "*" + x;
            } else if (coupling == 1) {
                f = amp + "*" + fast + "*sin(" + x + ")";
            } else {
                f = amp + "*" + fast;
            }
            if (damping) {
                f += " - " + number(r.uniform(0.05, 0.4)) + "*der(" + x + ")";
            }
            if (drive) {
                f += " + " + number(r.uniform(0.1, 0.5)) + "*cos(" + number(r.uniform(0.5, 2.0)) +
                     "*time)";
            }
            if (states && i == 1) {
                f += " + z";
            }
            t += "  force f" + std::to_string(i) + "(" + x + ") = " + f + ";\n";
        }
        if (states) {
            t += "  Real z(start = " + number(r.uniform(-0.5, 0.5)) + ");\n";
        }
    }
    if (states) {
        t += "equation\n  der(z) = -" + number(r.uniform(0.5, 2.0)) + "*z + " +
             number(r.uniform(0.2, 1.0)) + "*x1;\n";
    }
    t += "end Random" + std::to_string(seed) + ";\n";
    out.text = t;
    return out;
}

} // namespace mdl::test
