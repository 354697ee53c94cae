// Language II end to end: arrays, loops, Integer parameters, comprehensions, reductions and
// components compile to the same system as the hand-written flat model, and run to the same
// (or the analytic) trajectory.
#include "check/front_end.hpp"
#include "runtime/integrate.hpp"
#include "runtime/integrators/rk4.hpp"
#include "shipped_model.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <fmt/format.h>
#include <string>
#include <vector>

using namespace mdl;
using mdl::test::LoadedModel;

namespace {

const char* array_chain = R"(
model Chain "n masses on springs, hanging from O"
  parameter Integer n = 6 "number of masses";
  parameter Real m = 1, k = 1e3, L = 0.1, g = 9.8;
  anchor O(x = 0, y = 0);
  body b[n](each m = m, x(start = {i*L*1.1 for i in 1:n}), each y(start = 0));
  spring s1(O, b[1], k = k, length = L);
  for i in 2:n loop
    spring s[i](b[i-1], b[i], k = k, length = L);
  end for;
  gravity G(y = -g);
end Chain;
)";

// The same chain written out by hand, as models were written before arrays.
std::string flat_chain(int n) {
    std::string s = "model Chain\n  parameter Real m = 1, k = 1e3, L = 0.1, g = 9.8;\n"
                    "  anchor O(x = 0, y = 0);\n";
    for (int i = 1; i <= n; ++i) {
        s += fmt::format("  body b{}(m = m, x(start = {}*L*1.1), y(start = 0));\n", i, i);
    }
    s += "  spring s1(O, b1, k = k, length = L);\n";
    for (int i = 2; i <= n; ++i) {
        s += fmt::format("  spring s{}(b{}, b{}, k = k, length = L);\n", i, i - 1, i);
    }
    s += "  gravity G(y = -g);\nend Chain;\n";
    return s;
}

// RK4 from the model's start state; every state of the trajectory.
std::vector<runtime::State> trajectory(const LoadedModel& m, double t_end, double h) {
    runtime::RungeKutta4<> rk4(m.model);
    runtime::State s = m.start();
    std::vector<runtime::State> out;
    runtime::integrate_fixed(rk4, s, t_end, h, [&](const runtime::State& x) { out.push_back(x); });
    return out;
}

double max_difference(const std::vector<runtime::State>& a, const std::vector<runtime::State>& b) {
    REQUIRE(a.size() == b.size());
    double d = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        REQUIRE(a[i].q.size() == b[i].q.size());
        d = std::max(
            {d, (a[i].q - b[i].q).cwiseAbs().maxCoeff(), (a[i].v - b[i].v).cwiseAbs().maxCoeff()});
    }
    return d;
}

} // namespace

TEST_CASE("an array chain runs the trajectory of the hand-written flat chain") {
    LoadedModel arrays(compile(array_chain, "chain.mdl"));
    LoadedModel flat(compile(flat_chain(6), "flat_chain.mdl"));
    REQUIRE(arrays.compiled.position_names().size() == 12);
    CHECK(arrays.compiled.position_names()[4] == "b[3].x");
    CHECK(arrays.compiled.parameter_names() == flat.compiled.parameter_names());
    const auto a = trajectory(arrays, 0.5, 1e-3);
    const auto b = trajectory(flat, 0.5, 1e-3);
    // The unrolled model is the hand-written one: the same kernels, so the same bits.
    CHECK(max_difference(a, b) == 0.0);
    // the chain moved: the comparison is not of two resting states
    CHECK(std::abs(a.back().q[11] - a.front().q[11]) > 1e-2);
}

TEST_CASE("an Integer parameter is structural: -p n recompiles, set_parameter refuses") {
    CompileOptions options;
    options.structural_parameters = {{"n", 9}, {"k", 5}}; // k is Real: left to the caller
    LoadedModel nine(compile(array_chain, "chain.mdl", options));
    CHECK(nine.compiled.position_names().size() == 18);
    REQUIRE(nine.compiled.structural_parameters().size() == 1);
    CHECK(nine.compiled.structural_parameters()[0] == std::pair<std::string, long long>("n", 9));
    CHECK(nine.compiled.parameter("k") == 1e3);
    nine.compiled.set_parameter("n", 9); // the compiled value: accepted
    CHECK_THROWS_WITH(nine.compiled.set_parameter("n", 4),
                      Catch::Contains("Integer parameter, fixed when the model is compiled"));
    const auto a = trajectory(nine, 0.2, 1e-3);
    const auto b = trajectory(LoadedModel(compile(flat_chain(9), "flat.mdl")), 0.2, 1e-3);
    CHECK(max_difference(a, b) <= 1e-12);
}

TEST_CASE("parameter arrays, comprehensions and reductions expand to the flat expressions") {
    // U = sum k_i q_i^2 / 2 + min(q1, q2): force_i = -k_i q_i (- 1 on the smaller of q1, q2)
    const char* text = R"(
model Springs
  parameter Integer n = 3;
  parameter Real k[n] = {1, 2*2, 9};
  coordinate q[n](start = {0.1*i for i in 1:n}, each m = 1);
  potential U = sum(k[i]*q[i]^2/2 for i in 1:n) + product({1, 2}) - 2;
  parameter Real top = max(k[i] for i in 1:n), low = min(k), pair = max(2, k[1]);
end Springs;
)";
    LoadedModel m(compile(text, "springs.mdl"));
    CHECK(m.compiled.parameter_names() ==
          std::vector<std::string>{"k[1]", "k[2]", "k[3]", "top", "low", "pair"});
    CHECK(m.compiled.parameter("top") == 9);
    CHECK(m.compiled.parameter("low") == 1);
    CHECK(m.compiled.parameter("pair") == 2);
    runtime::State s = m.start();
    CHECK(s.q[2] == Approx(0.3));
    m.compiled.set_parameter("k[3]", 10);
    CHECK(m.compiled.parameter("top") == 10); // recomputed from the array
    runtime::Model model = mdl::runtime_model(m.compiled);
    runtime::Vector f(3), theta(0);
    model.force(0.0, s.q, s.v, s.x, theta, f);
    CHECK(f[0] == Approx(-1 * 0.1));
    CHECK(f[1] == Approx(-4 * 0.2));
    CHECK(f[2] == Approx(-10 * 0.3));
}

TEST_CASE("components: two library pendulums equal the same system written flat") {
    LoadedModel lib(compile_file(test::shipped_model_path("two_pendulums.mdl")));
    const char* flat = R"(
model TwoPendulumsFlat
  parameter Real kc = 5;
  anchor pl(x = 0, y = 0);
  anchor pr(x = 0.5, y = 0);
  body bl(m = 1, x(start = 0.2*sin(0.3)), y(start = -0.2*cos(0.3)));
  body br(m = 1, x(start = 0.5 + 0.3*sin(-0.2)), y(start = -0.3*cos(-0.2)));
  gravity G(y = -9.81);
  constraint rl: (bl.x - pl.x)^2 + (bl.y - pl.y)^2 = 0.2^2;
  constraint rr: (br.x - pr.x)^2 + (br.y - pr.y)^2 = 0.3^2;
  spring c(bl, br, k = kc, length = 0.5);
end TwoPendulumsFlat;
)";
    LoadedModel hand(compile(flat, "flat.mdl"));
    CHECK(lib.compiled.position_names() ==
          std::vector<std::string>{"left.b.x", "left.b.y", "right.b.x", "right.b.y"});
    CHECK(lib.compiled.constraint_names() == std::vector<std::string>{"left.rod", "right.rod"});
    CHECK(lib.compiled.parameter("right.l") == 0.3);
    runtime::State s = lib.start(), t = hand.start();
    CHECK((s.q - t.q).cwiseAbs().maxCoeff() < 1e-15);
    // Forces and constraint Jacobians agree at perturbed states (gravity acts once per bob).
    runtime::Vector theta(0), f1(4), f2(4);
    for (int j = 0; j < 5; ++j) {
        s.q += runtime::Vector::Constant(4, 0.01 * j);
        s.v = runtime::Vector::Constant(4, 0.1 * j);
        lib.model.force(0.0, s.q, s.v, s.x, theta, f1);
        hand.model.force(0.0, s.q, s.v, s.x, theta, f2);
        CHECK((f1 - f2).cwiseAbs().maxCoeff() <= 1e-12);
    }
}

TEST_CASE("a library spring-mass cell on a library vibrating support: the forced oscillator") {
    LoadedModel m(compile_file(test::shipped_model_path("shaken_cell.mdl")));
    // y = x - L: y'' + w0^2 y = w0^2 a sin(w t), y(0) = y'(0) = 0, so
    // y = A (sin(w t) - (w / w0) sin(w0 t)), A = a w0^2 / (w0^2 - w^2).
    const double a = 1e-2, w = 30, w0 = 10, A = a * w0 * w0 / (w0 * w0 - w * w);
    const auto traj = trajectory(m, 1.0, 1e-4);
    double worst = 0;
    for (const auto& s : traj) {
        double y = A * (std::sin(w * s.t) - w / w0 * std::sin(w0 * s.t));
        worst = std::max(worst, std::abs(s.q[0] - 1.0 - y));
    }
    CHECK(worst < 1e-10);
    CHECK(std::abs(A) > 1e-3); // the motion is not trivially zero
}

TEST_CASE("an error inside a component names the instance it was found in") {
    const char* text = R"(
model Cell
  parameter Real k = 1;
  body b(m = 1, x(start = 0));
  potential U = k*b.x^2 + undefined_thing;
end Cell;
model Two
  Cell left, right(k = 2);
end Two;
)";
    try {
        (void)compile(text, "two.mdl");
        FAIL("compiled a model with an undeclared name");
    } catch (const CompileError& e) {
        std::string report = e.what();
        CHECK_THAT(report, Catch::Contains("two.mdl:5:27: error: use of undeclared name "
                                           "'undefined_thing'"));
        CHECK_THAT(report, Catch::Contains("two.mdl:8:8: note: in instance 'left' of Cell"));
        CHECK_THAT(report, Catch::Contains("two.mdl:8:14: note: in instance 'right' of Cell"));
    }
}

TEST_CASE("modifiers reach into nested instances; the enclosing one wins") {
    const char* text = R"(
model Inner
  parameter Real l = 1;
  parameter Integer n = 1;
  coordinate q[n](each start = 0.5, each m = 1);
  potential U = l*sum(q[i]^2 for i in 1:n);
end Inner;
model Outer
  parameter Real w = 2;
  Inner inner(l = w, n = 2);
end Outer;
model Top
  Outer o(w = 5, inner(n = 3, q(start = {1, 2, 3})));
end Top;
)";
    LoadedModel m(compile(text, "top.mdl"));
    REQUIRE(m.compiled.position_names() ==
            std::vector<std::string>{"o.inner.q[1]", "o.inner.q[2]", "o.inner.q[3]"});
    CHECK(m.compiled.parameter("o.inner.l") == 5); // l = w of Outer, w = 5 from Top
    runtime::State s = m.start();
    CHECK(s.q[0] == 1);
    CHECK(s.q[2] == 3);
    runtime::Vector f(3), theta(0);
    m.model.force(0.0, s.q, s.v, s.x, theta, f);
    for (int i = 0; i < 3; ++i) {
        CHECK(f[i] == Approx(-2 * 5 * s.q[i]));
    }
}

TEST_CASE("arrays of first-order states and nested for-loops") {
    // x[i]' = -i x[i]: x[i](t) = x[i](0) exp(-i t); y[i,j] pairs from nested loops as a sum
    const char* text = R"(
model Decay
  parameter Integer n = 3;
  Real x[n](start = {1 for i in 1:n});
  coordinate q(start = 0.1, m = 1);
  potential U = sum(sum(0*q + (i + j)*q^2/2 for j in 1:i) for i in 1:n);
equation
  for i in 1:n loop
    der(x[i]) = -i*x[i];
  end for;
end Decay;
)";
    LoadedModel m(compile(text, "decay.mdl"));
    REQUIRE(m.compiled.state_names() == std::vector<std::string>{"x[1]", "x[2]", "x[3]"});
    const auto traj = trajectory(m, 1.0, 1e-3);
    for (int i = 1; i <= 3; ++i) {
        CHECK(traj.back().x[i - 1] == Approx(std::exp(-i * 1.0)).epsilon(1e-10));
    }
    // U = q^2/2 * sum over 1 <= j <= i <= 3 of (i + j) = q^2/2 * (2 + 7 + 15): force = -24 q
    runtime::State s = m.start();
    runtime::Vector f(1), theta(0);
    m.model.force(0.0, s.q, s.v, s.x, theta, f);
    CHECK(f[0] == Approx(-24 * 0.1));
}
