// A seeded generator of random well-formed models for differential tests of the compiler
// (issue 22, item 0): random expression trees over every built-in function and operator,
// if-expressions with relations and and/or/not, in potentials, forces (velocity- and
// time-dependent), springs, dampers, gravity, constraints, vibrations, second- and first-order
// equations, and Language II's constructs: Integer parameters, arrays of coordinates, bodies
// and states with `each`, comprehensions, reductions, for-loops of declarations and of
// equations, and a component defined in the same file and instantiated as an array.
//
// Arguments of functions are kept in their domains most of the time (log(1 + u^2),
// asin(tanh(u)), sqrt(2 + sin(u))), but about one call in twelve takes its argument raw, so
// NaN and infinity reach the compiler too. A model may still be refused (a constraint that
// simplifies to a constant, a vibration that is not proved periodic, a parameter that
// evaluates to NaN): the test requires that refusal to be a located CompileError.
//
// Deterministic for a seed on every platform (SplitMix from random_vibrated_model.hpp).
#pragma once

#include "random_vibrated_model.hpp"

#include <string>
#include <vector>

namespace mdl::test {

struct RandomModel {
    std::string text;
    // One declaration breaks a rule of the language (a velocity in a potential, an undeclared
    // name, a wrong arity, an index out of range, time in a constraint): the model must be
    // refused with a located error. Every other model must compile.
    bool invalid = false;
    // Only potentials, springs and gravity act (equations have right-hand side 0, no forces or
    // dampers): the force kernel is then -dU/dq of the potential kernel.
    bool conservative = false;
};

class RandomModelGenerator {
public:
    explicit RandomModelGenerator(std::uint64_t seed) : r_(seed), seed_(seed) {}

    RandomModel generate() {
        RandomModel out;
        out.conservative = r_.chance(0.35);
        conservative_ = out.conservative;
        std::string t;
        const bool cell = r_.chance(0.4);
        if (cell) {
            t += cell_model();
        }
        const std::string name = "Random" + std::to_string(seed_);
        t += "model " + name + "\n";
        n_ = 2 + r_.pick(2);
        t += "  parameter Integer n = " + std::to_string(n_) + ";\n";
        params_ = {"p1", "p2"};
        t += "  parameter Real p1 = " + number(r_.uniform(0.5, 2.0)) +
             ", p2 = " + number(r_.uniform(-1.0, 1.0)) + ", p3 = p1*" +
             number(r_.uniform(0.5, 2.0)) + ";\n";
        params_.push_back("p3");
        t += "  parameter Real kk[n] = {" + number(r_.uniform(0.5, 2.0)) + "*i for i in 1:n};\n";
        params_.push_back("kk[1]");
        params_.push_back("kk[2]");

        positions_.clear();
        velocities_.clear();
        states_.clear();
        vibrations_.clear();
        // coordinates with a mass, as an array
        t += "  coordinate q[n](start = {" + number(r_.uniform(-0.5, 0.5)) +
             "*i for i in 1:n}, each vstart = " + number(r_.uniform(-0.5, 0.5)) +
             ", each m = " + number(r_.uniform(0.5, 2.0)) + ");\n";
        for (int i = 1; i <= n_; ++i) {
            positions_.push_back("q[" + std::to_string(i) + "]");
            velocities_.push_back("der(q[" + std::to_string(i) + "])");
        }
        const bool equation_coordinate = r_.chance(0.6);
        if (equation_coordinate) {
            t += "  coordinate e(start = " + number(r_.uniform(-1.0, 1.0)) + ");\n";
            positions_.push_back("e");
            velocities_.push_back("der(e)");
        }
        const bool bodies = r_.chance(0.5);
        if (bodies) {
            t += "  body b[2](each m = " + number(r_.uniform(0.5, 2.0)) + ", x(start = {" +
                 number(r_.uniform(-1.0, 0.0)) + ", " + number(r_.uniform(0.0, 1.0)) +
                 "}), each y(start = " + number(r_.uniform(-1.0, 1.0)) + "));\n";
            t += "  anchor O(x = 0, y = " + number(r_.uniform(-0.5, 0.5)) + ");\n";
            for (const char* b : {"b[1]", "b[2]"}) {
                positions_.push_back(std::string(b) + ".x");
                positions_.push_back(std::string(b) + ".y");
                velocities_.push_back(std::string(b) + ".vx");
                velocities_.push_back("der(" + std::string(b) + ".y)");
            }
        }
        if (cell) {
            t += "  Cell c[2](k = {" + number(r_.uniform(0.5, 2.0)) + ", " +
                 number(r_.uniform(0.5, 2.0)) + "}, each x0 = " + number(r_.uniform(0.5, 1.5)) +
                 ");\n";
            positions_.push_back("c[1].b.x");
            positions_.push_back("c[2].b.x");
            velocities_.push_back("c[2].b.vx");
        }
        const bool state = r_.chance(0.5);
        const bool state_array = r_.chance(0.3);
        if (state) {
            t += "  Real z(start = " + number(r_.uniform(-1.0, 1.0)) + ");\n";
            states_.push_back("z");
        }
        if (state_array) {
            t += "  Real w[n](each start = " + number(r_.uniform(-1.0, 1.0)) + ");\n";
            states_.push_back("w[1]");
        }
        const int vibration_count = r_.pick(3);
        for (int i = 0; i < vibration_count; ++i) {
            const std::string v = i == 0 ? "a" : "a2";
            t += "  parameter Real omega" + std::to_string(i) + " = " +
                 number(r_.uniform(1.0, 50.0)) + ";\n";
            std::string phase = "omega" + std::to_string(i) + "*time";
            if (r_.chance(0.5)) {
                phase += " + " + number(r_.uniform(0.0, 3.0));
            }
            t += "  vibration " + v + "(theta = " + phase + ") = " + periodic(2) + ";\n";
            vibrations_.push_back(v);
        }

        // potentials: one scalar, one reduction, one per element in a loop
        t += "  potential U = " + smooth_of(positions_, true, 4) + ";\n";
        if (r_.chance(0.6)) {
            t += "  potential Usum = sum(kk[i]*q[i]^2/2 + " + loop_expr(3, false) +
                 " for i in 1:n);\n";
        }
        if (r_.chance(0.5)) {
            t += "  for i in 1:n loop\n    potential Ui[i] = q[i]*" + loop_expr(3, false) +
                 ";\n  end for;\n";
        }
        if (bodies) {
            t += "  spring s1(O, b[1], k = p1, length = " + number(r_.uniform(0.0, 0.5)) + ");\n";
            if (r_.chance(0.5)) {
                t += "  spring s2(b[1], b[2], k = " + number(r_.uniform(0.5, 3.0)) + ");\n";
            }
            if (r_.chance(0.5)) {
                t += "  gravity G(y = -" + number(r_.uniform(1.0, 10.0)) +
                     (vibrations_.empty() ? std::string() : " + 0.1*" + vibrations_[0]) + ");\n";
            }
        }
        if (!conservative_) {
            if (bodies && r_.chance(0.5)) {
                t += "  damper d(b[1], b[2], c = " + number(r_.uniform(0.1, 1.0)) + ");\n";
            }
            t += "  force f1(q[1]) = " + any_expr(3) + ";\n";
            if (bodies) {
                t += "  force fb(b[2]) = {" + any_expr(2) + ", " + any_expr(2) + "};\n";
            }
            if (r_.chance(0.5)) {
                t += "  for i in 2:n loop\n    force fq[i](q[i]) = " + loop_expr(3, true) + " - " +
                     number(r_.uniform(0.0, 1.0)) + "*der(q[i]);\n  end for;\n";
            }
        }
        const int constraints = r_.pick(3);
        for (int i = 0; i < constraints; ++i) {
            t += "  constraint g" + std::to_string(i) + ": " + constraint_lhs() + " = " +
                 number(r_.uniform(0.5, 2.0)) + ";\n";
        }

        if (seed_ % 20 == 7) { // one model in 20, two among the first 40 seeds
            out.invalid = true;
            const char* errors[] = {
                "  potential Ubad = der(q[1])^2;\n", "  force fbad(q[1]) = q[2] + undeclared;\n",
                "  potential Ubad = atan2(q[1]);\n", "  potential Ubad = q[n + 1]^2;\n",
                "  constraint gbad: q[1]^2 + der(q[1]) = 1;\n"}; // velocity-dependent
            t += errors[r_.pick(5)];
        }

        const bool any_equation = equation_coordinate || state || state_array;
        if (any_equation) {
            t += "equation\n";
        }
        if (equation_coordinate) {
            const std::string rhs = conservative_ ? "0" : any_expr(3);
            t += r_.chance(0.5) ? "  der(der(e)) = " + rhs + ";\n"
                                : "  p1*der(der(e)) = " + rhs + ";\n";
        }
        if (state) {
            t += "  der(z) = " + any_expr(3) + ";\n";
        }
        if (state_array) {
            t += "  for i in 1:n loop\n    der(w[i]) = -w[i] + " + loop_expr(2, true) +
                 ";\n  end for;\n";
        }
        t += "end " + name + ";\n";
        out.text = t;
        return out;
    }

private:
    // A component in the same file: a body on a spring to an anchor, with a potential.
    std::string cell_model() {
        std::string t =
            "model Cell\n  parameter Real k = 1, L = " + number(r_.uniform(0.1, 0.5)) +
            ", x0 = 1;\n  anchor left(x = 0);\n  body b(m = " + number(r_.uniform(0.5, 2.0)) +
            ", x(start = x0));\n";
        t += "  spring s(left, b, k = k, length = L);\n";
        std::vector<std::string> own{"b.x"};
        std::vector<std::string> saved = params_;
        params_ = {"k", "L"};
        t += "  potential V = " + smooth_of(own, false, 2) + ";\n";
        params_ = saved;
        t += "end Cell;\n";
        return t;
    }

    std::string leaf(const std::vector<std::string>& vars) {
        const int k = r_.pick(10);
        if (k < 2 || vars.empty()) {
            return number(r_.uniform(0.1, 3.0));
        }
        if (k < 4 && !params_.empty()) {
            return params_[static_cast<std::size_t>(r_.pick(static_cast<int>(params_.size())))];
        }
        if (k == 4) {
            return "pi";
        }
        return vars[static_cast<std::size_t>(r_.pick(static_cast<int>(vars.size())))];
    }

    // A relation or a logical combination of them, for the condition of an if-expression.
    std::string condition(const std::vector<std::string>& vars, int depth) {
        const int k = r_.pick(6);
        if (depth > 0 && k == 0) {
            return condition(vars, depth - 1) + " and " + condition(vars, depth - 1);
        }
        if (depth > 0 && k == 1) {
            return condition(vars, depth - 1) + " or " + condition(vars, depth - 1);
        }
        if (depth > 0 && k == 2) {
            return "not (" + condition(vars, depth - 1) + ")";
        }
        const char* ops[] = {"<", "<=", ">", ">=", "<>", "=="};
        return expr(vars, 1) + " " + ops[r_.pick(r_.chance(0.9) ? 5 : 6)] + " " + expr(vars, 0);
    }

    // A random expression tree over vars.
    std::string expr(const std::vector<std::string>& vars, int depth) {
        if (depth <= 0 || r_.chance(0.2)) {
            return leaf(vars);
        }
        const std::string a = expr(vars, depth - 1);
        const bool raw = r_.chance(1.0 / 12); // an argument outside the function's domain
        switch (r_.pick(26)) {
        case 0:
        case 1:
            return "(" + a + " + " + expr(vars, depth - 1) + ")";
        case 2:
            return "(" + a + " - " + expr(vars, depth - 1) + ")";
        case 3:
        case 4:
            return a + "*" + expr(vars, depth - 1);
        case 5:
            return raw ? a + "/" + expr(vars, depth - 1)
                       : a + "/(1 + " + expr(vars, depth - 1) + "^2)";
        case 6:
            return "(" + a + ")^" + std::to_string(2 + r_.pick(2));
        case 7:
            return raw ? "(" + a + ")^" + number(r_.uniform(0.5, 2.5))
                       : "(1 + (" + a + ")^2)^" + number(r_.uniform(-1.5, 1.5));
        case 8:
            return "-" + a;
        case 9:
            return "sin(" + a + ")";
        case 10:
            return "cos(" + a + ")";
        case 11:
            return raw ? "tan(" + a + ")" : "tan(0.5*tanh(" + a + "))";
        case 12:
            return raw ? "exp(" + a + ")" : "exp(0.5*sin(" + a + "))";
        case 13:
            return raw ? "log(" + a + ")" : "log(1 + (" + a + ")^2)";
        case 14:
            return raw ? "sqrt(" + a + ")" : "sqrt(2 + sin(" + a + "))";
        case 15:
            return "abs(" + a + ")" + (r_.chance(0.5) ? "^" + number(r_.uniform(1.5, 3.0)) : "");
        case 16:
            return "atan2(" + a + ", " +
                   (raw ? expr(vars, depth - 1) : "2 + cos(" + expr(vars, depth - 1) + ")") + ")";
        case 17:
            return "sinh(" + (raw ? a : "sin(" + a + ")") + ")";
        case 18:
            return "cosh(" + (raw ? a : "sin(" + a + ")") + ")";
        case 19:
            return "tanh(" + a + ")";
        case 20:
            return raw ? "asin(" + a + ")" : "asin(0.9*tanh(" + a + "))";
        case 21:
            return raw ? "acos(" + a + ")" : "acos(0.9*sin(" + a + "))";
        case 22:
            return "atan(" + a + ")";
        case 23:
            return raw ? "pow(" + a + ", " + expr(vars, depth - 1) + ")"
                       : "pow(1 + (" + a + ")^2, " + number(r_.uniform(-1.0, 1.5)) + ")";
        case 24:
            return "(if " + condition(vars, 1) + " then " + a + " else " + expr(vars, depth - 1) +
                   ")";
        default:
            return "(if " + condition(vars, 0) + " then " + a + " elseif " + condition(vars, 0) +
                   " then " + expr(vars, depth - 1) + " else " + leaf(vars) + ")";
        }
    }

    // A potential-like expression that surely depends on vars when `depend` (a quadratic well
    // plus a random tree), so the checker does not warn that it exerts no force.
    std::string smooth_of(const std::vector<std::string>& vars, bool extras, int depth) {
        std::vector<std::string> all = vars;
        if (extras) {
            all.push_back("time");
            for (const auto& v : vibrations_) {
                all.push_back(v);
            }
        }
        const auto& x = vars[static_cast<std::size_t>(r_.pick(static_cast<int>(vars.size())))];
        return number(r_.uniform(0.2, 2.0)) + "*" + x + "^2 + " + expr(all, depth);
    }

    // An expression inside `for i in 1:n`: of q[i], its neighbours and kk[i].
    // `dynamic`: also of der(q[i]) and time (forces and right-hand sides, not potentials).
    std::string loop_expr(int depth, bool dynamic) {
        std::vector<std::string> vars{"q[i]", "q[n + 1 - i]", "kk[i]"};
        if (dynamic && r_.chance(0.5)) {
            vars.push_back("der(q[i])");
            vars.push_back("time");
        }
        return "(" + expr(vars, depth) + ")";
    }

    // A force or right-hand side: any variable, velocities, states, time, vibrations.
    std::string any_expr(int depth) {
        std::vector<std::string> all = positions_;
        for (const auto* set : {&velocities_, &states_, &vibrations_}) {
            all.insert(all.end(), set->begin(), set->end());
        }
        all.push_back("time");
        std::string e = expr(all, depth);
        if (r_.chance(0.3)) {
            e += " + sum(" + loop_expr(2, true) + " for i in 1:n)";
        }
        return e;
    }

    std::string constraint_lhs() {
        std::string e =
            positions_[static_cast<std::size_t>(r_.pick(static_cast<int>(positions_.size())))] +
            "^2";
        return e + " + " + expr(positions_, 2);
    }

    // A 2 pi-periodic function of the phase theta.
    std::string periodic(int depth) {
        const std::vector<std::string> waves{"cos(theta)", "sin(theta)",
                                             "cos(" + std::to_string(1 + r_.pick(3)) + "*theta + " +
                                                 number(r_.uniform(0.0, 3.0)) + ")"};
        std::vector<std::string> saved = params_;
        params_ = {"p1", "p2"};
        std::string e = "p1*" + expr(waves, depth);
        if (r_.chance(0.2)) {
            e = "(if cos(theta) > 0 then p1 else -p1)";
        }
        params_ = saved;
        return e;
    }

    SplitMix r_;
    std::uint64_t seed_;
    bool conservative_ = false;
    int n_ = 2;
    std::vector<std::string> params_, positions_, velocities_, states_, vibrations_;
};

inline RandomModel random_model(std::uint64_t seed) {
    return RandomModelGenerator(seed).generate();
}

} // namespace mdl::test
