// The sparse constraint solves of SHAKE and RATTLE (runtime/integrators/
// sparse_constraint_solves.hpp, issue 19) on a pendulum chain of 60 links (60 constraints,
// above the number from which the sparse path is chosen): sparse and dense trajectories agree
// to 1e-12, the constraints hold on both, and a redundant constraint is named on the sparse
// path as on the dense one.
#include "mdl/compiled_model.hpp"
#include "runtime/integrators/rattle.hpp"
#include "runtime/integrators/shake.hpp"
#include "runtime/integrators/sparse_constraint_solves.hpp"
#include "runtime/numerical_failure.hpp"
#include "shipped_model.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace mdl;

namespace {

test::ShippedModel chain(int links) {
    CompileOptions options;
    options.structural_parameters = {{"n", links}};
    return test::ShippedModel("pendulum_chain.mdl", options);
}

template <class Stepper>
runtime::State integrate(Stepper& stepper, runtime::State s, int steps, double h) {
    for (int i = 0; i < steps; ++i) {
        stepper.step(s, h);
    }
    return s;
}

double max_difference(const runtime::Vector& a, const runtime::Vector& b) {
    return (a - b).cwiseAbs().maxCoeff();
}

} // namespace

TEST_CASE("SHAKE and RATTLE: sparse and dense constraint solves give the same trajectories") {
    const test::ShippedModel m = chain(60);
    REQUIRE(m.model.constraints() == 60);
    REQUIRE(runtime::has_sparse_constraint_jacobian(m.model));
    CHECK(runtime::use_sparse_constraints(m.model, runtime::LinearAlgebra::automatic));
    CHECK_FALSE(runtime::use_sparse_constraints(m.model, runtime::LinearAlgebra::dense));
    const runtime::State start = m.start();
    const double h = 1e-3;
    const int steps = 300;
    runtime::Vector g(m.model.constraints());

    runtime::Rattle<> rattle_dense(m.model, {}, runtime::LinearAlgebra::dense);
    runtime::Rattle<> rattle_sparse(m.model, {}, runtime::LinearAlgebra::sparse);
    REQUIRE_FALSE(rattle_dense.sparse());
    REQUIRE(rattle_sparse.sparse());
    const runtime::State rd = integrate(rattle_dense, start, steps, h);
    const runtime::State rs = integrate(rattle_sparse, start, steps, h);
    // the chain has moved: the comparison is not of two resting states
    CHECK(max_difference(rd.q, start.q) > 0.1);
    CHECK(max_difference(rs.q, rd.q) < 1e-12);
    CHECK(max_difference(rs.v, rd.v) < 1e-12);
    // mu_n solves S mu = -(2/h) G (...): round-off of its right-hand side times 2/h
    CHECK(max_difference(rs.lambda, rd.lambda) < 1e-8 * rd.lambda.cwiseAbs().maxCoeff());
    m.model.constraint(rs.q, g);
    CHECK(g.cwiseAbs().maxCoeff() <= 1e-12);

    runtime::Shake<> shake_dense(m.model, {}, runtime::LinearAlgebra::dense);
    runtime::Shake<> shake_sparse(m.model, {}, runtime::LinearAlgebra::sparse);
    const runtime::State sd = integrate(shake_dense, start, steps, h);
    const runtime::State ss = integrate(shake_sparse, start, steps, h);
    CHECK(max_difference(ss.q, sd.q) < 1e-12);
    // SHAKE's velocities carry h/2 M^-1 G^T Lambda_n, and the position multipliers are fixed
    // by g(q) only to its round-off (1e-14) over h^2/2, 2e-8: 1e-11 in v on either path
    // (measured 3e-11 after 300 steps)
    CHECK(max_difference(ss.v, sd.v) < 1e-10);
    // SHAKE and RATTLE compute the same positions
    CHECK(max_difference(ss.q, rs.q) < 1e-12);
}

TEST_CASE("the sparse Gram matrix names a redundant constraint") {
    // the last link doubled: its gradient equals the one before it
    const char* source = R"(model DoubledLink
  body a(m = 1, x(start = 1), y(start = 0));
  body b(m = 1, x(start = 2), y(start = 0));
  constraint rod1: a.x^2 + a.y^2 = 1;
  constraint rod2: (b.x - a.x)^2 + (b.y - a.y)^2 = 1;
  constraint rod3: (b.x - a.x)^2 + (b.y - a.y)^2 = 1;
end DoubledLink;
)";
    const test::LoadedModel m(compile(source, "doubled_link.mdl"));
    runtime::Rattle<> rattle(m.model, {}, runtime::LinearAlgebra::sparse);
    REQUIRE(rattle.sparse());
    runtime::State s = m.model.zero_state();
    s.q << 1.0, 0.0, 2.0, 0.0; // a.x, a.y, b.x, b.y: on the constraints, at rest
    REQUIRE(m.model.position_name(2) == "b.x");
    try {
        rattle.step(s, 1e-3);
        FAIL("a redundant constraint was accepted");
    } catch (const runtime::NumericalFailure& failure) {
        CHECK(failure.kind() == runtime::FailureKind::singular_constraint_jacobian);
        CHECK(std::string(failure.what()).find("rod") != std::string::npos);
    }
}
